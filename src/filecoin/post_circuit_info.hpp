#pragma once
// The size of a FallbackPoSt partition circuit, counted without storing it (CountingCS): the 32/64
// GiB WindowPoSt circuits have 125-130 million constraints. What `cuzk circuit info --circuit
// window-post | winning-post | post-test` prints.
#include <cstdint>

#include "filecoin/post_circuit.hpp"

namespace cuzk::filecoin {

struct PostCircuitInfo {
  PostCircuitShape shape;
  uint64_t constraints = 0;  // as the reference's tests count: without the input constraints
  uint64_t inputs = 0;       // ONE included
  uint64_t aux = 0;
  uint64_t pce_rows = 0;  // constraints + inputs
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t domain = 0;  // the smallest power of two >= pce_rows
  double seconds = 0;
};

PostCircuitInfo post_circuit_info(const PostCircuitShape& shape, const PostProgress& progress = {});

}  // namespace cuzk::filecoin
