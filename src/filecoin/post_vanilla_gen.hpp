#pragma once
// Building a sector's PoSt vanilla proof from its tree R, as filecoin-proofs post_util.rs
// generate_single_vanilla_proof (and storage-proofs-post vanilla.rs vanilla_proof) does: one
// inclusion proof per challenged leaf, comm_c and comm_r_last = the tree's root, and
// comm_r = Poseidon2(comm_c, comm_r_last). Tests use it for valid vanilla proofs; a prover that
// keeps a sealed sector's tree R (issue #20 item 3) can use it for real ones.
#include <cstdint>
#include <span>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/sector_tree.hpp"

namespace cuzk::filecoin {

// The proof of the given challenged leaves.
FallbackPostSectorProof build_post_sector_proof(const DenseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges);

// The proof of a registered proof's challenges for the sector at `sector_index` in the whole
// proof (WindowPoSt: partition_index * sectors per partition + its position; WinningPoSt: 0).
FallbackPostSectorProof build_post_sector_proof(const RegisteredPostProof& proof, const DenseTree& tree_r,
                                                const Bytes32& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                uint64_t sector_index);

}  // namespace cuzk::filecoin
