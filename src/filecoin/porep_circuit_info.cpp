#include "filecoin/porep_circuit_info.hpp"

#include <bit>
#include <chrono>

namespace cuzk::filecoin {

PorepCircuitInfo porep_circuit_info(const PorepCircuitShape& shape, const PorepProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::CountingCS cs;
  porep_circuit(cs, shape, PorepCircuitWitness::blank(shape), progress);
  const uint64_t constraints = cs.num_constraints();
  cs.finalize();
  PorepCircuitInfo info{circuit_size(constraints, cs.counts(), t0), shape};
  return info;
}

}  // namespace cuzk::filecoin
