#pragma once
// Out-of-line point additions for the GPU MSM: called from the lighter kernels so that the heavy
// formulas are compiled once per curve (nvcc compile time); the hot accumulation loops inline
// their own copies.
#include "gpu/curve.cuh"

namespace cuzk::gpu::msm_detail {

template <class C>
__device__ __noinline__ XyzzPoint<C> add_ool(const XyzzPoint<C>& a, const XyzzPoint<C>& b) {
  return a.add(b);
}
template <class C>
__device__ __noinline__ XyzzPoint<C> add_affine_ool(const XyzzPoint<C>& a, const AffinePoint<C>& b) {
  return a.add_affine(b);
}
template <class C>
__device__ __noinline__ XyzzPoint<C> dbl_ool(const XyzzPoint<C>& a) {
  return a.dbl();
}

}  // namespace cuzk::gpu::msm_detail
