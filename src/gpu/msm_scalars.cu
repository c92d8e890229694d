// Scalar side of the GPU MSM: classification, signed-digit recoding, per-window radix sort.
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include <string>

#include "gpu/bls12_381.cuh"
#include "gpu/cuda_error.hpp"
#include "gpu/msm_internal.hpp"
#include "util/tuning.hpp"

namespace cuzk::gpu::msm_detail {
namespace {

constexpr unsigned kBlock = 256;

// Slot of this lane among the lanes of the (full) warp with pred set, in a list whose length
// counter is *ctr: one atomic per warp instead of one per lane.
__device__ __forceinline__ uint32_t warp_append(uint32_t* ctr, bool pred) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned mask = __ballot_sync(0xffffffffu, pred);
  uint32_t base = 0;
  if (mask != 0) {
    const unsigned leader = __ffs(mask) - 1;
    if (lane == leader) base = atomicAdd(ctr, static_cast<uint32_t>(__popc(mask)));
    base = __shfl_sync(0xffffffffu, base, leader);
  }
  return base + __popc(mask & ((1u << lane) - 1));
}

__global__ void classify_kernel(const uint32_t* scalars, size_t n, bool mont, const uint64_t* density,
                                const uint32_t* density_prefix, uint32_t* nt_scal, uint32_t* nt_idx, uint32_t* one_idx,
                                uint32_t* counts) {
  // No early return: every lane of the warp takes part in the ballots.
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  bool take = i < n;
  uint32_t base = static_cast<uint32_t>(i);
  if (take && density) {
    const uint64_t word = density[i / 64];
    const unsigned bit = i % 64;
    take = (word >> bit) & 1;
    base = density_prefix[i / 64] + static_cast<uint32_t>(__popcll(word & ((uint64_t{1} << bit) - 1)));
  }
  Fr s = Fr::zero();
  if (take) {
    const uint4* p = reinterpret_cast<const uint4*>(scalars + 8 * i);
    const uint4 lo = p[0], hi = p[1];
    s.w[0] = lo.x, s.w[1] = lo.y, s.w[2] = lo.z, s.w[3] = lo.w;
    s.w[4] = hi.x, s.w[5] = hi.y, s.w[6] = hi.z, s.w[7] = hi.w;
    if (mont) {
      s = s.from_mont();
    } else {  // canonical input below 2^256 < 3r: two conditional subtractions reduce it mod r
      Fr::reduce_once(s.w);
      Fr::reduce_once(s.w);
    }
  }
  uint32_t high = 0;
#pragma unroll
  for (int k = 1; k < 8; ++k) high |= s.w[k];
  const bool zero = high == 0 && s.w[0] == 0;
  const bool one = take && high == 0 && s.w[0] == 1;
  const bool other = take && !zero && !one;
  const uint32_t one_slot = warp_append(&counts[1], one);
  const uint32_t slot = warp_append(&counts[0], other);
  if (one) one_idx[one_slot] = base;
  if (other) {
    uint4* q = reinterpret_cast<uint4*>(nt_scal + 8 * size_t{slot});
    q[0] = make_uint4(s.w[0], s.w[1], s.w[2], s.w[3]);
    q[1] = make_uint4(s.w[4], s.w[5], s.w[6], s.w[7]);
    nt_idx[slot] = base;
  }
}

__global__ void recode_kernel(const uint32_t* nt_scal, const uint32_t* nt_idx, size_t m, unsigned c, unsigned first,
                              unsigned count, uint32_t* keys, uint32_t* vals, uint32_t row_stride) {
  const size_t j = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (j >= m) return;
  uint32_t s[8];
  const uint4* p = reinterpret_cast<const uint4*>(nt_scal + 8 * j);
  const uint4 lo = p[0], hi = p[1];
  s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w, s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
  const uint32_t idx = nt_idx[j];
  // The windows below `first` are recoded too (not written): their borrows carry upwards.
  const unsigned end = first + count;
  const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
  uint32_t carry = 0;
  for (unsigned w = 0; w < end; ++w) {
    const unsigned pos = w * c, wi = pos / 32, sh = pos % 32;
    uint64_t v = wi < 8 ? s[wi] : 0;
    if (wi + 1 < 8) v |= uint64_t{s[wi + 1]} << 32;
    const uint32_t d = static_cast<uint32_t>((v >> sh) & mask) + carry;  // <= 2^c
    // Digits in [-(2^(c-1) - 1), 2^(c-1)]: above half, borrow 2^c from the next window.
    const bool neg = d > half;
    carry = neg;
    if (w < first) continue;
    const size_t o = (w - first) * m + j;
    keys[o] = neg ? (1u << c) - d : d;
    vals[o] = (idx + w * row_stride) | (neg && d != (1u << c) ? kNegBit : 0u);
  }
}

}  // namespace

// [tuning] gpu_msm_reduce_threads / gpu_msm_prefetch (util/tuning.hpp; their environment
// variables override the config).
unsigned reduce_threads_per_sm(unsigned dflt) {
  return tuning().gpu_msm_reduce_threads.value_or(dflt);
}

bool prefetch_bases(bool dflt) {
  return tuning().gpu_msm_prefetch.value_or(dflt);
}

bool affine_accumulation(bool dflt) {
  return tuning().gpu_msm_affine.value_or(dflt);
}

int sm_count() {
  int dev = 0, sms = 0;
  CUZK_CUDA_CHECK(cudaGetDevice(&dev));
  CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

void launch_classify(const uint32_t* scalars, size_t n, bool mont, const uint64_t* density,
                     const uint32_t* density_prefix, uint32_t* nt_scal, uint32_t* nt_idx, uint32_t* one_idx,
                     uint32_t* counts, cudaStream_t s) {
  if (n == 0) return;
  const size_t blocks = (n + kBlock - 1) / kBlock;
  classify_kernel<<<blocks, kBlock, 0, s>>>(scalars, n, mont, density, density_prefix, nt_scal, nt_idx, one_idx,
                                            counts);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void launch_recode(const uint32_t* nt_scal, const uint32_t* nt_idx, size_t m, unsigned c, unsigned first,
                   unsigned count, uint32_t* keys, uint32_t* vals, size_t row_stride, cudaStream_t s) {
  if (m == 0 || count == 0) return;
  const size_t blocks = (m + kBlock - 1) / kBlock;
  recode_kernel<<<blocks, kBlock, 0, s>>>(nt_scal, nt_idx, m, c, first, count, keys, vals,
                                          static_cast<uint32_t>(row_stride));
  CUZK_CUDA_CHECK(cudaGetLastError());
}

size_t sort_temp_bytes(size_t m, unsigned c) {
  size_t bytes = 0;
  CUZK_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                      static_cast<uint32_t*>(nullptr), static_cast<const uint32_t*>(nullptr),
                                      static_cast<uint32_t*>(nullptr), static_cast<int>(m), 0, static_cast<int>(c)));
  return bytes;
}

void sort_windows(void* temp, size_t temp_bytes, const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in,
                  uint32_t* vals_out, size_t m, unsigned c, unsigned segments, cudaStream_t s) {
  for (unsigned w = 0; w < segments; ++w) {
    const size_t o = w * m;
    size_t bytes = temp_bytes;
    // Keys are at most 2^(c-1): c bits.
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in + o, keys_out + o, vals_in + o, vals_out + o,
                                                    static_cast<int>(m), 0, static_cast<int>(c), s));
  }
}

}  // namespace cuzk::gpu::msm_detail
