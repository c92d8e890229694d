#pragma once
// Prime-field elements in Montgomery form on the GPU, as N 32-bit little-endian words. The byte
// layout and the Montgomery radix (R = 2^(32N) = 2^(64 N/2)) are those of the CPU type
// cuzk::ff::Fp, so device and host exchange raw limbs with no conversion.
//
// P supplies: N (32-bit words), mod(i), one(i) (R mod p), r2(i) (R^2 mod p), INV (-p^-1 mod 2^32),
// each a constexpr function of a compile-time index so that loops unroll into immediates.
// The modulus must leave at least one spare top bit (a + b < 2^(32N) for a, b < p).
#include <cstdint>

#include "gpu/ptx.cuh"

namespace cuzk::gpu {

template <class P>
struct MontField {
  static constexpr int N = P::N;
  uint32_t w[N];

  __device__ __forceinline__ static MontField zero() {
    MontField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.w[i] = 0;
    return r;
  }
  __device__ __forceinline__ static MontField one() {
    MontField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.w[i] = P::one(i);
    return r;
  }
  __device__ __forceinline__ static MontField modulus() {
    MontField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.w[i] = P::mod(i);
    return r;
  }

  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= w[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator==(const MontField& a, const MontField& b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= a.w[i] ^ b.w[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator!=(const MontField& a, const MontField& b) {
    return !(a == b);
  }

  // r = x - p if x >= p, else x (x < 2p). Branch-free: warps stay converged.
  __device__ __forceinline__ static void reduce_once(uint32_t (&x)[N]) {
    uint32_t t[N];
    t[0] = ptx::sub_cc(x[0], P::mod(0));
#pragma unroll
    for (int i = 1; i < N; ++i) t[i] = ptx::subc_cc(x[i], P::mod(i));
    const uint32_t borrow = ptx::subc(0, 0);  // 0xffffffff when x < p
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = (x[i] & borrow) | (t[i] & ~borrow);
  }

  __device__ __forceinline__ friend MontField operator+(const MontField& a, const MontField& b) {
    MontField r;
    r.w[0] = ptx::add_cc(a.w[0], b.w[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) r.w[i] = ptx::addc_cc(a.w[i], b.w[i]);
    reduce_once(r.w);
    return r;
  }
  __device__ __forceinline__ friend MontField operator-(const MontField& a, const MontField& b) {
    MontField r;
    r.w[0] = ptx::sub_cc(a.w[0], b.w[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) r.w[i] = ptx::subc_cc(a.w[i], b.w[i]);
    const uint32_t mask = ptx::subc(0, 0);  // borrow: add p back
    r.w[0] = ptx::add_cc(r.w[0], P::mod(0) & mask);
#pragma unroll
    for (int i = 1; i < N; ++i) r.w[i] = ptx::addc_cc(r.w[i], P::mod(i) & mask);
    return r;
  }
  __device__ __forceinline__ MontField operator-() const {
    return zero() - *this;
  }
  __device__ __forceinline__ MontField dbl() const {
    return *this + *this;
  }
  __device__ __forceinline__ MontField& operator+=(const MontField& b) {
    return *this = *this + b;
  }
  __device__ __forceinline__ MontField& operator-=(const MontField& b) {
    return *this = *this - b;
  }
  __device__ __forceinline__ MontField& operator*=(const MontField& b) {
    return *this = *this * b;
  }

  // CIOS Montgomery multiplication: per word of b, two carry chains add the low and the high
  // halves of a*b[i] into t, then two more add m*p, which zeroes t[0]; t shifts down one word.
  // t < 2p throughout thanks to the spare top bit; one conditional subtraction finishes.
  __device__ __forceinline__ friend MontField operator*(const MontField& a, const MontField& b) {
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; ++i) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const uint32_t bi = b.w[i];
      t[0] = ptx::mad_lo_cc(a.w[0], bi, t[0]);
#pragma unroll
      for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(a.w[j], bi, t[j]);
      t[N] = ptx::addc_cc(t[N], 0);
      t[N + 1] = ptx::addc(0, 0);
      t[1] = ptx::mad_hi_cc(a.w[0], bi, t[1]);
#pragma unroll
      for (int j = 1; j < N; ++j) t[j + 1] = ptx::madc_hi_cc(a.w[j], bi, t[j + 1]);
      t[N + 1] = ptx::addc(t[N + 1], 0);

      const uint32_t m = t[0] * P::INV;
      t[0] = ptx::mad_lo_cc(m, P::mod(0), t[0]);
#pragma unroll
      for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(m, P::mod(j), t[j]);
      t[N] = ptx::addc_cc(t[N], 0);
      t[N + 1] = ptx::addc(t[N + 1], 0);
      t[1] = ptx::mad_hi_cc(m, P::mod(0), t[1]);
#pragma unroll
      for (int j = 1; j < N; ++j) t[j + 1] = ptx::madc_hi_cc(m, P::mod(j), t[j + 1]);
      t[N + 1] = ptx::addc(t[N + 1], 0);
#pragma unroll
      for (int j = 0; j < N + 1; ++j) t[j] = t[j + 1];
      t[N + 1] = 0;
    }
    MontField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.w[i] = t[i];
    reduce_once(r.w);
    return r;
  }
  __device__ __forceinline__ MontField sqr() const {
    return *this * *this;
  }

  // From a canonical integer to Montgomery form and back (host data is usually already Montgomery).
  __device__ __forceinline__ MontField to_mont() const {
    MontField r2;
#pragma unroll
    for (int i = 0; i < N; ++i) r2.w[i] = P::r2(i);
    return *this * r2;
  }
  __device__ __forceinline__ MontField from_mont() const {
    MontField one_plain = zero();
    one_plain.w[0] = 1;
    return *this * one_plain;
  }

  // a^e for a little-endian exponent of E words.
  template <int E>
  __device__ MontField pow(const uint32_t (&e)[E]) const {
    MontField r = one();
    for (int i = E - 1; i >= 0; --i)
      for (int b = 31; b >= 0; --b) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r = r * *this;
      }
    return r;
  }
  // Fermat inversion (a^(p-2)); 0 maps to 0. Slow: for setup paths and tests, not inner loops.
  __device__ MontField inverse() const {
    uint32_t e[N];
    e[0] = ptx::sub_cc(P::mod(0), 2);  // p - 2, borrowing across words (Fr's low word is 1)
#pragma unroll
    for (int i = 1; i < N; ++i) e[i] = ptx::subc_cc(P::mod(i), 0);
    return pow(e);
  }
};

}  // namespace cuzk::gpu
