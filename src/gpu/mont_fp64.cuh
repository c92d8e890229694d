#pragma once
// Montgomery multiplication on the FP64 units, for measuring against the integer (IMAD) form of
// mont_field.cuh. Why: an H200 SM has as many FP64 FMA lanes as 32-bit IMAD lanes (64 per clock),
// and two fused multiply-adds give the exact 104-bit product of two 52-bit integers, 2.6x the
// product bits of an IMAD lo/hi pair. The technique (52-bit "samples", high products biased by
// 2^104 and low ones by 2^52 so their bit patterns add as integers) is from Emmart, Zheng and
// Weems, "Faster Modular Exponentiation Using Double Precision Floating Point Arithmetic on the
// GPU" (ARITH 2018); this is our own formulation for the BLS12-381 fields.
//
// An element is L limbs of 52 bits, each an integer-valued double in [0, 2^52). The Montgomery
// radix is R2 = 2^(52 L), not the word form's R = 2^(32 N): L = 5 for Fr (R2 = 2^4 R), 8 for Fq
// (R2 = 2^32 R). A word-form value x R mod p read with `from_words<SHIFT>` (the integer shifted
// left by SHIFT = 52 L - 32 N bits, no reduction) is x R2 mod p, so mul(from_words<SHIFT>(a),
// from_words<0>(b)) = a b / R: the word form's product, which `to_words` returns fully reduced.
//
// Bounds: for A < 2^SHIFT p and B < 2p, A B + m p < R2 2p, so the result is below 2p (the
// static_assert checks SHIFT + 1 + bits(p) <= 52 L); results below 2p can be multiplied by a
// pre-shifted operand again with no reduction in between.
#include <cstdint>

#include "gpu/mont_field.cuh"

namespace cuzk::gpu {

template <class P>
struct Fp64Field {
  static constexpr int N32 = P::N;
  static constexpr int L = (32 * N32 + 51) / 52;
  static constexpr int SHIFT = 52 * L - 32 * N32;
  static constexpr uint64_t M52 = (uint64_t{1} << 52) - 1;
  // Bit patterns of 2^52 and 2^104: a low product l = 2^52 + lo and a high one h = 2^104 + hi*2^52
  // carry these above their 52 payload bits, so both are multiples of 2^52 and never touch the
  // low 52 bits of a column sum.
  static constexpr uint64_t kBitsLo = 0x4330000000000000ull;
  static constexpr uint64_t kBitsHi = 0x4670000000000000ull;

  double v[L];

  // Limb j of the word integer shifted left by S bits: bits [52 j - S, 52 j - S + 52).
  template <int S>
  __host__ __device__ static constexpr uint64_t limb_of(const uint32_t (&w)[N32], int j) {
    uint64_t r = 0;
    const int pos = 52 * j - S;
    for (int i = 0; i < N32; ++i) {
      const int sh = 32 * i - pos;
      if (sh >= 0 && sh < 52)
        r |= uint64_t{w[i]} << sh;
      else if (sh < 0 && sh > -32)
        r |= uint64_t{w[i]} >> -sh;
    }
    return r & M52;
  }
  __host__ __device__ static constexpr uint64_t mod_limb(int j) {
    uint32_t m[N32] = {};
    for (int i = 0; i < N32; ++i) m[i] = P::mod(i);
    return limb_of<0>(m, j);
  }
  __host__ __device__ static constexpr int mod_bits() {
    int b = 32 * N32;
    for (uint32_t top = P::mod(N32 - 1); (top & 0x80000000u) == 0; top <<= 1) --b;
    return b;
  }
  // -p^-1 mod 2^52 (Newton's iteration doubles the correct low bits; p * p = 1 mod 8 for odd p).
  __host__ __device__ static constexpr uint64_t pinv52() {
    const uint64_t p0 = uint64_t{P::mod(0)} | uint64_t{P::mod(1)} << 32;
    uint64_t x = p0;
    for (int k = 0; k < 6; ++k) x *= 2 - p0 * x;
    return (0 - x) & M52;
  }
  static_assert(SHIFT + 1 + mod_bits() <= 52 * L, "a pre-shifted operand times one below 2p must stay below R2 2p");

  // The bit patterns' bias in column c: a low product from every (i, j) with i + j = c and a high
  // one from every i + j + 1 = c, once for a*b and once for the reduction's m*p, except the
  // reduction's m_c * p_0, whose low half is never added (its sum with col[c] is known: below).
  __host__ __device__ static constexpr uint64_t column_bias(int c) {
    uint64_t n_lo = 0, n_hi = 0;
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j) {
        n_lo += (i + j == c) * (j == 0 ? 1 : 2);
        n_hi += 2 * (i + j + 1 == c);
      }
    return n_lo * kBitsLo + n_hi * kBitsHi;  // mod 2^64, like the sums it cancels
  }

  __host__ __device__ static constexpr double mod_double(int j) { return static_cast<double>(mod_limb(j)); }

  __device__ __forceinline__ static double to_double(uint64_t x52) {
    return __dsub_rn(__longlong_as_double(static_cast<long long>(x52 | kBitsLo)), 0x1p52);
  }

  template <int S>
  __device__ __forceinline__ static Fp64Field from_words(const uint32_t (&w)[N32]) {
    Fp64Field r;
#pragma unroll
    for (int j = 0; j < L; ++j) r.v[j] = to_double(limb_of<S>(w, j));
    return r;
  }

  // The words of the value, reduced below p (the value must be below 2p).
  __device__ __forceinline__ void to_words(uint32_t (&w)[N32]) const {
    uint64_t x[L];  // 2^52 + limb has the limb in its low bits
#pragma unroll
    for (int j = 0; j < L; ++j) x[j] = static_cast<uint64_t>(__double_as_longlong(__dadd_rn(v[j], 0x1p52))) & M52;
#pragma unroll
    for (int i = 0; i < N32; ++i) {
      uint64_t word = 0;
#pragma unroll
      for (int j = 0; j < L; ++j) {
        const int sh = 52 * j - 32 * i;
        if (sh >= 0 && sh < 32)
          word |= x[j] << sh;
        else if (sh < 0 && sh > -52)
          word |= x[j] >> -sh;
      }
      w[i] = static_cast<uint32_t>(word);
    }
    MontField<P>::reduce_once(w);
  }

  // col_lo += low 52 bits of x*y (+ 2^52 in the exponent field), col_hi += high 52 bits (+ 2^104).
  // h rounds x*y + 2^104 toward zero to a multiple of 2^52 (its binade's ulp); 2^104 + 2^52 - h is
  // exact, and x*y + (2^104 + 2^52 - h) = 2^52 + (x*y mod 2^52) is exact too.
  __device__ __forceinline__ static void mul_add(uint64_t& col_lo, uint64_t& col_hi, double x, double y) {
    const double h = __fma_rz(x, y, 0x1p104);
    const double s = __dsub_rn(0x1p104 + 0x1p52, h);
    const double l = __fma_rz(x, y, s);
    col_lo += static_cast<uint64_t>(__double_as_longlong(l));
    col_hi += static_cast<uint64_t>(__double_as_longlong(h));
  }

  // a * b / R2 mod p, below 2p under the bounds above.
  __device__ __forceinline__ static Fp64Field mul(const Fp64Field& a, const Fp64Field& b) {
    uint64_t col[2 * L];
#pragma unroll
    for (int c = 0; c < 2 * L; ++c) col[c] = 0 - column_bias(c);
#pragma unroll
    for (int i = 0; i < L; ++i)
#pragma unroll
      for (int j = 0; j < L; ++j) mul_add(col[i + j], col[i + j + 1], a.v[i], b.v[j]);
        // Reduction by columns. Round k: col[k] is complete (all its terms and the carry in), and
        // m = col[k] * -p^-1 mod 2^52 makes col[k] + (m p_0 mod 2^52) a multiple of 2^52: that sum
        // is col[k] rounded up to one, so its carry is known without computing m p_0's low half.
#pragma unroll
    for (int k = 0; k < L; ++k) {
      const uint64_t t = col[k] & M52;
      col[k + 1] += (col[k] >> 52) + (t != 0);
      const double md = to_double((t * pinv52()) & M52);
      col[k + 1] += static_cast<uint64_t>(__double_as_longlong(__fma_rz(md, mod_double(0), 0x1p104)));
#pragma unroll
      for (int j = 1; j < L; ++j) mul_add(col[k + j], col[k + j + 1], md, mod_double(j));
    }
    return normalize(col);
  }

 private:
  // Columns L..2L-1 (complete) carried into L limbs of 52 bits: the result.
  __device__ __forceinline__ static Fp64Field normalize(uint64_t (&col)[2 * L]) {
    Fp64Field r;
    uint64_t carry = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const uint64_t x = col[L + j] + carry;
      r.v[j] = to_double(x & M52);
      carry = x >> 52;
    }
    return r;
  }
};

}  // namespace cuzk::gpu
