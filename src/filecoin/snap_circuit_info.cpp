#include "filecoin/snap_circuit_info.hpp"

#include <bit>
#include <chrono>

#include "r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

SnapCircuitInfo snap_circuit_info(const SnapCircuitShape& shape) {
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::CountingCS cs;
  snap_circuit(cs, shape, SnapPartitionWitness::blank(shape));
  const uint64_t constraints = cs.num_constraints();
  cs.finalize();  // the Groth16 input constraints: one row and one A entry per input
  SnapCircuitInfo info{circuit_size(constraints, cs.counts(), t0), shape};
  return info;
}

}  // namespace cuzk::filecoin
