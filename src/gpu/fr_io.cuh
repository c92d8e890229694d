#pragma once
// Vectorised global-memory access to device Fr values (32 bytes: two 16-byte loads or stores) and
// the host-pointer view of device data (ff::Fr and gpu::Fr share the byte layout).
#include <cstdint>

#include "ff/bls12_381.hpp"
#include "gpu/bls12_381.cuh"

namespace cuzk::gpu {

static_assert(sizeof(ff::Fr) == sizeof(Fr), "host and device Fr layouts differ");

__device__ __forceinline__ Fr load_fr(const Fr* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  const uint4 lo = q[0], hi = q[1];
  Fr r;
  r.w[0] = lo.x, r.w[1] = lo.y, r.w[2] = lo.z, r.w[3] = lo.w;
  r.w[4] = hi.x, r.w[5] = hi.y, r.w[6] = hi.z, r.w[7] = hi.w;
  return r;
}

__device__ __forceinline__ void store_fr(Fr* p, const Fr& v) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
  q[1] = make_uint4(v.w[4], v.w[5], v.w[6], v.w[7]);
}

inline Fr* dev(ff::Fr* p) {
  return reinterpret_cast<Fr*>(p);
}
inline const Fr* dev(const ff::Fr* p) {
  return reinterpret_cast<const Fr*>(p);
}
inline Fr to_device_value(const ff::Fr& h) {
  Fr d;
  static_assert(sizeof d == sizeof h.raw());
  __builtin_memcpy(&d, h.raw().data(), sizeof d);
  return d;
}

}  // namespace cuzk::gpu
