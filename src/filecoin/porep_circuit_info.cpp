#include "filecoin/porep_circuit_info.hpp"

#include <bit>
#include <chrono>

namespace cuzk::filecoin {

PorepCircuitInfo porep_circuit_info(const PorepCircuitShape& shape, const PorepProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::CountingCS cs;
  porep_circuit(cs, shape, PorepCircuitWitness::blank(shape), progress);
  PorepCircuitInfo info;
  info.shape = shape;
  info.constraints = cs.num_constraints();
  cs.finalize();
  const r1cs::CircuitCounts& c = cs.counts();
  info.inputs = c.inputs;
  info.aux = c.aux;
  info.pce_rows = c.constraints;
  info.nnz_a = c.nnz_a;
  info.nnz_b = c.nnz_b;
  info.nnz_c = c.nnz_c;
  info.domain = std::bit_ceil(c.constraints);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

}  // namespace cuzk::filecoin
