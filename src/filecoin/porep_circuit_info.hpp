#pragma once
// The size of a PoRep partition circuit, counted without storing it (CountingCS), so that the
// 32/64 GiB circuits (130 million constraints) are measured in constant memory: what
// `cuzk circuit info --circuit porep` prints.
#include <cstdint>

#include "filecoin/circuit_size.hpp"
#include "filecoin/porep_circuit.hpp"
#include "r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

struct PorepCircuitInfo : CircuitSize {
  PorepCircuitShape shape;
};

PorepCircuitInfo porep_circuit_info(const PorepCircuitShape& shape, const PorepProgress& progress = {});

}  // namespace cuzk::filecoin
