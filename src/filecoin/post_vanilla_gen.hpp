#pragma once
// Building a sector's PoSt vanilla proof from its tree R, as filecoin-proofs post_util.rs
// generate_single_vanilla_proof (and storage-proofs-post vanilla.rs vanilla_proof) does: one
// inclusion proof per challenged leaf, comm_c and comm_r_last = the tree's root, and
// comm_r = Poseidon2(comm_c, comm_r_last). Tests use it for valid vanilla proofs; a prover that
// keeps a sealed sector's tree R (issue #20 item 3) can use it for real ones.
//
// And what both generators of whole requests share (post_sealed.hpp from sectors sealed here,
// post_synthetic.hpp from sparse trees): the request, and which sectors its proofs are of.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_validate.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/sector_tree.hpp"

namespace cuzk::filecoin {

// The proof of the given challenged leaves (of a sparse tree R: leaves on its known paths).
FallbackPostSectorProof build_post_sector_proof(const DenseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges);
FallbackPostSectorProof build_post_sector_proof(const SparseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges);

// The proof of a registered proof's challenges for the sector at `sector_index` in the whole
// proof (WindowPoSt: partition_index * sectors per partition + its position; WinningPoSt: 0).
FallbackPostSectorProof build_post_sector_proof(const RegisteredPostProof& proof, const DenseTree& tree_r,
                                                const Bytes32& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                uint64_t sector_index);

// The vanilla proofs to make for one PoSt request.
struct PostVanillaRequest {
  const RegisteredPostProof* proof = nullptr;
  Bytes32 prover_id{};
  Bytes32 randomness{};
  uint32_t partition_index = 0;  // WindowPoSt
  // WindowPoSt: the partition's sectors, in order (1 .. sectors per partition). WinningPoSt: the
  // sector set the winning sector is drawn from (winning_post_sector_challenge).
  std::vector<uint64_t> sector_ids;
  uint64_t rng_seed = 1;  // the generator's content (sector data, random nodes)
};

// A sector whose proof the request carries and its position in the whole proof (the
// sector_index of post_leaf_challenges).
struct PostSectorSlot {
  uint64_t sector_id = 0;
  uint64_t sector_index = 0;
};

// WindowPoSt: every listed sector, at partition_index * sectors per partition + its position.
// WinningPoSt: the one sector drawn from the set with the prover id, challenged as sector 0
// (filecoin-proofs winning_post.rs). Throws std::invalid_argument naming the field for a request
// the proof type does not allow (no sector, a sector twice, more than a partition, a Winning
// partition index).
std::vector<PostSectorSlot> post_request_sectors(const PostVanillaRequest& req);

// What validate_post_vanilla checks the request's proofs against.
PostRequestContext post_request_context(const PostVanillaRequest& req);

}  // namespace cuzk::filecoin
