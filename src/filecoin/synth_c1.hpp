#pragma once
// A synthetic but VALID C1 output for any sector size, 32 and 64 GiB included, without sealing a
// sector: a consistent vanilla proof that C2 accepts and whose proof verifies (unlike
// make_synthetic_c1's random content).
//
// Only what the proofs reveal is materialized. The data is a sector whose every node holds one
// random node value d, so tree D is all default and comm_d is fixed before the challenges are
// known; that is necessary, since replica_id (hence every challenge) depends on comm_d. The
// challenges are then derived as C2 derives them, and a column (one label per layer) is kept per
// node that a proof shows: each challenge and each of its 14 parents, one column per node even
// where a node is a challenge and a parent, or a parent of two challenges. Parents that are not
// challenges get random labels; each challenged node's labels are COMPUTED from its parents'
// labels (create_label's preimage: layer l reads the DRG parents' layer-l labels and the expander
// parents' layer-(l-1) labels), layer by layer, nodes in increasing order (DRG parents precede
// their node). Trees C and R are sparse (sector_tree.hpp): every other leaf is a default value.
//
// Only interactive proofs (V1, V1_1) can be made this way at any size: the non-interactive and
// synthetic-PoRep challenges depend on comm_r, i.e. on every leaf of trees C and R, so the set of
// challenged nodes cannot be known before those trees are fixed (that is their soundness). For
// those modes sectors up to 512 MiB are sealed instead (seal.hpp, random data); 32/64 GiB throw.
//
// Work for 32 GiB interactive: 180 challenges, at most 2,700 columns (arity-11 Poseidon), ~25,000
// arity-8 Poseidon hashes for the sparse tree C and ~1,800 for tree R, 180 x 11 labels: about 1 s
// of CPU, plus the same again for validate_c1_output's path checks.
#include <cstdint>
#include <map>
#include <vector>

#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

// Deterministic in rng_seed (ticket, seed, data value and the random labels). The first form uses
// the prover id of actor f01000 and sector 1. Not
// validated here: callers run validate_c1_output (verify_merkle_paths = true costs about as much as
// building it).
// prover_id and sector_id are not in the C1 output but C2's final verification recomputes
// replica_id from them, so the caller chooses them (and must pass the same ones to C2).
SealCommitPhase1Output make_valid_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed = 1);
SealCommitPhase1Output make_valid_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed,
                                               const Bytes32& prover_id, uint64_t sector_id);

// The lower level, for tests: the sparse sector for the given challenges (any nodes in [1, nodes))
// and replica_id. Its columns: node -> labels of layers 1..L.
struct SparseSectorProofs {
  std::vector<VanillaProof> proofs;  // one per challenge, in order
  std::map<uint64_t, std::vector<Bytes32>> columns;
  Bytes32 comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
};
SparseSectorProofs sparse_sector_proofs(const RegisteredSealProof& proof, const Bytes32& replica_id,
                                        const Bytes32& data_value, const std::vector<uint64_t>& challenges,
                                        uint64_t rng_seed);

// comm_d of a sector whose every node is `data_value` (the root of the all-default tree D).
Bytes32 uniform_sector_comm_d(const RegisteredSealProof& proof, const Bytes32& data_value);

}  // namespace cuzk::filecoin
