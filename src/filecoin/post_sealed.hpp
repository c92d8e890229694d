#pragma once
// PoSt vanilla proofs of sectors sealed here (issue #20 item 3), so WindowPoSt and WinningPoSt can
// be driven end to end with no outside data: each sector is sealed natively (seal.hpp, tree R
// kept), challenged as the proof type says, and its FallbackPoStSectorProof built from tree R
// (post_vanilla_gen.hpp). Sizes as `cuzk seal`: 2 KiB, 8 MiB, 512 MiB (the sector in memory); a
// sector's data is random_sector_data(nodes, rng_seed + its id).
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_vanilla_gen.hpp"

namespace cuzk::filecoin {

// The request's vanilla proofs (WinningPoSt: the drawn sector's only), validated
// (validate_post_vanilla) before they are returned. Throws std::invalid_argument naming the field
// for a request the proof type does not allow.
std::vector<FallbackPostSectorProof> sealed_post_vanilla(const PostVanillaRequest& req);

}  // namespace cuzk::filecoin
