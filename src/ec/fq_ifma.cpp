// AVX-512 IFMA kernels for batches of affine G1 and G2 additions (Fq and Fq2 = Fq[u]/(u^2 + 1)
// arithmetic), 8 additions per vector instruction.
//
// Representation: one 512-bit register holds the same limb of 8 field elements; an element is 8
// limbs of 52 bits (radix 2^52, 416 bits for p < 2^381). vpmadd52{lo,hi}uq multiply the low 52
// bits of two limbs and add the low/high 52 bits of the 104-bit product to a 64-bit accumulator.
//
// Montgomery factor: the natural one for 8 limbs of 52 bits is 2^416, while the rest of the
// library stores x * 2^384. Converting every loaded coordinate would cost a multiplication each (6
// per addition, doubling the work), so instead the limbs are only re-cut (the same integer X =
// x * 2^384 in radix 2^52) and every value carries a known power of two: M(A, B) = A*B / 2^416
// turns exponents e1, e2 into e1 + e2 - 416 (exponent e: the integer is value * 2^e mod p). The
// exponents through the batch are worked out in batch_add_impl; one product per addition divides
// by 2^400 instead (a shortened last reduction round) so that results land on exponent 384.
//
// Lazy reduction: 2^416 leaves 35 bits of headroom over p, so M(A, B) < A*B/2^416 + p < 2p for
// any A, B < 2^395 (far above the < 18p values used here). Sums and differences are formed limb by
// limb (x - y as x + kp - y with kp >= y, never negative), normalised by one carry pass (limbs < 2^52 again,
// since vpmadd52 reads only the low 52 bits of its inputs), and fully reduced to [0, p) only when
// they leave the kernel, so the results are bit-identical to the scalar Fq code.
//
// Only functions marked CUZK_IFMA contain AVX-512 code; the translation unit is compiled for the
// baseline ISA and the entry points run only after cpu_supported() (see fq_ifma.hpp).
#include "ec/fq_ifma.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ff/bls12_381.hpp"
#include "util/tuning.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CUZK_FQ_IFMA_AVAILABLE 1
#include <immintrin.h>
#endif

namespace cuzk::ec::fq_ifma {

using ff::Fq;

namespace {
// On unless set_enabled(false) or tuning().msm_simd is off ([tuning] msm_simd, CUZK_MSM_SIMD=0: an
// escape hatch that needs no rebuild, and lets any test run on the scalar path).
std::atomic<bool> g_enabled{true};
}  // namespace

void set_enabled(bool enabled) {
  g_enabled.store(enabled, std::memory_order_relaxed);
}
bool active() {
  return g_enabled.load(std::memory_order_relaxed) && tuning().msm_simd && cpu_supported();
}

#if !defined(CUZK_FQ_IFMA_AVAILABLE)

bool cpu_supported() {
  return false;
}
void g1_batch_add(uint64_t* const*, const uint64_t* const*, const uint8_t*, size_t) {}
void g2_batch_add(uint64_t* const*, const uint64_t* const*, const uint8_t*, size_t) {}
void g1_on_curve(const uint64_t* const*, size_t, uint8_t*) {}
void g2_on_curve(const uint64_t* const*, size_t, uint8_t*) {}
void test_op(int, const uint64_t (*)[6], const uint64_t (*)[6], uint64_t (*)[6]) {}

#else

// GCC 12 reports its own _mm512_undefined_epi32() (inside the shift intrinsics) as (maybe-)
// uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#define CUZK_IFMA __attribute__((target("avx512f,avx512ifma")))
#define CUZK_IFMA_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline

bool cpu_supported() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
}

namespace {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;
constexpr int kL = 8;  // limbs per element, and lanes per vector

struct L52 {
  uint64_t v[kL];
};

// The integer a (6 x 64 bits) cut into 8 x 52 bits.
constexpr L52 split52(const ff::Limbs<6>& a) {
  return {{a[0] & kMask52, ((a[0] >> 52) | (a[1] << 12)) & kMask52, ((a[1] >> 40) | (a[2] << 24)) & kMask52,
           ((a[2] >> 28) | (a[3] << 36)) & kMask52, ((a[3] >> 16) | (a[4] << 48)) & kMask52, (a[4] >> 4) & kMask52,
           ((a[4] >> 56) | (a[5] << 8)) & kMask52, a[5] >> 44}};
}

constexpr ff::Limbs<6> times(const ff::Limbs<6>& a, unsigned k) {  // k * a, k * a < 2^384
  ff::Limbs<6> r{};
  for (unsigned i = 0; i < k; ++i) ff::add_limbs(r, r, a);
  return r;
}

constexpr L52 kP = split52(Fq::MOD);
constexpr L52 kP2 = split52(times(Fq::MOD, 2));
constexpr L52 kP4 = split52(times(Fq::MOD, 4));
constexpr L52 kP8 = split52(times(Fq::MOD, 8));
constexpr uint64_t kPinv52 = Fq::INV & kMask52;  // -p^-1 mod 2^52

struct V8 {
  __m512i l[kL];
};

CUZK_IFMA_INLINE __m512i bc(uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}

// Storage for one V8 (limb i of lane l at w[i][l]).
struct alignas(64) Block {
  uint64_t w[kL][8];
};

CUZK_IFMA_INLINE V8 load(const Block& b) {
  V8 r;
  for (int i = 0; i < kL; ++i) r.l[i] = _mm512_load_si512(b.w[i]);
  return r;
}
CUZK_IFMA_INLINE void store(Block& b, const V8& v) {
  for (int i = 0; i < kL; ++i) _mm512_store_si512(b.w[i], v.l[i]);
}

// Carry passes: unsigned (limbs non-negative) or signed (limbs may be negative, the value is not).
CUZK_IFMA_INLINE void carry_u(V8& v) {
  const __m512i m = bc(kMask52);
  for (int i = 0; i < kL - 1; ++i) {
    v.l[i + 1] = _mm512_add_epi64(v.l[i + 1], _mm512_srli_epi64(v.l[i], 52));
    v.l[i] = _mm512_and_si512(v.l[i], m);
  }
}
CUZK_IFMA_INLINE void carry_s(V8& v) {
  const __m512i m = bc(kMask52);
  for (int i = 0; i < kL - 1; ++i) {
    v.l[i + 1] = _mm512_add_epi64(v.l[i + 1], _mm512_srai_epi64(v.l[i], 52));
    v.l[i] = _mm512_and_si512(v.l[i], m);
  }
}

// A * B / 2^(364 + kLast) mod p, for normalised A, B with A*B < p * 2^(364 + kLast) (e.g. both
// < 2^390): normalised, < A*B/2^(364 + kLast) + p. Operand scanning: round i adds A*b_i at limbs
// i.., then m*p with m chosen so that limb i becomes divisible by 2^52, and carries limb i into
// limb i+1; limb i is then dead (the division by 2^52 is just the index shift). Accumulators stay
// below 2^60.
//
// kLast = 52 is the plain Montgomery product M (factor 2^416). kLast = 36 divides by 2^400
// instead: the last round clears only 36 bits (m < 2^36) and the result is shifted down by 36
// bits. The batch kernel uses it once per addition to land on the library's exponent 384 without
// a separate multiplication by a constant (see batch_add_impl).
template <int kLast = 52>
CUZK_IFMA_INLINE V8 mul(const V8& a, const V8& b) {
  static_assert(kLast == 52 || (kLast > 0 && kLast < 52));
  const __m512i z = _mm512_setzero_si512();
  const __m512i pinv = bc(kPinv52);
  __m512i t[2 * kL];
  for (int i = 0; i < 2 * kL; ++i) t[i] = z;
#pragma GCC unroll 8
  for (int i = 0; i < kL; ++i) {
    const __m512i bi = b.l[i];
#pragma GCC unroll 8
    for (int j = 0; j < kL; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[j], bi);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[j], bi);
    }
    __m512i m = _mm512_madd52lo_epu64(z, t[i], pinv);
    if (kLast != 52 && i == kL - 1) m = _mm512_and_si512(m, bc((uint64_t{1} << kLast) - 1));
#pragma GCC unroll 8
    for (int j = 0; j < kL; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], bc(kP.v[j]), m);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], bc(kP.v[j]), m);
    }
    if (kLast == 52 || i < kL - 1) t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
  }
  V8 r;
  if constexpr (kLast == 52) {
    for (int i = 0; i < kL; ++i) r.l[i] = t[kL + i];
    carry_u(r);
  } else {
    // Normalise limbs 7..15 (value < 2p * 2^kLast relative to limb 7, low kLast bits zero), then
    // shift the whole number down by kLast bits.
    const __m512i msk = bc(kMask52);
    for (int i = kL - 1; i < 2 * kL - 1; ++i) {
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
      t[i] = _mm512_and_si512(t[i], msk);
    }
    for (int i = 0; i < kL; ++i) {
      r.l[i] = _mm512_and_si512(
          _mm512_or_si512(_mm512_srli_epi64(t[kL - 1 + i], kLast), _mm512_slli_epi64(t[kL + i], 52 - kLast)), msk);
    }
  }
  return r;
}

// A^2 / 2^416 mod p, same contract as mul(A, A): the square is formed first with each cross
// product a_i*a_j (i < j) once, doubled, plus the squares a_i^2 (72 instead of 128 multiply-adds),
// then reduced by the same rounds as mul. Accumulators stay below 2^59.
CUZK_IFMA_INLINE V8 sqr(const V8& a) {
  const __m512i z = _mm512_setzero_si512();
  const __m512i pinv = bc(kPinv52);
  __m512i t[2 * kL];
  for (int i = 0; i < 2 * kL; ++i) t[i] = z;
#pragma GCC unroll 8
  for (int i = 0; i < kL; ++i) {
#pragma GCC unroll 8
    for (int j = i + 1; j < kL; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], a.l[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], a.l[j]);
    }
  }
  for (int i = 1; i < 2 * kL; ++i) t[i] = _mm512_add_epi64(t[i], t[i]);
#pragma GCC unroll 8
  for (int i = 0; i < kL; ++i) {
    t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.l[i], a.l[i]);
    t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.l[i], a.l[i]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < kL; ++i) {
    const __m512i m = _mm512_madd52lo_epu64(z, t[i], pinv);
#pragma GCC unroll 8
    for (int j = 0; j < kL; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], bc(kP.v[j]), m);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], bc(kP.v[j]), m);
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
  }
  V8 r;
  for (int i = 0; i < kL; ++i) r.l[i] = t[kL + i];
  carry_u(r);
  return r;
}

// Limb-wise x + y (not normalised).
CUZK_IFMA_INLINE V8 add_raw(const V8& x, const V8& y) {
  V8 r;
  for (int i = 0; i < kL; ++i) r.l[i] = _mm512_add_epi64(x.l[i], y.l[i]);
  return r;
}
// x + c - y, normalised; requires y <= x + c as integers (c a multiple of p: 2p or 4p).
CUZK_IFMA_INLINE V8 sub_plus(const V8& x, const V8& y, const L52& c) {
  V8 r;
  for (int i = 0; i < kL; ++i) r.l[i] = _mm512_sub_epi64(_mm512_add_epi64(x.l[i], bc(c.v[i])), y.l[i]);
  carry_s(r);
  return r;
}
// x - c if x >= c else x, for normalised x.
CUZK_IFMA_INLINE V8 cond_sub(const V8& x, const L52& c) {
  V8 d;
  for (int i = 0; i < kL; ++i) d.l[i] = _mm512_sub_epi64(x.l[i], bc(c.v[i]));
  carry_s(d);
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[kL - 1], _mm512_setzero_si512());
  for (int i = 0; i < kL; ++i) d.l[i] = _mm512_mask_blend_epi64(neg, d.l[i], x.l[i]);
  return d;
}
// [0, 4p) -> [0, p).
CUZK_IFMA_INLINE V8 reduce4(const V8& x) {
  return cond_sub(cond_sub(x, kP2), kP);
}

// (lo >> r) | (hi << l).
CUZK_IFMA_INLINE __m512i sh(__m512i lo, unsigned r, __m512i hi, unsigned l) {
  return _mm512_or_si512(_mm512_srli_epi64(lo, r), _mm512_slli_epi64(hi, l));
}

// 6 x 64-bit limb vectors (lane = element) <-> 8 x 52-bit.
CUZK_IFMA_INLINE V8 to52(const __m512i* a) {
  const __m512i m = bc(kMask52);
  V8 r;
  r.l[0] = _mm512_and_si512(a[0], m);
  r.l[1] = _mm512_and_si512(sh(a[0], 52, a[1], 12), m);
  r.l[2] = _mm512_and_si512(sh(a[1], 40, a[2], 24), m);
  r.l[3] = _mm512_and_si512(sh(a[2], 28, a[3], 36), m);
  r.l[4] = _mm512_and_si512(sh(a[3], 16, a[4], 48), m);
  r.l[5] = _mm512_and_si512(_mm512_srli_epi64(a[4], 4), m);
  r.l[6] = _mm512_and_si512(sh(a[4], 56, a[5], 8), m);
  r.l[7] = _mm512_srli_epi64(a[5], 44);
  return r;
}
// For normalised x < 2^384.
CUZK_IFMA_INLINE void from52(const V8& x, __m512i* a) {
  const __m512i* l = x.l;
  a[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
  a[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
  a[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
  a[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
  a[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(l[4], 48), _mm512_slli_epi64(l[5], 4)),
                         _mm512_slli_epi64(l[6], 56));
  a[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 8), _mm512_slli_epi64(l[7], 44));
}

// Elements of Fq (D = 1) or Fq2 = Fq[u]/(u^2 + 1) (D = 2): D vectors of 8 lanes, component c
// of lane l stored at 6c words from the element's address.
template <int D>
struct E {
  V8 c[D];
};

// 8x8 transpose of 64-bit words: r[i] lane l <-> r[l] lane i.
CUZK_IFMA_INLINE void transpose8(__m512i (&r)[8]) {
  __m512i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);      // words 0,2,4,6 of rows 2i, 2i+1
    t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);  // words 1,3,5,7
  }
  const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int h = 0; h < 2; ++h) {    // rows 0-3, 4-7
    for (int o = 0; o < 2; ++o) {  // even, odd words
      const __m512i a = t[4 * h + o], b = t[4 * h + 2 + o];
      u[4 * h + 2 * o] = _mm512_permutex2var_epi64(a, lo2, b);      // words o, 4+o of 4 rows
      u[4 * h + 2 * o + 1] = _mm512_permutex2var_epi64(a, hi2, b);  // words 2+o, 6+o
    }
  }
  const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11), hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  // u[2o + s] (s = 0: words o, 4+o; s = 1: words 2+o, 6+o) for rows 0-3, u[4 + 2o + s] for rows 4-7.
  for (int o = 0; o < 2; ++o) {
    for (int s2 = 0; s2 < 2; ++s2) {
      const __m512i a = u[2 * o + s2], b = u[4 + 2 * o + s2];
      r[o + 2 * s2] = _mm512_permutex2var_epi64(a, lo4, b);
      r[o + 2 * s2 + 4] = _mm512_permutex2var_epi64(a, hi4, b);
    }
  }
}

// x and y (< 2^384, normalised) to the points q[8j + l] for the real lanes: transposed to 12 * D
// words per point and written with full-vector stores (one AVX-512 scatter per word was slower).
template <int D>
CUZK_IFMA_INLINE void store_points(uint64_t* const* q, size_t k, size_t j, const E<D>& x, const E<D>& y) {
  constexpr int kW = 12 * D;
  __m512i w[kW];
  for (int c = 0; c < D; ++c) {
    from52(x.c[c], w + 6 * c);
    from52(y.c[c], w + 6 * D + 6 * c);
  }
  const size_t lanes = std::min<size_t>(8, k - j * 8);
  // Blocks of 8 words: 0, 8, 16 for Fq2; 0 and 4 (overlapping, the same values) for Fq.
  constexpr int kBlocks = D == 1 ? 2 : 3;
  for (int b = 0; b < kBlocks; ++b) {
    const int o = D == 1 ? 4 * b : 8 * b;
    __m512i r[8];
    for (int i = 0; i < 8; ++i) r[i] = w[o + i];
    transpose8(r);
    for (size_t l = 0; l < lanes; ++l) _mm512_storeu_si512(q[j * 8 + l] + o, r[l]);
  }
}

// The points at a[0..8) (x then y, 6 * D words each): full-vector loads transposed into word
// vectors, the inverse of store_points (faster than a gather per word).
template <int D>
CUZK_IFMA_INLINE void load_points(const uint64_t* const (&a)[8], E<D>& x, E<D>& y) {
  constexpr int kW = 12 * D;
  constexpr int kBlocks = D == 1 ? 2 : 3;
  __m512i w[kW];
  for (int b = 0; b < kBlocks; ++b) {
    const int o = D == 1 ? 4 * b : 8 * b;
    __m512i r[8];
    for (int l = 0; l < 8; ++l) r[l] = _mm512_loadu_si512(a[l] + o);
    transpose8(r);
    for (int i = 0; i < 8; ++i) w[o + i] = r[i];
  }
  for (int c = 0; c < D; ++c) {
    x.c[c] = to52(w + 6 * c);
    y.c[c] = to52(w + 6 * D + 6 * c);
  }
}

template <int D>
CUZK_IFMA_INLINE E<D> sub_plus_e(const E<D>& x, const E<D>& y, const L52& k) {
  E<D> r;
  for (int c = 0; c < D; ++c) r.c[c] = sub_plus(x.c[c], y.c[c], k);
  return r;
}
template <int D>
CUZK_IFMA_INLINE E<D> add_raw_e(const E<D>& x, const E<D>& y) {
  E<D> r;
  for (int c = 0; c < D; ++c) r.c[c] = add_raw(x.c[c], y.c[c]);
  return r;
}
// [0, 8p) -> [0, p).
template <int D>
CUZK_IFMA_INLINE E<D> reduce8_e(const E<D>& x) {
  E<D> r;
  for (int c = 0; c < D; ++c) r.c[c] = cond_sub(cond_sub(cond_sub(x.c[c], kP4), kP2), kP);
  return r;
}

// Products. Fq2 by Karatsuba with lazy sums: for components below 9p the sums stay below 18p and
// every M product below 2p (18p * 18p / 2^416 < p), so c0 = v0 - v1 + 2p < 4p and
// c1 = s - v0 - v1 + 4p < 6p: Fq2 results have components < 6p, Fq results < 2p.
template <int D, int kLast = 52>
CUZK_IFMA_INLINE E<D> mul_e(const E<D>& a, const E<D>& b) {
  if constexpr (D == 1) {
    return E<1>{{mul<kLast>(a.c[0], b.c[0])}};
  } else {
    const V8 v0 = mul<kLast>(a.c[0], b.c[0]), v1 = mul<kLast>(a.c[1], b.c[1]);
    V8 sa = add_raw(a.c[0], a.c[1]), sb = add_raw(b.c[0], b.c[1]);
    carry_u(sa);
    carry_u(sb);
    const V8 s = mul<kLast>(sa, sb);
    E<2> r;
    r.c[0] = sub_plus(v0, v1, kP2);
    r.c[1] = sub_plus(s, add_raw(v0, v1), kP4);
    return r;
  }
}
// a^2: (a0 + a1)(a0 - a1) + 2 a0 a1 u for Fq2 (two M products); components < 4p.
template <int D>
CUZK_IFMA_INLINE E<D> sqr_e(const E<D>& a) {
  if constexpr (D == 1) {
    return E<1>{{sqr(a.c[0])}};
  } else {
    V8 s = add_raw(a.c[0], a.c[1]);
    carry_u(s);
    const V8 d = sub_plus(a.c[0], a.c[1], kP8);  // a1 < 8p
    const V8 m = mul(a.c[0], a.c[1]);
    E<2> r;
    r.c[0] = mul(s, d);
    r.c[1] = add_raw(m, m);
    carry_u(r.c[1]);
    return r;
  }
}
// Per step (8 additions, one per lane) of the batch: what the backward pass needs.
template <int D>
struct Step {
  Block den[D], pre[D], num[D], sx[D], qx[D], qy[D];
};
template <int D>
CUZK_IFMA_INLINE E<D> load_e(const Block (&b)[D]) {
  E<D> r;
  for (int c = 0; c < D; ++c) r.c[c] = load(b[c]);
  return r;
}
template <int D>
CUZK_IFMA_INLINE void store_e(Block (&b)[D], const E<D>& x) {
  for (int c = 0; c < D; ++c) store(b[c], x.c[c]);
}

// Padding lanes of the last step add a dummy point (1, 0) to a dummy bucket (0, 0): x differs,
// so the denominator is non-zero; their results are not stored. (24 words: room for Fq2.)
alignas(64) const uint64_t kDummyQ[24] = {};
const uint64_t* dummy_p() {
  static const auto d = [] {
    std::array<uint64_t, 24> a{};
    for (int w = 0; w < 6; ++w) a[w] = Fq::one().raw()[w];
    return a;
  }();
  return d.data();
}

// The bucket and the point of lane l = entry 8j + l (dummies past k) and the lanes with a negated
// point.
CUZK_IFMA_INLINE __mmask8 step_lanes(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k,
                                     size_t j, const uint64_t* (&qv)[8], const uint64_t* (&pv)[8]) {
  __mmask8 negm = 0;
  for (size_t l = 0; l < 8; ++l) {
    const size_t e = j * 8 + l;
    if (e < k) {
      qv[l] = q[e];
      pv[l] = p[e];
      negm |= static_cast<__mmask8>((neg[e] ? 1u : 0u) << l);
    } else {
      qv[l] = kDummyQ;
      pv[l] = dummy_p();
    }
  }
  return negm;
}

// The scalar part: the 8 lane products t[l] (raw integers T_l < p) are replaced by the raw
// integers T_l^-1 * 2^816 (see batch_add_impl), with one field inversion: from_raw(T) is the
// element T / 2^384, whose inverse times the element 2^48 has the raw form T^-1 * 2^816.
void invert_lanes(Fq (&t)[8]) {
  Fq prefix[8];
  Fq acc = Fq::one();
  for (int l = 0; l < 8; ++l) {
    prefix[l] = acc;
    acc *= t[l];
  }
  Fq inv = acc.inverse() * Fq::from_u64(uint64_t{1} << 48);
  for (int l = 8; l-- > 0;) {
    const Fq r = inv * prefix[l];
    inv *= t[l];
    t[l] = r;
  }
}

// The 8 lane values (raw integers X_l, normalised, < 8p) replaced by the raw integers
// X_l^-1 * 2^816 mod p (invert_lanes): a value of exponent e becomes one of exponent 816 - e.
CUZK_IFMA_INLINE V8 invert_vec(const V8& x) {
  alignas(64) uint64_t w[6][8];
  __m512i a[6];
  from52(reduce8_e<1>(E<1>{{x}}).c[0], a);
  for (int i = 0; i < 6; ++i) _mm512_store_si512(w[i], a[i]);
  Fq t[8];
  for (int l = 0; l < 8; ++l) t[l] = Fq::from_raw({w[0][l], w[1][l], w[2][l], w[3][l], w[4][l], w[5][l]});
  invert_lanes(t);
  for (int l = 0; l < 8; ++l) {
    for (int i = 0; i < 6; ++i) w[i][l] = t[l].raw()[i];
  }
  for (int i = 0; i < 6; ++i) a[i] = _mm512_load_si512(w[i]);
  return to52(a);
}

template <int D>
CUZK_IFMA void batch_add_impl(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k) {
  const size_t S = (k + 7) / 8;
  thread_local std::vector<Step<D> > steps;
  if (steps.size() < S) steps.resize(S);

  // Exponents (see the top): coordinates and their sums/differences carry 384.
  //
  // G1 (D = 1): the prefix product P_j = M(P_{j-1}, den_j) of lane l has exponent 384 - 32j.
  //
  // G2 (D = 2): the denominators are inverted through their norms, d^-1 = conj(d) / N(d) with
  // N(d) = d0^2 + d1^2 in Fq, so the prefix products and the running inverse are Fq values (one
  // Fq product each instead of an Fq2 one; with the two products that scale conj(d), 6.6 instead of
  // 9 Fq products per addition). N_j = M(d0, d0) + M(d1, d1) has exponent 352 (< 4p), the prefix
  // products P_j = M(P_{j-1}, N_j) exponent 352 - 64j. Stash: pre[0] = P_j, pre[1] = N_j.

  // Forward pass: load, denominators, numerators and the per-lane prefix products.
  V8 pre;
  for (size_t j = 0; j < S; ++j) {
    const uint64_t* qv[8];
    const uint64_t* pv[8];
    const __mmask8 negm = step_lanes(q, p, neg, k, j, qv, pv);
    E<D> qx, qy, px, py;
    load_points<D>(qv, qx, qy);
    load_points<D>(pv, px, py);
    // -P: y -> 2p - y (limb-wise; normalised by the carry pass below). Then
    // lambda = (py - qy) / (px - qx) covers both signs, as in the scalar code.
    for (int c = 0; c < D; ++c) {
      for (int i = 0; i < kL; ++i) {
        py.c[c].l[i] = _mm512_mask_sub_epi64(py.c[c].l[i], negm, bc(kP2.v[i]), py.c[c].l[i]);
      }
    }
    Step<D>& s = steps[j];
    const E<D> den = sub_plus_e(px, qx, kP2);  // (0, 3p)
    store_e(s.den, den);
    store_e(s.num, sub_plus_e(py, qy, kP2));  // (0, 4p)
    store_e(s.sx, add_raw_e(qx, px));         // < 2p, limbs < 2^53
    store_e(s.qx, qx);
    store_e(s.qy, qy);
    if constexpr (D == 1) {
      pre = j == 0 ? den.c[0] : mul(pre, den.c[0]);
      store(s.pre[0], pre);
    } else {
      V8 nrm = add_raw(sqr(den.c[0]), sqr(den.c[1]));
      carry_u(nrm);
      store(s.pre[1], nrm);
      pre = j == 0 ? nrm : mul(pre, nrm);
      store(s.pre[0], pre);
    }
  }

  // The 8 lane products T_l, inverted together in scalar code. With T of exponent e_T, the inverse
  // comes back with exponent 816 - e_T (invert_vec):
  //   G1: e_T = 384 - 32(S-1), so inv has 432 + 32(S-1);
  //   G2: e_T = 352 - 64(S-1), so inv has 464 + 64(S-1).
  V8 inv = invert_vec(pre);

  // Backward pass. G1: the running inverse at step j has exponent 432 + 32j; d_j^-1 =
  // M(inv, P_{j-1}) has exponent 432 + 32j + 384 - 32(j-1) - 416 = 432 (and inv itself at j = 0);
  // inv <- M(inv, den_j) lowers it by 32. G2: the running inverse at step j has exponent
  // 464 + 64j; N_j^-1 = M(inv, P_{j-1}) has 464 + 64j + 352 - 64(j-1) - 416 = 464, and
  // d_j^-1 = conj(d_j) N_j^-1 = (M(d0, N^-1), M(4p - d1, N^-1)) has 384 + 464 - 416 = 432 as for
  // G1; inv <- M(inv, N_j) lowers it by 64. Then
  //   lambda = M(num, d^-1)                  exponent 384 + 432 - 416 = 400
  //   x3 = M(lambda, lambda) - sx            exponent 384
  //   y3 = lambda * (qx - x3) / 2^400 - qy   exponent 400 + 384 - 400 = 384 (mul<36>).
  // Bounds (components): lambda, lambda^2 < 6p, x3 < 8p, qx - x3 + 8p < 9p, y3 < 8p.
  for (size_t j = S; j-- > 0;) {
    const Step<D>& s = steps[j];
    V8 dj = inv;  // 1/den_j (G1) or 1/N_j (G2)
    if (j > 0) {
      dj = mul(inv, load(steps[j - 1].pre[0]));
      inv = mul(inv, load(D == 1 ? s.den[0] : s.pre[D - 1]));
    }
    E<D> di;
    if constexpr (D == 1) {
      di.c[0] = dj;
    } else {
      const E<2> den = load_e(s.den);
      V8 zero;
      for (int i = 0; i < kL; ++i) zero.l[i] = _mm512_setzero_si512();
      di.c[0] = mul(den.c[0], dj);
      di.c[1] = mul(sub_plus(zero, den.c[1], kP4), dj);
    }
    const E<D> lambda = mul_e(load_e(s.num), di);
    const E<D> x3 = sub_plus_e(sqr_e(lambda), load_e(s.sx), kP2);
    const E<D> y3 = sub_plus_e(mul_e<D, 36>(lambda, sub_plus_e(load_e(s.qx), x3, kP8)), load_e(s.qy), kP2);
    store_points<D>(q, k, j, reduce8_e(x3), reduce8_e(y3));
  }
}

// Curve-equation checks, 8 points per step. With raw integers X = x * 2^384 and Y = y * 2^384:
//   M(M(Y, Y), R)    = y^2 * 2^320  (R = 2^384 mod p, the raw form of 1)
//   M(M(X, X), X)    = x^3 * 2^320
// so the point is on y^2 = x^3 + b iff x^3 * 2^320 + b * 2^320 - y^2 * 2^320 = 0 mod p. Bounds
// (components): squares < 4p, the Fq2 product < 6p, M(., R) < 2p; the difference taken as
// rhs + 2p - lhs is below 9p and reduced to [0, p) before the comparison with zero.
template <int D>
CUZK_IFMA void on_curve_impl(const uint64_t* const* p, size_t k, uint8_t* ok) {
  static const L52 one = split52(Fq::one().raw());
  // b * 2^320 as a raw integer: the element b / 2^64 (b = 4 for G1; 4 + 4u for G2, both
  // components 4).
  static const L52 b320 = split52((Fq::from_u64(4) * Fq::from_u64(uint64_t{1} << 32).square().inverse()).raw());
  V8 onev, bv;
  for (int i = 0; i < kL; ++i) {
    onev.l[i] = bc(one.v[i]);
    bv.l[i] = bc(b320.v[i]);
  }
  for (size_t j = 0; j < k; j += 8) {
    const uint64_t* pv[8];
    for (size_t l = 0; l < 8; ++l) pv[l] = p[j + l < k ? j + l : j];
    E<D> x, y;
    load_points<D>(pv, x, y);
    const E<D> yy = sqr_e(y);
    const E<D> xxx = mul_e(sqr_e(x), x);
    __m512i nz = _mm512_setzero_si512();
    for (int c = 0; c < D; ++c) {
      const V8 lhs = mul(yy.c[c], onev);
      V8 rhs = add_raw(xxx.c[c], bv);
      carry_u(rhs);
      const V8 d = cond_sub(cond_sub(cond_sub(cond_sub(sub_plus(rhs, lhs, kP2), kP8), kP4), kP2), kP);
      for (int i = 0; i < kL; ++i) nz = _mm512_or_si512(nz, d.l[i]);
    }
    const __mmask8 zero = _mm512_cmpeq_epi64_mask(nz, _mm512_setzero_si512());
    for (size_t l = 0; l < 8 && j + l < k; ++l) ok[j + l] = (zero >> l) & 1;
  }
}

CUZK_IFMA_INLINE V8 load6(const uint64_t (*x)[6]) {
  alignas(64) uint64_t w[6][8];
  for (int l = 0; l < 8; ++l)
    for (int i = 0; i < 6; ++i) w[i][l] = x[l][i];
  __m512i v[6];
  for (int i = 0; i < 6; ++i) v[i] = _mm512_load_si512(w[i]);
  return to52(v);
}

CUZK_IFMA void test_op_impl(int op, const uint64_t (*a)[6], const uint64_t (*b)[6], uint64_t (*r)[6]) {
  const V8 x = load6(a), y = load6(b);
  V8 z;
  switch (op) {
    case 0: {
      // M(M(a, b), 2^448) = a*b*2^(448 - 832) = a*b / 2^384. 2^448 mod p is the Fq element 2^64
      // in Montgomery form.
      const L52 c448 = split52((Fq::from_u64(uint64_t{1} << 32) * Fq::from_u64(uint64_t{1} << 32)).raw());
      V8 cv;
      for (int i = 0; i < kL; ++i) cv.l[i] = bc(c448.v[i]);
      z = cond_sub(mul(mul(x, y), cv), kP);
      break;
    }
    case 4: {
      // M(a*b / 2^400, 2^432) = a*b / 2^384; 2^432 mod p is the Fq element 2^48 in Montgomery form.
      const L52 c432 = split52(Fq::from_u64(uint64_t{1} << 48).raw());
      V8 cv;
      for (int i = 0; i < kL; ++i) cv.l[i] = bc(c432.v[i]);
      z = cond_sub(mul(mul<36>(x, y), cv), kP);
      break;
    }
    case 5: {
      // sqr(a) through the same conversion as op 0 (b is ignored).
      const L52 c448 = split52((Fq::from_u64(uint64_t{1} << 32) * Fq::from_u64(uint64_t{1} << 32)).raw());
      V8 cv;
      for (int i = 0; i < kL; ++i) cv.l[i] = bc(c448.v[i]);
      z = cond_sub(mul(sqr(x), cv), kP);
      break;
    }
    case 1: {
      V8 s = add_raw(x, y);
      carry_u(s);
      z = reduce4(s);
      break;
    }
    case 2:
      z = reduce4(sub_plus(x, y, kP2));
      break;
    default:
      z = x;
  }
  __m512i v[6];
  from52(z, v);
  alignas(64) uint64_t w[6][8];
  for (int i = 0; i < 6; ++i) _mm512_store_si512(w[i], v[i]);
  for (int l = 0; l < 8; ++l)
    for (int i = 0; i < 6; ++i) r[l][i] = w[i][l];
}

}  // namespace

// Large batches (the lane merge of the MSM passes up to ~10^5 pairs) run in chunks with an
// inversion each: the per-thread stash stays at most 1024/8 steps (384 KB for G1, 768 KB for G2,
// inside a core's L2), and an inversion per 1024 additions costs little.
constexpr size_t kMaxChunk = 1024;

void g1_batch_add(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k) {
  for (size_t o = 0; o < k; o += kMaxChunk) batch_add_impl<1>(q + o, p + o, neg + o, std::min(kMaxChunk, k - o));
}
void g2_batch_add(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k) {
  for (size_t o = 0; o < k; o += kMaxChunk) batch_add_impl<2>(q + o, p + o, neg + o, std::min(kMaxChunk, k - o));
}

void g1_on_curve(const uint64_t* const* p, size_t k, uint8_t* ok) {
  on_curve_impl<1>(p, k, ok);
}
void g2_on_curve(const uint64_t* const* p, size_t k, uint8_t* ok) {
  on_curve_impl<2>(p, k, ok);
}

void test_op(int op, const uint64_t (*a)[6], const uint64_t (*b)[6], uint64_t (*r)[6]) {
  test_op_impl(op, a, b, r);
}

#endif

}  // namespace cuzk::ec::fq_ifma
