#pragma once
// The SnapDeals partition's assignment computed natively (issue #21 item 5), as post_witness.hpp
// does for PoSt: every input and aux value the circuit (snap_circuit.hpp) allocates, in its order,
// without synthesizing it. The layout, in circuit order:
//
//   head: the selector, its bits, the packed partition, comm_r_old / comm_d_new / comm_r_new, phi's
//     Poseidon trace, comm_c, the tree-R roots, the apex leaves, the partition path, the two
//     Poseidon2(comm_c, root) traces;
//   apex: the apex tree's SHA-256 nodes row by row, then the partition path's levels
//     (gadgets/sha256_hash_witness.hpp); with the Poseidon tree D the constant-zero partition;
//   gen_challenge_bits: per digest its index, its Poseidon trace and 255 bits;
//   per challenge (all of one length, so computed in parallel): c_high, rho, the leaves and their
//     encoding, tree R old's and new's siblings and levels (gadgets/por_witness.hpp), the apex
//     leaf's select, tree D's siblings and SHA-256 levels.
//
// It computes exactly what synthesis does, also for a witness that does not satisfy the circuit
// (whose proof then fails to verify, as with synthesis); tests compare it with WitnessCS value for
// value. At 32 GiB SHA-256 is ~99 % of the 81 M values.
#include <cstddef>
#include <vector>

#include "filecoin/snap_circuit.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// A partition's values: inputs (ONE first), then aux, as the PCE's columns take them.
struct SnapAssignment {
  std::vector<Fr> inputs, aux;
};

// How many aux values a partition allocates, and how many of them each challenge does.
size_t snap_aux_len(const SnapCircuitShape& shape);
size_t snap_challenge_aux_len(const SnapCircuitShape& shape);

// The assignment of a complete witness (snap_partition_witness of a validated proof), the apex
// rows' nodes and the challenges spread over `pool`. Throws std::invalid_argument on a witness of
// the wrong shape (as the circuit does), a missing value (naming it), and, as the reference's
// sanity check does, a known leaf_r_new that is not leaf_r_old + leaf_d_new·rho.
SnapAssignment snap_native_assignment(const SnapCircuitShape& shape, const SnapPartitionWitness& w, ThreadPool& pool);

}  // namespace cuzk::filecoin
