#pragma once
// The FallbackPoSt partition's assignment computed natively (issue #20): every input and aux
// value the circuit (post_circuit.hpp) allocates, in its order, without synthesizing it. Per
// circuit sector: comm_r_last, comm_c, comm_r, the Poseidon2 of (comm_c, comm_r_last)
// (poseidon_witness.hpp), then per challenge the leaf and each path level (por_witness.hpp: index
// bits, siblings, insert picks, Poseidon); inputs: comm_r, then each challenge's packed leaf index.
// Every sector's values have the same length, so sectors are computed in parallel, each into its
// own slice. Tests check the result equals WitnessCS synthesis value for value.
#include <cstddef>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

struct PostAssignment {
  std::vector<Fr> inputs;  // ONE first
  std::vector<Fr> aux;
};

// How many aux values one circuit sector allocates (32 GiB Window: 53,331).
size_t post_sector_aux_len(const PostCircuitShape& shape);

// The assignment of a complete witness (post_circuit_witness). Unlike synthesis it checks the
// values as it goes: a missing value, a path that does not hash to comm_r_last or a comm_r that is
// not Poseidon2(comm_c, comm_r_last) throws std::invalid_argument naming the sector and challenge
// (validated vanilla proofs never do).
PostAssignment post_native_assignment(const PostCircuitShape& shape, const PostCircuitWitness& w, ThreadPool& pool);

}  // namespace cuzk::filecoin
