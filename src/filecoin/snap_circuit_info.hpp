#pragma once
// The size of a SnapDeals partition circuit, counted without storing it (CountingCS: the 32 GiB
// partition has 81 million constraints). What `cuzk circuit info --circuit snap` prints.
#include <cstdint>

#include "filecoin/snap_circuit.hpp"

namespace cuzk::filecoin {

struct SnapCircuitInfo {
  SnapCircuitShape shape;
  uint64_t constraints = 0;  // as the reference's tests count: without the input constraints
  uint64_t inputs = 0;       // ONE included
  uint64_t aux = 0;
  uint64_t pce_rows = 0;  // constraints + inputs
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t domain = 0;  // the smallest power of two >= pce_rows
  double seconds = 0;
};

SnapCircuitInfo snap_circuit_info(const SnapCircuitShape& shape);

// The constraints of two gadgets alone, as storage-proofs-update src/gadgets.rs's tests measure
// them: gen_challenge_bits for the shape's challenges (568 per digest), and apex_por over
// apex_leaves leaves with a partition path of log2(partitions) levels.
uint64_t snap_gen_challenge_bits_constraints(const SnapCircuitShape& shape);
uint64_t snap_apex_por_constraints(uint32_t apex_leaves, uint32_t partitions);

}  // namespace cuzk::filecoin
