#pragma once
// Synthetic PCEs of any size, for benchmarks at scales our own circuits do not reach yet (a 32 GiB
// PoRep partition: 130,278,869 rows, nnz A/B/C = 309,405,051 / 130,327,340 / 282,656,500, from
// shared/reference/cuzk-seed-system.md). The matrices have Filecoin's shape, not its content:
// row lengths spread evenly (differing by at most one), columns mostly near the diagonal with a
// share of far jumps and of the ONE column, and coefficients drawn from a small dictionary of ±1
// and powers of two (+1 most often). Generation is parallel and deterministic in the seed.
#include <cstdint>
#include <string>

#include "pce/pce.hpp"

namespace cuzk::pce {

struct SyntheticShape {
  uint64_t num_inputs = 24;
  uint64_t num_aux = 0;
  uint64_t num_constraints = 0;
  std::array<uint64_t, 3> nnz{};
  uint64_t seed = 1;

  // The 32 GiB PoRep partition's counts, scaled (scale = 1 is full size).
  static SyntheticShape porep_32g(double scale);
};

Pce synthetic_pce(const SyntheticShape& shape, const std::string& circuit_id = "synthetic");

}  // namespace cuzk::pce
