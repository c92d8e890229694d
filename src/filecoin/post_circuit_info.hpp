#pragma once
// The size of a FallbackPoSt partition circuit, counted without storing it (CountingCS): the 32/64
// GiB WindowPoSt circuits have 125-130 million constraints. What `cuzk circuit info --circuit
// window-post | winning-post | post-test` prints.
#include <cstdint>

#include "filecoin/circuit_size.hpp"
#include "filecoin/post_circuit.hpp"

namespace cuzk::filecoin {

struct PostCircuitInfo : CircuitSize {
  PostCircuitShape shape;
};

PostCircuitInfo post_circuit_info(const PostCircuitShape& shape, const PostProgress& progress = {});

}  // namespace cuzk::filecoin
