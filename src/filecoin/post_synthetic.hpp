#pragma once
// Synthetic but VALID PoSt vanilla proofs for any sector size, 32 and 64 GiB included (issue #20
// item 3): WindowPoSt / WinningPoSt benchmarks at sizes no one can seal here.
//
// A vanilla proof shows of its sector only comm_c, comm_r_last and the tree-R paths of the
// challenged leaves, so only those are made. Per sector: comm_c is random; tree R is a filled
// SparseTree (sector_tree.hpp): the challenged leaves and every sibling their paths show are
// random field elements (a sibling above the leaves stands for the root of a subtree nobody
// sees), and the path nodes are hashed from them up to comm_r_last, so every inclusion path
// verifies; comm_r = Poseidon2(comm_c, comm_r_last). The challenges are the ones the validator
// recomputes (post_challenges.hpp: randomness, sector id, V1 or V1_1 indexing); they do not depend
// on the sector's content, so they are known before its tree is built.
//
// Random siblings rather than one default value per level (synth_c1's trees): the witness looks
// like a real sector's (distinct values, as the MSMs of a real proof see them) and no two sectors
// share a path. Work: challenges x levels Poseidon hashes per sector (32 GiB Window: 10 x 10 of
// arity 8), in parallel over the sectors; validating the result costs about the same.
#include <cstdint>
#include <vector>

#include "filecoin/post_vanilla_gen.hpp"

namespace cuzk::filecoin {

// The proof of one sector's challenges at `sector_index` in the whole proof (as
// build_post_sector_proof); deterministic in (rng_seed, sector_id).
FallbackPostSectorProof synthetic_post_sector_proof(const RegisteredPostProof& proof, uint64_t sector_id,
                                                    const Bytes32& randomness, uint64_t sector_index,
                                                    uint64_t rng_seed);

// The request's vanilla proofs (WinningPoSt: the drawn sector's only; post_request_sectors), from
// req.rng_seed. Not validated here: callers run validate_post_vanilla(post_request_context(req), ...).
// Throws std::invalid_argument naming the field for a request the proof type does not allow.
std::vector<FallbackPostSectorProof> synthetic_post_vanilla(const PostVanillaRequest& req);

// A canonical randomness drawn from a seed (the default of `cuzk synth-post`).
Bytes32 synthetic_post_randomness(uint64_t rng_seed);

}  // namespace cuzk::filecoin
