#pragma once
// Shared helpers of the GPU tests: CPU <-> device value conversion (identical Montgomery layouts)
// and a skip when the machine has no usable device.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ec/bls12_381.hpp"
#include "gpu/bls12_381.cuh"
#include "gpu/curve.cuh"
#include "gpu/device.hpp"
#include "require_gpu.hpp"

namespace cuzk::gpu::test {

template <class D, class H>
D to_dev(const H& h) {
  static_assert(sizeof(D) == sizeof(h.raw()), "device and host limb layouts differ");
  D d;
  std::memcpy(&d, h.raw().data(), sizeof d);
  return d;
}
template <class H, class D>
H from_dev(const D& d) {
  typename H::LimbsT l;
  static_assert(sizeof(D) == sizeof(l), "device and host limb layouts differ");
  std::memcpy(l.data(), &d, sizeof d);
  return H::from_raw(l);
}

inline gpu::Fr to_dev(const ff::Fr& h) {
  return to_dev<gpu::Fr>(h);
}
inline ff::Fr from_dev(const gpu::Fr& d) {
  return from_dev<ff::Fr>(d);
}
inline gpu::Fq to_dev(const ff::Fq& h) {
  return to_dev<gpu::Fq>(h);
}
inline ff::Fq from_dev(const gpu::Fq& d) {
  return from_dev<ff::Fq>(d);
}
inline gpu::Fq2 to_dev(const ff::Fq2& h) {
  return {to_dev<gpu::Fq>(h.c0), to_dev<gpu::Fq>(h.c1)};
}
inline ff::Fq2 from_dev(const gpu::Fq2& d) {
  return {from_dev<ff::Fq>(d.c0), from_dev<ff::Fq>(d.c1)};
}

template <class DevAffine, class C>
DevAffine to_dev_affine(const ec::Affine<C>& p) {
  DevAffine d;
  if (p.is_identity()) {
    std::memset(&d, 0, sizeof d);
  } else {
    d.x = to_dev(p.x);
    d.y = to_dev(p.y);
  }
  return d;
}

// XYZZ (x = X/ZZ, y = Y/ZZZ) to a CPU affine point.
template <class C, class DevXyzz>
ec::Affine<C> xyzz_to_host_affine(const DevXyzz& d) {
  auto zz = from_dev(d.ZZ);
  if (zz.is_zero()) return ec::Affine<C>();
  return ec::Affine<C>(from_dev(d.X) * zz.inverse(), from_dev(d.Y) * from_dev(d.ZZZ).inverse());
}
template <class C, class DevAffine>
ec::Affine<C> affine_to_host(const DevAffine& d) {
  auto y = from_dev(d.y);
  if (y.is_zero()) return ec::Affine<C>();
  return ec::Affine<C>(from_dev(d.x), y);
}

}  // namespace cuzk::gpu::test
