#pragma once
// SDR's layer graph (storage-proofs-porep src/stacked/vanilla/graph.rs StackedGraph): the 6 DRG
// parents of bucket_graph.hpp followed by 8 expander parents, parent i of node n being
// feistel_permute(N·8, n·8 + i) / 8 with keys from SHA-256("Filecoin_Feistel" || porep_id).
// Labels read the DRG parents from the current layer and the expander parents from the previous
// one; the parent cache file (vanilla/cache.rs) is these 14 u32 LE per node.
#include <array>
#include <cstdint>
#include <vector>

#include "filecoin/bucket_graph.hpp"
#include "filecoin/feistel.hpp"
#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kExpDegree = 8;
inline constexpr size_t kDegree = kBaseDegree + kExpDegree;

// graph.rs derive_feistel_keys: the four u64 LE words of SHA-256("Filecoin_Feistel" || porep_id).
std::array<uint64_t, 4> derive_feistel_keys(const PorepId& porep_id);

class StackedGraph {
 public:
  StackedGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api);

  uint64_t nodes() const { return base_.nodes(); }
  const BucketGraph& base() const { return base_; }
  const std::array<uint64_t, 4>& feistel_keys() const { return keys_; }

  std::array<uint32_t, kBaseDegree> base_parents(uint64_t node) const { return base_.parents(node); }
  std::array<uint32_t, kExpDegree> expanded_parents(uint64_t node) const;
  // DRG parents, then expander parents.
  std::array<uint32_t, kDegree> parents(uint64_t node) const;

  // The parent cache's bytes (nodes × 14 u32 LE) and their SHA-256, the digest listed in
  // storage-proofs-porep/parent_cache.json.
  std::vector<uint8_t> parent_cache_bytes() const;
  gadgets::Sha256Digest parent_cache_digest() const;

 private:
  BucketGraph base_;
  std::array<uint64_t, 4> keys_;
  Feistel feistel_;
  ApiVersion api_;
};

}  // namespace cuzk::filecoin
