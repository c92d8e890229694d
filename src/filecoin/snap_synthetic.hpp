#pragma once
// A synthetic but VALID SnapDeals vanilla set for any sector size, 32 and 64 GiB included (issue
// #21 item 3): `cuzk synth-snap`, for benchmarks at sizes no one can update here.
//
// Unlike PoSt's (post_synthetic.hpp), the trees cannot be sparse with random siblings: the
// challenges depend on comm_r_new (tree R new's root), phi on comm_r_old and comm_d_new (the other
// two roots), and every challenged leaf must satisfy leaf_r_new = leaf_r_old + leaf_d_new·rho(phi),
// so all three roots must be fixed before any challenged leaf is known. So the sector is real but
// periodic (periodic_tree.hpp): the sector key and the data repeat random patterns of up to 512
// nodes, and the new replica is their encoding, which repeats per block of nodes sharing a rho
// (2^h blocks); every tree is hashed whole from its leaves. Paths show distinct random-looking
// siblings in their lowest levels (3 of tree R's, 9 of tree D's) and in tree R new up to the
// block level; above that, trees R old and D repeat one node per level. Work at 32 GiB: about
// 80 K arity-8 Poseidon hashes for tree R new (its 1024 blocks), then the proofs.
#include <cstdint>
#include <vector>

#include "filecoin/snap_validate.hpp"

namespace cuzk::filecoin {

struct SnapSyntheticSet {
  SnapRequestContext context;              // the commitments and shape the proofs are valid for
  std::vector<SnapPartitionProof> proofs;  // one per partition, in order
};

// Deterministic in (shape, rng_seed). Not validated here: callers run
// validate_snap_vanilla(set.context, set.proofs) (synth-snap does, before writing).
SnapSyntheticSet synthetic_snap_vanilla(const SnapCircuitShape& shape, uint64_t rng_seed);

}  // namespace cuzk::filecoin
