#pragma once
// Inversion of one field element per lane of a warp with a single field inversion (Montgomery's
// trick over the warp: prefix and suffix products by shuffles, 1/(product of all), then
// 1/z_i = prefix_(i-1) * suffix_(i+1) / product). ~12 multiplications and 2 x 5 shuffle rounds a
// lane instead of a ~570-multiplication Fermat inversion each. Every lane of the warp must call it
// (converged); lanes with nothing to invert pass one.
#include <cstdint>

namespace cuzk::gpu {

namespace warp_detail {

// Applies a 32-bit warp shuffle to every word of a field element.
template <class F, class Shuffle>
__device__ __forceinline__ F shfl_words(const F& v, Shuffle&& shuffle) {
  static_assert(sizeof(F) % 4 == 0);
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&v);
  uint32_t* o = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (unsigned k = 0; k < sizeof(F) / 4; ++k) o[k] = shuffle(s[k]);
  return r;
}

template <class F>
__device__ __forceinline__ F shfl_up(const F& v, unsigned delta) {
  return shfl_words(v, [delta](uint32_t w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}
template <class F>
__device__ __forceinline__ F shfl_down(const F& v, unsigned delta) {
  return shfl_words(v, [delta](uint32_t w) { return __shfl_down_sync(0xffffffffu, w, delta); });
}
template <class F>
__device__ __forceinline__ F shfl_idx(const F& v, int lane) {
  return shfl_words(v, [lane](uint32_t w) { return __shfl_sync(0xffffffffu, w, lane); });
}

}  // namespace warp_detail

// 1/z for this lane's z (non-zero: a zero would make every lane's result zero).
template <class F>
__device__ F warp_inverse(const F& z) {
  const unsigned lane = threadIdx.x & 31u;
  F pre = z, suf = z;  // inclusive prefix / suffix products
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const F p = warp_detail::shfl_up(pre, d);
    const F s = warp_detail::shfl_down(suf, d);
    if (lane >= d) pre = pre * p;
    if (lane + d < 32) suf = suf * s;
  }
  F before = warp_detail::shfl_up(pre, 1), after = warp_detail::shfl_down(suf, 1);
  if (lane == 0) before = F::one();
  if (lane == 31) after = F::one();
  const F all_inv = warp_detail::shfl_idx(pre, 31).inverse();  // the same value in every lane
  return all_inv * before * after;
}

}  // namespace cuzk::gpu
