#pragma once
// MatVec: a = A·z, b = B·z, c = C·z over a Pce, the step that replaces full synthesis when proving.
//
// z is the assignment as the circuit allocated it: inputs (ONE first) then aux, passed as the two
// vectors a ProvingCS/WitnessCS keeps (no concatenated copy of a multi-GB vector). The three
// products are computed in one parallel region, split into chunks of rows balanced by non-zeros.
//
// The Auto kernel is specialised per coefficient class: ±1 (dictionary entries 0 and 1, or a Full
// value equal to ±1) cost one addition or subtraction; any other coefficient is skipped when the
// witness value is 0, added as is when the value is 1 (Filecoin witnesses are mostly bits), and
// multiplied only otherwise. The Generic kernel multiplies every coefficient by its value: the
// baseline the specialisation is measured against. Field arithmetic is exact, so both give
// results bit-for-bit equal to each other and to full synthesis (r1cs::ProvingCS).
#include <span>
#include <vector>

#include "pce/pce.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::pce {

enum class MatVecKernel : uint8_t {
  Auto,     // specialised per coefficient class and witness value
  Generic,  // coefficient * value for every non-zero (benchmark baseline)
};
const char* to_string(MatVecKernel k);

struct MatVecOptions {
  MatVecKernel kernel = MatVecKernel::Auto;
  ThreadPool* pool = nullptr;  // null: ThreadPool::global()
  // Work per task, in non-zeros + rows; 0 picks it from the pool size. Tests set it small so that
  // tiny circuits still cross chunk boundaries.
  uint64_t chunk_work = 0;
};

// Writes a = A·z, b = B·z, c = C·z (z = inputs ‖ aux). inputs.size() must be num_inputs() (ONE at
// 0), aux.size() num_aux(), and a, b, c each num_constraints() long; otherwise throws
// std::invalid_argument naming the mismatch. Allocates nothing proportional to the circuit.
// The Pce must be structurally sound (built by build_pce, or a file that passed
// validate_structure()): column and dictionary indices are not re-checked here.
void matvec(const Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::span<Fr> a, std::span<Fr> b,
            std::span<Fr> c, const MatVecOptions& options = {});

struct MatVecResult {
  std::vector<Fr> a, b, c;
};
// The same, allocating the outputs.
MatVecResult matvec(const Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                    const MatVecOptions& options = {});

}  // namespace cuzk::pce
