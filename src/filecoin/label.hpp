#pragma once
// SDR labelling, natively (storage-proofs-porep src/stacked/vanilla/create_label/single.rs and
// graph.rs copy_parents_data_inner{,_exp}).
//
// The label of node n in layer l is SHA-256 of 1248 bytes, trimmed to 254 bits:
//   replica_id (32) | l as u32 BE | n as u64 BE | 20 zero bytes | 37 parent labels (32 each)
// where the 37 parents repeat the node's parent labels: in layer 1 the 6 DRG parents (from the
// layer being built) six times, then DRG parent 0; in later layers the 14 parents (6 DRG from this
// layer, 8 expander from the previous one) twice, then the first 9. Node 0 hashes only the first
// 64 bytes.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "filecoin/stacked_graph.hpp"
#include "gadgets/fr32.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kTotalParents = 37;  // vanilla TOTAL_PARENTS
inline constexpr size_t kLabelPreimageBytes = 64 + kTotalParents * 32;

// The 64-byte head of the preimage: replica_id, layer (u32 BE), node (u64 BE), zeros.
std::array<uint8_t, 64> label_preimage_head(std::span<const uint8_t, 32> replica_id, uint32_t layer, uint64_t node);

// The 37 parent labels of node in layer `layer` (1-based), in preimage order. layer_labels holds
// this layer's labels (at least those of the DRG parents, all < node); exp_labels the previous
// layer's (unused, and may be empty, in layer 1).
std::vector<gadgets::NodeBytes> label_parents(const StackedGraph& g, uint32_t layer, uint64_t node,
                                              std::span<const uint8_t> layer_labels,
                                              std::span<const uint8_t> exp_labels);

// The label of one node (trimmed digest bytes).
gadgets::NodeBytes create_label(const StackedGraph& g, std::span<const uint8_t, 32> replica_id, uint32_t layer,
                                uint64_t node, std::span<const uint8_t> layer_labels,
                                std::span<const uint8_t> exp_labels);

// The 37 preimage parents from the node's distinct parent labels (6 DRG parents in layer 1; 6 DRG
// then 8 expander parents in later layers), repeated as vanilla's labeling proofs repeat them.
std::vector<gadgets::NodeBytes> repeat_parents(std::span<const gadgets::NodeBytes> distinct);

// The label of `node` in `layer` from its 37 preimage parents (ignored for node 0). Callers that
// hold only some labels of a layer (synth_c1's sparse columns) label nodes with it.
gadgets::NodeBytes label_from_parents(std::span<const uint8_t, 32> replica_id, uint32_t layer, uint64_t node,
                                      std::span<const gadgets::NodeBytes> parents);

// Called with (labels done, labels in all layers) as labelling proceeds.
using LabelProgress = std::function<void(uint64_t done, uint64_t total)>;

// All `layers` layers; returns each layer's labels (nodes × 32 bytes), layer 1 first. The graph's
// parents are computed once (in parallel, 56 bytes per node) and shared by all layers; within a
// layer the labels are sequential (DRG parents are earlier nodes of the same layer).
std::vector<std::vector<uint8_t>> generate_labels(const StackedGraph& g, std::span<const uint8_t, 32> replica_id,
                                                  uint32_t layers, const LabelProgress& progress = {});

}  // namespace cuzk::filecoin
