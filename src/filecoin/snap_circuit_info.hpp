#pragma once
// The size of a SnapDeals partition circuit, counted without storing it (CountingCS: the 32 GiB
// partition has 81 million constraints). What `cuzk circuit info --circuit snap` prints.
#include <cstdint>

#include "filecoin/circuit_size.hpp"
#include "filecoin/snap_circuit.hpp"

namespace cuzk::filecoin {

struct SnapCircuitInfo : CircuitSize {
  SnapCircuitShape shape;
};

SnapCircuitInfo snap_circuit_info(const SnapCircuitShape& shape);

// The constraints of two gadgets alone, as storage-proofs-update src/gadgets.rs's tests measure
// them: gen_challenge_bits for the shape's challenges (568 per digest), and apex_por over
// apex_leaves leaves with a partition path of log2(partitions) levels.
uint64_t snap_gen_challenge_bits_constraints(const SnapCircuitShape& shape);
uint64_t snap_apex_por_constraints(uint32_t apex_leaves, uint32_t partitions);

}  // namespace cuzk::filecoin
