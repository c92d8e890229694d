#pragma once
// PoSt vanilla proofs of sectors sealed here (issue #20 item 3), so WindowPoSt and WinningPoSt can
// be driven end to end with no outside data: each sector is sealed natively (seal.hpp, tree R
// kept), challenged as the proof type says, and its FallbackPoStSectorProof built from tree R
// (post_vanilla_gen.hpp). Sizes as `cuzk seal`: 2 KiB, 8 MiB, 512 MiB (the sector in memory).
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"

namespace cuzk::filecoin {

struct SealedPostRequest {
  const RegisteredPostProof* proof = nullptr;
  Bytes32 prover_id{};
  Bytes32 randomness{};
  uint32_t partition_index = 0;  // WindowPoSt
  // WindowPoSt: the partition's sectors, in order (1 .. sectors per partition). WinningPoSt: the
  // sector set the winning sector is drawn from (winning_post_sector_challenge).
  std::vector<uint64_t> sector_ids;
  uint64_t rng_seed = 1;  // a sector's data: random_sector_data(nodes, rng_seed + its id)
};

// The request's vanilla proofs (WinningPoSt: the drawn sector's only), validated
// (validate_post_vanilla) before they are returned. Throws std::invalid_argument naming the field
// for a request the proof type does not allow.
std::vector<FallbackPostSectorProof> sealed_post_vanilla(const SealedPostRequest& req);

}  // namespace cuzk::filecoin
