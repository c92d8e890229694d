#pragma once
// Checking the vanilla proofs of one PoSt request before any proving work, as strictly as the
// reference's FallbackPoSt::verify and more (storage-proofs-post src/fallback/vanilla.rs;
// filecoin-proofs src/api/post_util.rs single_partition_vanilla_proofs):
//   - randomness and prover_id are canonical field elements (api as_safe_commitment);
//   - the number of proofs: WinningPoSt exactly one sector, WindowPoSt 1..sectors per partition,
//     no sector twice;
//   - per proof: one SectorProof, the proof type's challenge count of inclusion proofs, each of
//     tree R's shape (variant, path lengths, arities, index < arity), every 32-byte value a
//     canonical field element, comm_r = Poseidon2(comm_c, comm_r_last), every root = comm_r_last,
//     every path hashing from its leaf to that root, and every path's leaf index equal to the
//     challenge recomputed from the randomness, the sector id and the challenge's index.
// Failures throw PostVanillaError naming the proof's position, its sector and the field; request
// fields (randomness, prover_id, the count) throw std::invalid_argument naming the field.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"

namespace cuzk::filecoin {

struct PostRequestContext {
  const RegisteredPostProof* proof = nullptr;
  Bytes32 randomness{};
  Bytes32 prover_id{};
  uint32_t partition_index = 0;  // WindowPoSt: which partition the proofs are; WinningPoSt: 0
};

void validate_post_vanilla(const PostRequestContext& ctx, std::span<const FallbackPostSectorProof> proofs);

// Parses (parse_post_sector_proof) and validates the request's blobs.
std::vector<FallbackPostSectorProof> parse_post_vanilla(const PostRequestContext& ctx,
                                                        std::span<const std::vector<uint8_t>> blobs);

}  // namespace cuzk::filecoin
