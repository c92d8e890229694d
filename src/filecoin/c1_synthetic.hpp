#pragma once
// A synthetic C1 output: random content with every property validate_c1_output checks, for tests,
// benchmarks and driving the daemon without a real sealed sector. Challenges are derived as C2
// derives them (interactive, synthetic or non-interactive), tree-C leaves are the Poseidon hashes of their
// columns, tree-R leaves the last label plus the data, one comm_c and one comm_r_last with
// comm_r = Poseidon(comm_c, comm_r_last), paths whose digits spell their leaf index. Sibling
// hashes, labels and parent labels are random: it is not a valid vanilla proof, so a proof made
// from it does not verify.
#include <cstdint>

#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

SealCommitPhase1Output make_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed = 1);

}  // namespace cuzk::filecoin
