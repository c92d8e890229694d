#pragma once
// The size of a PoRep partition circuit, counted without storing it (CountingCS), so that the
// 32/64 GiB circuits (130 million constraints) are measured in constant memory: what
// `cuzk circuit info --circuit porep` prints.
#include <cstdint>

#include "filecoin/porep_circuit.hpp"
#include "r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

struct PorepCircuitInfo {
  PorepCircuitShape shape;
  // As the reference's tests count (TestConstraintSystem): without the input constraints.
  uint64_t constraints = 0;
  uint64_t inputs = 0;  // ONE included
  uint64_t aux = 0;
  // The PCE's: constraints + inputs rows, and the non-zeros of A, B, C including the input
  // constraints (one A entry each).
  uint64_t pce_rows = 0;
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t domain = 0;  // the QAP domain: the smallest power of two >= pce_rows
  double seconds = 0;   // time spent counting
};

PorepCircuitInfo porep_circuit_info(const PorepCircuitShape& shape, const PorepProgress& progress = {});

}  // namespace cuzk::filecoin
