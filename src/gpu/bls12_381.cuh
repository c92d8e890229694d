#pragma once
// BLS12-381 on the GPU: Fr, Fq, Fq2 = Fq[u]/(u^2 + 1), and the curve constants of G1 and G2.
// The words are those of src/ff/bls12_381.hpp split into 32-bit halves; tests/gpu check equality
// with the CPU constants at compile time.
#include "gpu/mont_field.cuh"

namespace cuzk::gpu {

struct FrParams {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xffffffffu;
  __host__ __device__ static constexpr uint32_t mod(int i) {
    constexpr uint32_t v[N] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                               0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return v[i];
  }
  __host__ __device__ static constexpr uint32_t one(int i) {
    constexpr uint32_t v[N] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                               0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return v[i];
  }
  __host__ __device__ static constexpr uint32_t r2(int i) {
    constexpr uint32_t v[N] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                               0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
    return v[i];
  }
};

struct FqParams {
  static constexpr int N = 12;
  static constexpr uint32_t INV = 0xfffcfffdu;
  __host__ __device__ static constexpr uint32_t mod(int i) {
    constexpr uint32_t v[N] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                               0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return v[i];
  }
  __host__ __device__ static constexpr uint32_t one(int i) {
    constexpr uint32_t v[N] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
                               0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return v[i];
  }
  __host__ __device__ static constexpr uint32_t r2(int i) {
    constexpr uint32_t v[N] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                               0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
    return v[i];
  }
};

using Fr = MontField<FrParams>;
using Fq = MontField<FqParams>;

// Fq2 = Fq[u]/(u^2 + 1); same layout as the CPU Fp2<Fq> (c0 then c1).
struct Fq2 {
  Fq c0, c1;

  __device__ __forceinline__ static Fq2 zero() { return {Fq::zero(), Fq::zero()}; }
  __device__ __forceinline__ static Fq2 one() { return {Fq::one(), Fq::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ friend bool operator==(const Fq2& a, const Fq2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  __device__ __forceinline__ friend bool operator!=(const Fq2& a, const Fq2& b) { return !(a == b); }
  __device__ __forceinline__ friend Fq2 operator+(const Fq2& a, const Fq2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  __device__ __forceinline__ friend Fq2 operator-(const Fq2& a, const Fq2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  __device__ __forceinline__ Fq2 operator-() const { return {-c0, -c1}; }
  __device__ __forceinline__ Fq2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  __device__ __forceinline__ Fq2& operator+=(const Fq2& b) { return *this = *this + b; }
  __device__ __forceinline__ Fq2& operator-=(const Fq2& b) { return *this = *this - b; }
  __device__ __forceinline__ Fq2& operator*=(const Fq2& b) { return *this = *this * b; }
  // Karatsuba: 3 base multiplications.
  __device__ __forceinline__ friend Fq2 operator*(const Fq2& a, const Fq2& b) {
    const Fq v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    const Fq s = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {v0 - v1, s - v0 - v1};
  }
  // x * y - z * w with one reduction per coordinate (Fq::dot of four products: 10
  // half-multiplications instead of 12; the accumulation's madd keeps the two products, which
  // need fewer registers).
  __device__ __forceinline__ static Fq2 mul_sub(const Fq2& x, const Fq2& y, const Fq2& z, const Fq2& w) {
    return {Fq::dot<4>({x.c0, x.c1, z.c0, z.c1}, {y.c0, -y.c1, -w.c0, w.c1}),
            Fq::dot<4>({x.c0, x.c1, z.c0, z.c1}, {y.c1, y.c0, -w.c1, -w.c0})};
  }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 base multiplications.
  __device__ __forceinline__ Fq2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  // 1/(c0 + c1 u) = (c0 - c1 u)/(c0^2 + c1^2).
  __device__ Fq2 inverse() const {
    const Fq t = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * t, -(c1 * t)};
  }
};

// y^2 = x^3 + b: b = 4 on G1 and 4(1 + u) on G2 (the M-type twist).
struct G1Curve {
  using F = Fq;
  __device__ __forceinline__ static Fq b() {
    Fq four = Fq::one().dbl();
    return four.dbl();
  }
};
struct G2Curve {
  using F = Fq2;
  __device__ __forceinline__ static Fq2 b() {
    Fq four = Fq::one().dbl().dbl();
    return {four, four};
  }
};

}  // namespace cuzk::gpu
