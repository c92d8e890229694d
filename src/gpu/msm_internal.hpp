#pragma once
// Curve-independent pieces of the GPU MSM (msm_scalars.cu), shared by the G1 and G2 drivers:
// scalar classification (0 / 1 / other, density), signed-digit recoding and the per-window sort;
// the window-size choice and the other sizing maths are in msm_sizing.hpp (no CUDA).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm_sizing.hpp"

namespace cuzk::gpu::msm_detail {

// Bit 31 of a sorted value marks a negative digit; the low 31 bits are the base index.
inline constexpr uint32_t kNegBit = 0x80000000u;

// Tuning knobs from util/tuning.hpp ([tuning] gpu_msm_prefetch / gpu_msm_reduce_threads, or their
// environment variables): whether the accumulation prefetches the next base and the bucket
// reduction's threads per SM; otherwise the given defaults.
bool prefetch_bases(bool dflt);
// [tuning] gpu_msm_affine: batch-affine bucket accumulation (msm_affine.cuh) instead of XYZZ.
bool affine_accumulation(bool dflt);
unsigned reduce_threads_per_sm(unsigned dflt);
int sm_count();

// For i < n: drops scalars that are 0 or whose density bit is clear, lists the base index of
// scalars equal to 1 in one_idx, and the canonical value (8 words) and base index of the others in
// nt_scal / nt_idx. counts[0] / counts[1] receive the two list lengths (must be zeroed before).
// mont: the input is in Montgomery form; otherwise canonical, reduced mod r.
// density / density_prefix (popcount of the words before): nullptr = every scalar has its base.
void launch_classify(const uint32_t* scalars, size_t n, bool mont, const uint64_t* density,
                     const uint32_t* density_prefix, uint32_t* nt_scal, uint32_t* nt_idx, uint32_t* one_idx,
                     uint32_t* counts, cudaStream_t s);

// Signed c-bit digits of the m listed scalars, windows first .. first + count - 1: for window w,
// keys[(w - first)*m + j] = |digit| and vals[(w - first)*m + j] = (base index + w * row_stride) |
// kNegBit if the digit is negative. row_stride 0: every window uses the bases themselves;
// otherwise row w of a precomputed table holds [2^(c*w)] P at offset w * row_stride (the caller
// keeps indices below 2^31).
void launch_recode(const uint32_t* nt_scal, const uint32_t* nt_idx, size_t m, unsigned c, unsigned first,
                   unsigned count, uint32_t* keys, uint32_t* vals, size_t row_stride, cudaStream_t s);

// Temporary storage for sort_windows on segments of m pairs.
size_t sort_temp_bytes(size_t m, unsigned c);
// Sorts `segments` consecutive segments of m (key, value) pairs each by key (c bits), from *_in
// into *_out (a segment per window; one segment of all windows' pairs with a precomputed table).
void sort_windows(void* temp, size_t temp_bytes, const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in,
                  uint32_t* vals_out, size_t m, unsigned c, unsigned segments, cudaStream_t s);

}  // namespace cuzk::gpu::msm_detail
