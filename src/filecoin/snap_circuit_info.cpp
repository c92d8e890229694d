#include "filecoin/snap_circuit_info.hpp"

#include <bit>
#include <chrono>

#include "r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

SnapCircuitInfo snap_circuit_info(const SnapCircuitShape& shape) {
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::CountingCS cs;
  snap_circuit(cs, shape, SnapPartitionWitness::blank(shape));
  SnapCircuitInfo info;
  info.shape = shape;
  info.constraints = cs.num_constraints();
  cs.finalize();  // the Groth16 input constraints: one row and one A entry per input
  const r1cs::CircuitCounts& c = cs.counts();
  info.inputs = c.inputs;
  info.aux = c.aux;
  info.pce_rows = c.constraints;
  info.nnz_a = c.nnz_a;
  info.nnz_b = c.nnz_b;
  info.nnz_c = c.nnz_c;
  info.domain = std::bit_ceil(info.pce_rows);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

}  // namespace cuzk::filecoin
