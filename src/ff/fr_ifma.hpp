#pragma once
// Fr on AVX-512 IFMA: one 512-bit register holds the same 52-bit limb of 8 field elements (an
// element is 5 limbs, radix 2^52), and vpmadd52{lo,hi}uq multiply 52x52-bit limbs. A Montgomery
// product (factor 2^260, operand scanning) costs 55 of each for 8 products. Shared by the NTT passes
// (poly/ntt_ifma.cpp) and the Poseidon witness (gadgets/poseidon_ifma.cpp).
//
// Values are kept normalised (every limb < 2^52) and in [0, 2p) (lazy reduction): a Montgomery
// product of operands below 2p is below 4p^2/2^260 + p < 2p (2p < 2^256), the sum x + y gets one
// conditional subtraction of 2p, and the difference feeding a multiplication is x - y + 2p in
// (0, 4p), which the product accepts as well (4p * 2p / 2^260 + p < 2p).
//
// A constant c stored as c * 16 (the Montgomery form for 2^260 instead of 2^256) multiplies an
// element in the usual Montgomery form x * 2^256 into (c x) * 2^256: mont_mul(c 2^260, x 2^256) =
// c x 2^256. Only functions with the target attribute below contain AVX-512 code; callers check
// cpu_supported() first.
#include <cstddef>
#include <cstdint>

#include "ff/bls12_381.hpp"

// The representation, in portable code (tables are built on any CPU): five 52-bit limbs of the same
// Montgomery integer x*2^256 mod p.
namespace cuzk::ff::ifma52 {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;

struct Limbs52 {
  uint64_t v[5];
};

constexpr Limbs52 split52(const ff::Limbs<4>& a) {
  return {{a[0] & kMask52, ((a[0] >> 52) | (a[1] << 12)) & kMask52, ((a[1] >> 40) | (a[2] << 24)) & kMask52,
           ((a[2] >> 28) | (a[3] << 36)) & kMask52, a[3] >> 16}};
}

// A constant operand: the kernels multiply with Montgomery factor 2^260, so constants are stored
// pre-multiplied by 16: (x*2^256)(w*2^260)/2^260 = x*w*2^256.
inline void to_limbs52_times16(uint64_t out[5], const Fr& v) {
  const Limbs52 l = split52((v * Fr::from_u64(16)).raw());
  for (int i = 0; i < 5; ++i) out[i] = l.v[i];
}

}  // namespace cuzk::ff::ifma52

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CUZK_FR_IFMA 1
#include <immintrin.h>

#define CUZK_IFMA __attribute__((target("avx512f,avx512ifma")))
#define CUZK_IFMA_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline

namespace cuzk::ff::ifma52 {

inline constexpr size_t kLanes = 8;

// Whether this CPU runs the AVX-512 IFMA code.
inline bool cpu_supported() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
}

constexpr ff::Limbs<4> twice(const ff::Limbs<4>& a) {
  ff::Limbs<4> r = a;
  ff::add_limbs(r, a, a);  // 2p < 2^256
  return r;
}

constexpr Limbs52 kP = split52(ff::Fr::MOD);
constexpr Limbs52 kP2 = split52(twice(ff::Fr::MOD));
constexpr uint64_t kPinv52 = ff::Fr::INV & kMask52;  // -p^-1 mod 2^52

struct V5 {
  __m512i l[5];
};

CUZK_IFMA_INLINE __m512i bc(uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}

CUZK_IFMA_INLINE V5 load_row(const uint64_t* p) {
  V5 r;
  for (int i = 0; i < 5; ++i) r.l[i] = _mm512_load_si512(p + i * kLanes);
  return r;
}
CUZK_IFMA_INLINE void store_row(uint64_t* p, const V5& v) {
  for (int i = 0; i < 5; ++i) _mm512_store_si512(p + i * kLanes, v.l[i]);
}
CUZK_IFMA_INLINE V5 broadcast5(const uint64_t* c) {
  V5 r;
  for (int i = 0; i < 5; ++i) r.l[i] = bc(c[i]);
  return r;
}
// Lane b of limb i from c[i * stride + b].
CUZK_IFMA_INLINE V5 load_lanes(const uint64_t* c, size_t stride) {
  V5 r;
  for (int i = 0; i < 5; ++i) r.l[i] = _mm512_loadu_si512(c + i * stride);
  return r;
}

// x (canonical, x * 2^256) in every lane.
CUZK_IFMA_INLINE V5 broadcast_fr(const Fr& x) {
  return broadcast5(split52(x.raw()).v);
}
// Lane b := fr_of(b) (canonical Fr) for b < count; the other lanes 0.
template <class Get>
CUZK_IFMA_INLINE V5 pack_fr(size_t count, Get&& fr_of) {
  alignas(64) uint64_t in[5 * kLanes] = {};
  for (size_t b = 0; b < count; ++b) {
    const Limbs52 l = split52(fr_of(b).raw());
    for (int i = 0; i < 5; ++i) in[i * kLanes + b] = l.v[i];
  }
  return load_row(in);
}

// Carry propagation: unsigned (all limbs non-negative) or signed (limbs may be negative; the sign of
// the value ends up in the top limb).
CUZK_IFMA_INLINE void carry_u(V5& v) {
  const __m512i m = bc(kMask52);
  for (int i = 0; i < 4; ++i) {
    v.l[i + 1] = _mm512_add_epi64(v.l[i + 1], _mm512_srli_epi64(v.l[i], 52));
    v.l[i] = _mm512_and_si512(v.l[i], m);
  }
}
CUZK_IFMA_INLINE void carry_s(V5& v) {
  const __m512i m = bc(kMask52);
  for (int i = 0; i < 4; ++i) {
    v.l[i + 1] = _mm512_add_epi64(v.l[i + 1], _mm512_srai_epi64(v.l[i], 52));
    v.l[i] = _mm512_and_si512(v.l[i], m);
  }
}

// a * b / 2^260 mod p for normalised a, b with a*b < 2^260 * p (e.g. both < 2p, or a < 4p, b < 2p);
// the result is normalised and < 2p.
CUZK_IFMA_INLINE V5 mont_mul(const V5& a, const V5& b) {
  const __m512i z = _mm512_setzero_si512();
  const __m512i pinv = bc(kPinv52);
  const __m512i p0 = bc(kP.v[0]), p1 = bc(kP.v[1]), p2 = bc(kP.v[2]), p3 = bc(kP.v[3]), p4 = bc(kP.v[4]);
  __m512i t0 = z, t1 = z, t2 = z, t3 = z, t4 = z, t5 = z;
  for (int i = 0; i < 5; ++i) {
    const __m512i bi = b.l[i];
    // t += a * b[i]: low halves into limb j, high halves into limb j + 1.
    t0 = _mm512_madd52lo_epu64(t0, a.l[0], bi);
    t1 = _mm512_madd52hi_epu64(t1, a.l[0], bi);
    t1 = _mm512_madd52lo_epu64(t1, a.l[1], bi);
    t2 = _mm512_madd52hi_epu64(t2, a.l[1], bi);
    t2 = _mm512_madd52lo_epu64(t2, a.l[2], bi);
    t3 = _mm512_madd52hi_epu64(t3, a.l[2], bi);
    t3 = _mm512_madd52lo_epu64(t3, a.l[3], bi);
    t4 = _mm512_madd52hi_epu64(t4, a.l[3], bi);
    t4 = _mm512_madd52lo_epu64(t4, a.l[4], bi);
    t5 = _mm512_madd52hi_epu64(t5, a.l[4], bi);
    // m = t0 * (-p^-1) mod 2^52; t += m * p makes the low 52 bits of t0 zero.
    const __m512i m = _mm512_madd52lo_epu64(z, t0, pinv);
    t0 = _mm512_madd52lo_epu64(t0, p0, m);
    t1 = _mm512_madd52hi_epu64(t1, p0, m);
    t1 = _mm512_madd52lo_epu64(t1, p1, m);
    t2 = _mm512_madd52hi_epu64(t2, p1, m);
    t2 = _mm512_madd52lo_epu64(t2, p2, m);
    t3 = _mm512_madd52hi_epu64(t3, p2, m);
    t3 = _mm512_madd52lo_epu64(t3, p3, m);
    t4 = _mm512_madd52hi_epu64(t4, p3, m);
    t4 = _mm512_madd52lo_epu64(t4, p4, m);
    t5 = _mm512_madd52hi_epu64(t5, p4, m);
    // Divide by 2^52: drop t0, keeping its carry (the accumulators stay below 2^58).
    t1 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
    t0 = t1;
    t1 = t2;
    t2 = t3;
    t3 = t4;
    t4 = t5;
    t5 = z;
  }
  V5 r{{t0, t1, t2, t3, t4}};
  carry_u(r);
  return r;
}

// Limb differences in (-2p, 2p) carried (signed), 2p added back where negative, carried again:
// the value in [0, 2p).
CUZK_IFMA_INLINE V5 fold_into_2p(V5 d) {
  carry_s(d);
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_mask_add_epi64(d.l[i], neg, d.l[i], bc(kP2.v[i]));
  carry_u(d);
  return d;
}

// (x + y) reduced into [0, 2p), for x, y in [0, 2p).
CUZK_IFMA_INLINE V5 add_red(const V5& x, const V5& y) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(_mm512_add_epi64(x.l[i], y.l[i]), bc(kP2.v[i]));
  return fold_into_2p(d);
}

// (x - y) reduced into [0, 2p), for x, y in [0, 2p).
CUZK_IFMA_INLINE V5 sub_red(const V5& x, const V5& y) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(x.l[i], y.l[i]);
  return fold_into_2p(d);
}

// x - y + 2p in (0, 4p), for x, y in [0, 2p): only as a multiplication operand.
CUZK_IFMA_INLINE V5 sub_lazy(const V5& x, const V5& y) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(_mm512_add_epi64(x.l[i], bc(kP2.v[i])), y.l[i]);
  carry_s(d);
  return d;
}

// [0, 2p) -> [0, p).
CUZK_IFMA_INLINE V5 reduce_p(const V5& x) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(x.l[i], bc(kP.v[i]));
  carry_s(d);
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_mask_blend_epi64(neg, d.l[i], x.l[i]);
  return d;
}

// 4 x 64-bit limb vectors (lane = element) <-> 5 x 52-bit.
CUZK_IFMA_INLINE V5 to52(__m512i a0, __m512i a1, __m512i a2, __m512i a3) {
  const __m512i m = bc(kMask52);
  V5 r;
  r.l[0] = _mm512_and_si512(a0, m);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(a0, 52), _mm512_slli_epi64(a1, 12)), m);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(a1, 40), _mm512_slli_epi64(a2, 24)), m);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(a2, 28), _mm512_slli_epi64(a3, 36)), m);
  r.l[4] = _mm512_srli_epi64(a3, 16);
  return r;
}
// v normalised and < 2^256.
CUZK_IFMA_INLINE void to64(const V5& v, __m512i& a0, __m512i& a1, __m512i& a2, __m512i& a3) {
  a0 = _mm512_or_si512(v.l[0], _mm512_slli_epi64(v.l[1], 52));
  a1 = _mm512_or_si512(_mm512_srli_epi64(v.l[1], 12), _mm512_slli_epi64(v.l[2], 40));
  a2 = _mm512_or_si512(_mm512_srli_epi64(v.l[2], 24), _mm512_slli_epi64(v.l[3], 28));
  a3 = _mm512_or_si512(_mm512_srli_epi64(v.l[3], 36), _mm512_slli_epi64(v.l[4], 16));
}

// 8 consecutive elements (element-major, 4 limbs each: z0 = elements 0,1, z1 = 2,3, ...) <->
// limb-major vectors L0..L3 (lane e = limb of element e).
CUZK_IFMA_INLINE void transpose_in(__m512i z0, __m512i z1, __m512i z2, __m512i z3, __m512i& l0, __m512i& l1,
                                   __m512i& l2, __m512i& l3) {
  const __m512i ia = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
  const __m512i ib = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  const __m512i ta = _mm512_permutex2var_epi64(z0, ia, z1);  // limbs 0,1 of elements 0..3
  const __m512i tb = _mm512_permutex2var_epi64(z2, ia, z3);  // limbs 0,1 of elements 4..7
  const __m512i tc = _mm512_permutex2var_epi64(z0, ib, z1);  // limbs 2,3 of elements 0..3
  const __m512i td = _mm512_permutex2var_epi64(z2, ib, z3);  // limbs 2,3 of elements 4..7
  l0 = _mm512_permutex2var_epi64(ta, lo, tb);
  l1 = _mm512_permutex2var_epi64(ta, hi, tb);
  l2 = _mm512_permutex2var_epi64(tc, lo, td);
  l3 = _mm512_permutex2var_epi64(tc, hi, td);
}
CUZK_IFMA_INLINE void transpose_out(__m512i l0, __m512i l1, __m512i l2, __m512i l3, __m512i& z0, __m512i& z1,
                                    __m512i& z2, __m512i& z3) {
  const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  const __m512i ia = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
  const __m512i ib = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i s01 = _mm512_permutex2var_epi64(l0, lo, l1);  // elements 0..3: limb 0 then limb 1
  const __m512i s23 = _mm512_permutex2var_epi64(l2, lo, l3);  // elements 0..3: limb 2 then limb 3
  const __m512i s45 = _mm512_permutex2var_epi64(l0, hi, l1);  // elements 4..7
  const __m512i s67 = _mm512_permutex2var_epi64(l2, hi, l3);
  z0 = _mm512_permutex2var_epi64(s01, ia, s23);
  z1 = _mm512_permutex2var_epi64(s01, ib, s23);
  z2 = _mm512_permutex2var_epi64(s45, ia, s67);
  z3 = _mm512_permutex2var_epi64(s45, ib, s67);
}

}  // namespace cuzk::ff::ifma52

#endif
