#pragma once
// The FallbackPoSt challenges (storage-proofs-post src/fallback/vanilla.rs, utils.rs):
//   leaf = u64 LE(SHA-256(randomness || sector_id u64 LE || index u64 LE)[0..8]) mod nodes,
//   index = sector_index * challenges_per_sector + n (ApiVersion 1.0 / 1.1: WinningPoSt and the
//   Window V1 proofs) or n (1.2: the Window V1_1 proofs, so a sector's challenges do not depend on
//   its position), where sector_index is the sector's position in the whole proof (WindowPoSt:
//   partition_index * sectors_per_partition + its position in the partition).
// And WinningPoSt's choice of sector: u64 LE(SHA-256(prover_id || randomness || n u64 LE)[0..8])
// mod the number of sectors (generate_sector_challenge).
#include <cstdint>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

uint64_t post_challenge_index(const ApiVersion& api, uint64_t sector_index, uint64_t challenges_per_sector, uint64_t n);
uint64_t post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t challenge_index, uint64_t nodes);
// The `count` leaves of one sector.
std::vector<uint64_t> post_leaf_challenges(const ApiVersion& api, const Bytes32& randomness, uint64_t sector_id,
                                           uint64_t sector_index, uint32_t count, uint64_t nodes);
uint64_t winning_post_sector_challenge(const Bytes32& randomness, const Bytes32& prover_id, uint64_t n,
                                       uint64_t sector_set_len);

}  // namespace cuzk::filecoin
