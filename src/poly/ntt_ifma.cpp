// AVX-512 IFMA kernels for the four-step NTT passes (see domain.cpp for the decomposition).
//
// One 512-bit register holds the same limb of 8 field elements; an element is 5 limbs of 52 bits
// (radix 2^52), so 8 butterflies of 8 adjacent columns run side by side and share each twiddle,
// which is exactly the [rows][8 columns] block layout of the four-step passes. vpmadd52{lo,hi}uq
// multiply 52x52-bit limbs; a Montgomery product (factor 2^260, operand scanning) costs 55 of each
// for 8 products, about 4x the throughput of the scalar mulx routine on Zen 4.
//
// Values in the block buffer are kept normalised (every limb < 2^52) and in [0, 2p) (lazy
// reduction): a Montgomery product of operands below 2p is below 4p^2/2^260 + p < 2p (2p < 2^256),
// the sum x + y gets one conditional subtraction of 2p, and the difference feeding a multiplication
// is x - y + 2p in (0, 4p), which the product accepts as well (4p * 2p / 2^260 + p < 2p). Constant
// operands (twiddles, scalings) are fully reduced. Elements
// are fully reduced to [0, p) when they leave the block, so the results are bit-identical to the
// scalar kernels.
//
// Only the functions marked CUZK_IFMA contain AVX-512 code; the translation unit is compiled for the
// baseline ISA and the entry points are only called after ifma_cpu_supported().
#include "poly/ntt_arith.hpp"
#include "poly/ntt_plan.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

// GCC 12 reports its own _mm512_undefined_epi32() (inside the shift intrinsics) as maybe-uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define CUZK_IFMA __attribute__((target("avx512f,avx512ifma")))
#define CUZK_IFMA_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline

namespace cuzk::poly::detail {

namespace {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;
constexpr size_t kLanes = 8;
constexpr size_t kRowWords = 5 * kLanes;  // uint64 words per buffer row (5 limb vectors)

struct Limbs52 {
  uint64_t v[5];
};

constexpr Limbs52 split52(const ff::Limbs<4>& a) {
  return {{a[0] & kMask52, ((a[0] >> 52) | (a[1] << 12)) & kMask52, ((a[1] >> 40) | (a[2] << 24)) & kMask52,
           ((a[2] >> 28) | (a[3] << 36)) & kMask52, a[3] >> 16}};
}

constexpr ff::Limbs<4> twice(const ff::Limbs<4>& a) {
  ff::Limbs<4> r = a;
  ff::add_limbs(r, a, a);  // 2p < 2^256
  return r;
}

constexpr Limbs52 kP = split52(Fr::MOD);
constexpr Limbs52 kP2 = split52(twice(Fr::MOD));
constexpr uint64_t kPinv52 = Fr::INV & kMask52;  // -p^-1 mod 2^52

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

// (x + y) reduced into [0, 2p), for x, y in [0, 2p).
CUZK_IFMA_INLINE V5 add_red(const V5& x, const V5& y) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(_mm512_add_epi64(x.l[i], y.l[i]), bc(kP2.v[i]));
  carry_s(d);
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_mask_add_epi64(d.l[i], neg, d.l[i], bc(kP2.v[i]));
  carry_u(d);
  return d;
}

// (x - y) reduced into [0, 2p), for x, y in [0, 2p).
CUZK_IFMA_INLINE V5 sub_red(const V5& x, const V5& y) {
  V5 d;
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(x.l[i], y.l[i]);
  carry_s(d);
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (int i = 0; i < 5; ++i) d.l[i] = _mm512_mask_add_epi64(d.l[i], neg, d.l[i], bc(kP2.v[i]));
  carry_u(d);
  return d;
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

// 8 consecutive Fr (canonical Montgomery limbs) -> V5.
CUZK_IFMA_INLINE V5 load8(const Fr* src) {
  const uint64_t* s = limbs(src);
  __m512i l0, l1, l2, l3;
  transpose_in(_mm512_loadu_si512(s), _mm512_loadu_si512(s + 8), _mm512_loadu_si512(s + 16), _mm512_loadu_si512(s + 24),
               l0, l1, l2, l3);
  return to52(l0, l1, l2, l3);
}
// V5 in [0, p) -> 8 consecutive Fr.
CUZK_IFMA_INLINE void store8(Fr* dst, const V5& v) {
  uint64_t* d = limbs(dst);
  __m512i l0, l1, l2, l3, z0, z1, z2, z3;
  to64(v, l0, l1, l2, l3);
  transpose_out(l0, l1, l2, l3, z0, z1, z2, z3);
  _mm512_storeu_si512(d, z0);
  _mm512_storeu_si512(d + 8, z1);
  _mm512_storeu_si512(d + 16, z2);
  _mm512_storeu_si512(d + 24, z3);
}
// V5 in [0, p) -> lane e written to dst[e * stride] (8 elements in 8 different rows).
CUZK_IFMA_INLINE void store8_strided(Fr* dst, size_t stride, const V5& v) {
  __m512i l0, l1, l2, l3, z[4];
  to64(v, l0, l1, l2, l3);
  transpose_out(l0, l1, l2, l3, z[0], z[1], z[2], z[3]);
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(limbs(dst + (2 * k) * stride)), _mm512_castsi512_si256(z[k]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(limbs(dst + (2 * k + 1) * stride)),
                        _mm512_extracti64x4_epi64(z[k], 1));
  }
}

CUZK_IFMA_INLINE V5 broadcast_scalar(const Fr& c) {
  uint64_t l[5];
  to_limbs52_times16(l, c);
  return broadcast5(l);
}

// 8 interleaved DIF transforms of size m on buf ([m] rows of 5 limb vectors); natural order in,
// bit-reversed out; values in [0, 2p) throughout.
CUZK_IFMA void dif8(uint64_t* buf, const SubPlan& sp, int dir) {
  const size_t m = sp.m;
  const uint64_t* tws = sp.tw52[dir].data();
  for (size_t h = m / 2; h >= 1; h /= 2) {
    const uint64_t* tw = tws + (h - 1) * 5;
    const size_t hs = h * kRowWords;
    for (size_t base = 0; base < m; base += 2 * h) {
      uint64_t* x0 = buf + base * kRowWords;
      {
        const V5 x = load_row(x0), y = load_row(x0 + hs);
        store_row(x0, add_red(x, y));
        store_row(x0 + hs, sub_red(x, y));
      }
      for (size_t j = 1; j < h; ++j) {
        uint64_t* px = x0 + j * kRowWords;
        const V5 w = broadcast5(tw + j * 5);
        const V5 x = load_row(px), y = load_row(px + hs);
        store_row(px, add_red(x, y));
        store_row(px + hs, mont_mul(sub_lazy(x, y), w));
      }
    }
  }
}

// The rows of a block are far apart in memory (one per n1 or n2 elements), which the hardware
// prefetchers do not follow: fetch the 4 cache lines of the row kPrefetchRows ahead.
constexpr size_t kPrefetchRows = 8;
inline void prefetch_block(const Fr* p) {
  const char* c = reinterpret_cast<const char*>(p);
  for (int i = 0; i < 4; ++i) _mm_prefetch(c + 64 * i, _MM_HINT_T0);
}

uint64_t* block_buffer(size_t rows) {
  // kRowWords words per row = 10 Fr-sized slots; FrBuffer is 64-byte aligned.
  return limbs(local_buffer(rows * (kRowWords / 4)));
}

// Rows of a pass-scaling table (FourStepScales::row_pre / row_post) in the 2^260 Montgomery form.
std::vector<uint64_t> rows52(const std::vector<Fr>& rows) {
  std::vector<uint64_t> out(rows.size() * 5);
  for (size_t i = 0; i < rows.size(); ++i) to_limbs52_times16(&out[i * 5], rows[i]);
  return out;
}

// The lanes e < 8 of a per-column value f(c0 + e), as a V5 in the 2^260 Montgomery form.
template <class F>
CUZK_IFMA_INLINE V5 lanes_of(size_t c0, F f) {
  alignas(64) uint64_t w[5][kLanes];
  for (size_t e = 0; e < kLanes; ++e) {
    uint64_t l[5];
    to_limbs52_times16(l, f(c0 + e));
    for (int i = 0; i < 5; ++i) w[i][e] = l[i];
  }
  return load_lanes(&w[0][0], kLanes);
}

CUZK_IFMA void pass1_block8(const Fr* x, Fr* s, size_t c0, const DomainPlan& p, int dir, const FourStepScales& fs,
                            const uint64_t* row_pre52) {
  const size_t n1 = p.n1, n2 = p.n2;
  uint64_t* buf = block_buffer(n1);
  const Fr* src = x + c0;
  for (size_t j1 = 0; j1 < n1; ++j1) {
    if (j1 + kPrefetchRows < n1) prefetch_block(src + (j1 + kPrefetchRows) * n2);
    V5 v = load8(src + j1 * n2);
    if (row_pre52) v = mont_mul(v, broadcast5(row_pre52 + j1 * 5));
    store_row(buf + j1 * kRowWords, v);
  }

  dif8(buf, *p.sub1, dir);

  // Twiddles by a running product per lane (column); un-permute into rows of s.
  const uint32_t* rev = p.sub1->rev.data();
  V5 t, step;
  if (fs.has_pre || fs.has_post) {
    t = lanes_of(c0, [&](size_t j2) { return fs.col_start(j2); });
    step = lanes_of(c0, [&](size_t j2) { return fs.col_step(p, dir, j2); });
  } else {
    t = broadcast_scalar(fs.c);
    step = load_lanes(p.col_base52[dir].data() + c0, n2);
  }
  Fr* dst = s + c0 * n1;
  for (size_t k1 = 0; k1 < n1; ++k1) {
    const V5 v = mont_mul(load_row(buf + static_cast<size_t>(rev[k1]) * kRowWords), t);
    t = mont_mul(t, step);
    store8_strided(dst + k1, n1, reduce_p(v));
  }
}

CUZK_IFMA void pass2_block8(Fr* x, const Fr* s, size_t c0, const DomainPlan& p, int dir, const uint64_t* row_post52) {
  const size_t n1 = p.n1, n2 = p.n2;
  uint64_t* buf = block_buffer(n2);
  for (size_t j2 = 0; j2 < n2; ++j2) {
    if (j2 + kPrefetchRows < n2) prefetch_block(s + (j2 + kPrefetchRows) * n1 + c0);
    store_row(buf + j2 * kRowWords, load8(s + j2 * n1 + c0));
  }

  dif8(buf, *p.sub2, dir);

  const uint32_t* rev = p.sub2->rev.data();
  Fr* dst = x + c0;
  for (size_t k2 = 0; k2 < n2; ++k2) {
    V5 v = load_row(buf + static_cast<size_t>(rev[k2]) * kRowWords);
    if (row_post52) v = mont_mul(v, broadcast5(row_post52 + k2 * 5));
    store8(dst + k2 * n1, reduce_p(v));
  }
}

}  // namespace

bool ifma_cpu_supported() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
}

void ifma_pass1(const Fr* x, Fr* s, const DomainPlan& p, int dir, const FourStepScales& fs, ThreadPool& pool) {
  const std::vector<uint64_t> pre52 = rows52(fs.row_pre);
  const uint64_t* pre = fs.has_pre ? pre52.data() : nullptr;
  pool.parallel_for(p.n2 / kLanes, [&](size_t blk) { pass1_block8(x, s, blk * kLanes, p, dir, fs, pre); });
}

void ifma_pass2(Fr* x, const Fr* s, const DomainPlan& p, int dir, const FourStepScales& fs, ThreadPool& pool) {
  const std::vector<uint64_t> post52 = rows52(fs.row_post);
  const uint64_t* post = fs.has_post ? post52.data() : nullptr;
  pool.parallel_for(p.n1 / kLanes, [&](size_t blk) { pass2_block8(x, s, blk * kLanes, p, dir, post); });
}

}  // namespace cuzk::poly::detail

#else  // not x86-64 GCC/Clang: no IFMA kernels

namespace cuzk::poly::detail {
bool ifma_cpu_supported() {
  return false;
}
void ifma_pass1(const Fr*, Fr*, const DomainPlan&, int, const FourStepScales&, ThreadPool&) {}
void ifma_pass2(Fr*, const Fr*, const DomainPlan&, int, const FourStepScales&, ThreadPool&) {}
}  // namespace cuzk::poly::detail

#endif
