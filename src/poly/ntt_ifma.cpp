// AVX-512 IFMA kernels for the four-step NTT passes (see domain.cpp for the decomposition).
//
// The Fr arithmetic on 8 lanes is ff/fr_ifma.hpp (radix 2^52, Montgomery factor 2^260, values
// normalised and lazily reduced in [0, 2p)): 8 butterflies of 8 adjacent columns run side by side
// and share each twiddle, which is exactly the [rows][8 columns] block layout of the four-step
// passes; about 4x the throughput of the scalar mulx routine on Zen 4. Constant operands
// (twiddles, scalings) are fully reduced. Elements are fully reduced to [0, p) when they leave the
// block, so the results are bit-identical to the scalar kernels.
//
// Only the functions marked CUZK_IFMA contain AVX-512 code; the translation unit is compiled for the
// baseline ISA and the entry points are only called after ifma_cpu_supported().
#include "poly/ntt_arith.hpp"
#include "poly/ntt_plan.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "ff/fr_ifma.hpp"

// GCC 12 reports its own _mm512_undefined_epi32() (inside the shift intrinsics) as maybe-uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace cuzk::poly::detail {

namespace {

using ff::ifma52::kLanes;
constexpr size_t kRowWords = 5 * kLanes;  // uint64 words per buffer row (5 limb vectors)
using namespace ff::ifma52;

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
  return ff::ifma52::cpu_supported();
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
