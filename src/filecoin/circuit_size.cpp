#include "filecoin/circuit_size.hpp"

#include <bit>

namespace cuzk::filecoin {

CircuitSize circuit_size(uint64_t constraints, const r1cs::CircuitCounts& c, std::chrono::steady_clock::time_point t0) {
  CircuitSize s;
  s.constraints = constraints;
  s.inputs = c.inputs;
  s.aux = c.aux;
  s.pce_rows = c.constraints;
  s.nnz_a = c.nnz_a;
  s.nnz_b = c.nnz_b;
  s.nnz_c = c.nnz_c;
  s.domain = std::bit_ceil(c.constraints);
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace cuzk::filecoin
