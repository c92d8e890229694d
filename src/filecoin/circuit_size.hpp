#pragma once
// The sizes `cuzk circuit info` prints for every Filecoin circuit, counted without storing it
// (CountingCS), and how they follow from a finalized counting system.
#include <chrono>
#include <cstdint>

#include "r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

struct CircuitSize {
  uint64_t constraints = 0;  // as the reference's tests count (TestConstraintSystem): no input constraints
  uint64_t inputs = 0;       // ONE included
  uint64_t aux = 0;
  // The PCE's: constraints + inputs rows, and the non-zeros of A, B, C with the input constraints
  // (one A entry each).
  uint64_t pce_rows = 0;
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t domain = 0;  // the QAP domain: the smallest power of two >= pce_rows
  double seconds = 0;   // time spent counting
};

// From the counts of a finalized system (the input constraints included: c.constraints rows);
// `constraints` is the count before finalize, `t0` when counting started.
CircuitSize circuit_size(uint64_t constraints, const r1cs::CircuitCounts& c, std::chrono::steady_clock::time_point t0);

}  // namespace cuzk::filecoin
