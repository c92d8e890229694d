#include "groth16/gpu/resident_plan.hpp"

#include <algorithm>
#include <initializer_list>

#include "gpu/msm_sizing.hpp"
#include "groth16/gpu/streamed_plan.hpp"
#include "poly/domain.hpp"

namespace cuzk::gpu {

namespace {

constexpr uint64_t kG1Base = 96, kG2Base = 192;  // device affine points (x, y)
constexpr uint64_t kFrBytes = 32;

// Window tables of width c: num_windows(c) rows of every base (row 0 repeats the bases).
uint64_t table_bytes(std::initializer_list<uint64_t> g1_sizes, uint64_t g2_size, const ResidentOptions& opt) {
  if (opt.msm_table_bits == 0) return 0;
  const uint64_t rows = msm_detail::num_windows(opt.msm_table_bits);
  uint64_t b = opt.b_g2_on_gpu ? rows * g2_size * kG2Base : 0;
  for (uint64_t n : g1_sizes) b += rows * n * kG1Base;
  return b;
}

}  // namespace

std::string ResidentMemory::describe() const {
  return format_gib(total()) + " (bases " + format_gib(bases) + ", PCE " + format_gib(pce) + ", z/a/b/c " +
         format_gib(vectors) + ", MSM and NTT scratch " + format_gib(scratch) + ")";
}

ResidentMemory resident_memory(const groth16::KeySizes& key, const ResidentShape& shape, const ResidentOptions& opt) {
  ResidentMemory mem;
  mem.bases = (key.h + key.l + key.a + key.b_g1) * kG1Base + (opt.b_g2_on_gpu ? key.b_g2 * kG2Base : 0);
  mem.bases += table_bytes({key.h, key.l, key.a, key.b_g1}, key.b_g2, opt);
  mem.pce = shape.pce_bytes;
  const uint64_t m = poly::Domain::size_for(shape.num_constraints);
  const uint64_t cols = shape.num_inputs + shape.num_aux;
  mem.vectors = (std::clamp(opt.witness_slots, 1u, 2u) * cols + 3 * m) * kFrBytes;
  const int sms = 144;  // upper bound for the slice/partial buffers (H200: 132)
  const uint64_t n1 = std::max<uint64_t>({m, shape.num_aux, shape.num_inputs});
  const unsigned tb = opt.msm_table_bits;
  // The G2 MSM takes its scalars from the resident z through the B density: its buffers grow to
  // the bases it sums (b_g2: 33 M at 32 GiB), not to the 130 M columns, plus the density bitmap
  // and prefix of every column.
  mem.scratch = msm_detail::msm_scratch_bytes(n1, 192, sms, tb) +
                (opt.b_g2_on_gpu ? msm_detail::msm_scratch_bytes(key.b_g2, 384, sms, tb) + cols / 8 * 2 : 0) +
                m * kFrBytes + (uint64_t{64} << 20);  // twiddles, CUDA and CUB overheads
  return mem;
}

}  // namespace cuzk::gpu
