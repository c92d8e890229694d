#pragma once
// What the resident device prover (gpu::GpuProver) holds on its device, from the key's sizes and
// the circuit's shape alone: plain C++ without CUDA, so that the placement and `cuzk doctor` can
// size it on any host, exactly as the prover sizes itself before it uploads anything.
//
// Device bytes: the bases (h, l, a, b_g1 at 96 B a point; b_g2 at 192 B when its MSM runs on the
// device; num_windows(c) copies of each with window tables of width c), the PCE's sections, the
// vectors (z per witness slot, a, b, c at the domain size m), and the MSM engines' scratch for the
// largest MSM (msm_sizing.hpp) plus H's twiddles and CUDA/CUB overheads.
#include <cstdint>
#include <string>

#include "groth16/key_source.hpp"

namespace cuzk::gpu {

struct ResidentOptions {
  bool b_g2_on_gpu = true;
  unsigned msm_table_bits = 0;  // 0: no window tables
  unsigned witness_slots = 1;   // 1 or 2 witnesses in flight (z each)
};

struct ResidentShape {
  uint64_t num_inputs = 0;  // ONE included
  uint64_t num_aux = 0;
  uint64_t num_constraints = 0;  // only the domain size it gives matters
  uint64_t pce_bytes = 0;        // the PCE's sections on the device (0: none, or not known yet)
};

// What the prover will hold on the device, by part (bytes).
struct ResidentMemory {
  uint64_t bases = 0;    // h, l, a, b_g1 (96 B a point) and b_g2 when on the GPU (192 B), tables
  uint64_t pce = 0;      // matrices and dictionary
  uint64_t vectors = 0;  // z, a, b, c
  uint64_t scratch = 0;  // MSM engines (estimate) and NTT twiddles
  uint64_t total() const { return bases + pce + vectors + scratch; }
  std::string describe() const;  // "12.3 GiB (bases ..., PCE ..., z/a/b/c ..., MSM and NTT scratch ...)"
};

ResidentMemory resident_memory(const groth16::KeySizes& key, const ResidentShape& shape, const ResidentOptions& opt);

}  // namespace cuzk::gpu
