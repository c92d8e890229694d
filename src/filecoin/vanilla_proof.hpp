#pragma once
// Building the vanilla proof of one PoRep challenge from a sector's trees and labels, as
// storage-proofs-porep .../vanilla/proof.rs prove_layers builds it: the tree-D proof of the data
// leaf, the tree-R proof of the replica leaf, the columns (all layers' labels) of the challenged
// node and of its 6 DRG and 8 expander parents with their tree-C proofs, one labeling proof per
// layer (the 37 parent labels: DRG parents from the same layer, expander parents from the previous
// one, repeated) and the encoding proof (the last layer's labeling parents). `cuzk seal` (whole
// trees) and synth_c1 (sparse trees) both build their proofs with it.
#include <cstdint>
#include <vector>

#include "filecoin/c1_output.hpp"
#include "filecoin/stacked_graph.hpp"

namespace cuzk::filecoin {

// Where the proofs' contents come from.
class VanillaProofSource {
 public:
  virtual ~VanillaProofSource() = default;
  virtual MerkleProof tree_d_proof(uint64_t node) const = 0;       // leaf: the data node
  virtual MerkleProof tree_c_proof(uint64_t node) const = 0;       // leaf: the column hash
  virtual MerkleProof tree_r_proof(uint64_t node) const = 0;       // leaf: the replica node
  virtual Bytes32 label(uint32_t layer, uint64_t node) const = 0;  // layer 1..L
};

VanillaProof build_vanilla_proof(const StackedGraph& g, uint32_t layers, const VanillaProofSource& src,
                                 uint64_t challenge);

// The proofs of every partition's challenges (porep_challenges for the proof's mode), in the C1
// output's [partition][challenge] order; independent challenges are built in parallel.
std::vector<std::vector<VanillaProof>> build_vanilla_proofs(const RegisteredSealProof& proof, const StackedGraph& g,
                                                            const VanillaProofSource& src, const Bytes32& replica_id,
                                                            const Bytes32& comm_r, const Bytes32& seed);

}  // namespace cuzk::filecoin
