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

// 1: operator* is the plain CIOS loop (the first version); 0 (default): the even/odd-word form.
#ifndef CUZK_GPU_MUL_CIOS
#define CUZK_GPU_MUL_CIOS 0
#endif

namespace cuzk::gpu {

template <class P>
struct MontField {
  using Params = P;
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

  // Montgomery multiplication, a * b / R mod p, fully reduced. Both forms below give the same
  // words for inputs below p; CUZK_GPU_MUL_CIOS=1 at compile time makes operator* the plain CIOS
  // (the first version, kept to compare against: bench/gpu/field_mul_bench.cu times both).
  __device__ __forceinline__ friend MontField operator*(const MontField& a, const MontField& b) {
#if CUZK_GPU_MUL_CIOS
    return mul_cios(a, b);
#else
    return mul_even_odd(a, b);
#endif
  }

  // CIOS Montgomery multiplication: per word of b, two carry chains add the low and the high
  // halves of a*b[i] into t, then two more add m*p, which zeroes t[0]; t shifts down one word.
  // t < 2p throughout thanks to the spare top bit; one conditional subtraction finishes.
  __device__ __forceinline__ static MontField mul_cios(const MontField& a, const MontField& b) {
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

  // The same Montgomery product with the partial sums kept in two N-word accumulators, one for
  // the even-indexed words of a (and of p), one for the odd ones. Each product x*s of two words
  // then lands on a word pair (2k, 2k+1) of one accumulator, so the low and high halves sit next
  // to each other in a single carry chain (mad.lo.cc / madc.hi.cc on adjacent words: one 64-bit
  // multiply-add each), where the CIOS above runs the halves in separate chains and spends extra
  // additions on the top words after every chain.
  //
  // Invariant after the reduction of round i: T_i * W = u + v * W (W = 2^32) with u[0] = 0, where
  // T_i is the CIOS value (T_i < 2p for a, b < p), u the accumulator aligned at word 0 and v the one
  // aligned at word 1. Every carry out of u's top word is moved into v[N-1] (same weight), so u is
  // exact in N words, and v (every partial sum of it too: all terms are non-negative) stays below
  // W^N because v * W <= T_i * W = T_(i-1) + a * b_i + m * p < 2p * W and 2p < W^N (spare top
  // bit). The next round divides by W by renaming: T_i = u[1] + (u >> 2 words) * W + v, so the next
  // word-0 accumulator is v with u[1] added to its low word, and the next word-1 accumulator is u
  // shifted down two words, with that addition's carry entering its low word.
  __device__ __forceinline__ static MontField mul_even_odd(const MontField& a, const MontField& b) {
    return even_odd_rounds<1>({a}, {b});
  }

  // a * b + c * d (Montgomery, fully reduced) with one reduction for both products: the even/odd
  // rounds above with c * d[i] added beside a * b[i] before each round's reduction, 3 of the 4
  // half-multiplications that two products and an addition cost. The invariant's bound becomes
  // T_i < 4p (T_i W = T_(i-1) + a b_i + c d_i + m p), so it needs 4p < W^N: two spare top bits
  // (Fq has three, Fr one). The result T_N < (2p^2 + W^N p) / W^N < 2p, so one subtraction ends.
  __device__ __forceinline__ static MontField dot2(const MontField& a, const MontField& b, const MontField& c,
                                                   const MontField& d) {
    return dot<2>({a, c}, {b, d});
  }
  // sum_k a[k] * b[k] with one reduction: the bound becomes T_i < (K + 2) p, so (K + 2) p < W^N
  // (Fq: K <= 4); the result stays below (K p / W^N + 1) p < 2p.
  template <int K>
  __device__ __forceinline__ static MontField dot(const MontField (&a)[K], const MontField (&b)[K]) {
    static_assert(K >= 2 && (uint64_t{P::mod(N - 1)} + 1) * (K + 2) <= (uint64_t{1} << 32),
                  "dot keeps its sums below (K + 2) p < 2^(32N)");
    return even_odd_rounds<K>(a, b);
  }

 private:
  // The even/odd rounds of mul_even_odd; with kDot, c * d[i] is added beside a * b[i] before each
  // round's reduction (dot2).
  template <int K>
  __device__ __forceinline__ static MontField even_odd_rounds(const MontField (&aa)[K], const MontField (&bb)[K]) {
    static_assert(N % 2 == 0 && N >= 4, "even/odd multiplication needs an even word count");
    uint32_t e[N], o[N], p[N];
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = P::mod(i);
      // Round 0: plain products, no carries (the halves of distinct products are distinct words).
#pragma unroll
    for (int k = 0; k < N; k += 2) {
      e[k] = ptx::mul_lo(aa[0].w[k], bb[0].w[0]);
      e[k + 1] = ptx::mul_hi(aa[0].w[k], bb[0].w[0]);
      o[k] = ptx::mul_lo(aa[0].w[k + 1], bb[0].w[0]);
      o[k + 1] = ptx::mul_hi(aa[0].w[k + 1], bb[0].w[0]);
    }
#pragma unroll
    for (int t = 1; t < K; ++t) add_product(e, o, aa[t].w, bb[t].w[0]);
    reduce_round(e, o, p);
    // Rounds 1..N-1 alternate the roles of e and o (N is even, so round N-1 leaves u in o).
#pragma unroll
    for (int i = 1; i < N; i += 2) {
      mul_round(e, o, aa[0].w, bb[0].w[i]);
#pragma unroll
      for (int t = 1; t < K; ++t) add_product(o, e, aa[t].w, bb[t].w[i]);
      reduce_round(o, e, p);
      if (i + 1 < N) {
        mul_round(o, e, aa[0].w, bb[0].w[i + 1]);
#pragma unroll
        for (int t = 1; t < K; ++t) add_product(e, o, aa[t].w, bb[t].w[i + 1]);
        reduce_round(e, o, p);
      }
    }
    // T = o / W + e (o[0] = 0): add o's words 1..N-1 to e's words 0..N-2; T < 2p < W^N.
    MontField r;
    r.w[0] = ptx::add_cc(e[0], o[1]);
#pragma unroll
    for (int i = 1; i < N - 1; ++i) r.w[i] = ptx::addc_cc(e[i], o[i + 1]);
    r.w[N - 1] = ptx::addc(e[N - 1], 0);
    reduce_once(r.w);
    return r;
  }

  // lo (the word-0 accumulator) and hi (the word-1 one) += x * s: the even words of x into lo,
  // its top carry into hi's top word (same weight), the odd words into hi (no carry out: hi stays
  // below W^N by the invariant).
  __device__ __forceinline__ static void add_product(uint32_t (&lo)[N], uint32_t (&hi)[N], const uint32_t (&x)[N],
                                                     uint32_t s) {
    mad_pairs<0>(lo, x, s);
    hi[N - 1] = ptx::addc(hi[N - 1], 0);
    mad_pairs<1>(hi, x, s);
  }

  // acc += sum_k x[2k + OFF] * s * W^(2k): one carry chain, opened here; the carry out of
  // acc[N-1] is left in the flag for the caller.
  template <int OFF>
  __device__ __forceinline__ static void mad_pairs(uint32_t (&acc)[N], const uint32_t (&x)[N], uint32_t s) {
    acc[0] = ptx::mad_lo_cc(x[OFF], s, acc[0]);
    acc[1] = ptx::madc_hi_cc(x[OFF], s, acc[1]);
#pragma unroll
    for (int k = 2; k < N; k += 2) {
      acc[k] = ptx::madc_lo_cc(x[k + OFF], s, acc[k]);
      acc[k + 1] = ptx::madc_hi_cc(x[k + OFF], s, acc[k + 1]);
    }
  }

  // The multiplication half of a round for word bi, from the pair (u, v) of the invariant above:
  // on return v is the word-0 accumulator and u the word-1 one, with a * bi added.
  __device__ __forceinline__ static void mul_round(uint32_t (&u)[N], uint32_t (&v)[N], const uint32_t (&a)[N],
                                                   uint32_t bi) {
    v[0] = ptx::add_cc(v[0], u[1]);
    // u = (u >> 2 words) + carry + odd words of a times bi; fits in N words (see the invariant).
#pragma unroll
    for (int k = 0; k < N - 2; k += 2) {
      u[k] = ptx::madc_lo_cc(a[k + 1], bi, u[k + 2]);
      u[k + 1] = ptx::madc_hi_cc(a[k + 1], bi, u[k + 3]);
    }
    u[N - 2] = ptx::madc_lo_cc(a[N - 1], bi, 0);
    u[N - 1] = ptx::madc_hi(a[N - 1], bi, 0);
    mad_pairs<0>(v, a, bi);
    u[N - 1] = ptx::addc(u[N - 1], 0);
  }

  // The reduction half: lo is the word-0 accumulator, hi the word-1 one. Adds m * p with
  // m = lo[0] * -p^-1 mod W, which zeroes lo[0].
  __device__ __forceinline__ static void reduce_round(uint32_t (&lo)[N], uint32_t (&hi)[N], const uint32_t (&p)[N]) {
    const uint32_t m = lo[0] * P::INV;
    mad_pairs<1>(hi, p, m);  // no carry out: hi < W^N (the invariant)
    mad_pairs<0>(lo, p, m);
    hi[N - 1] = ptx::addc(hi[N - 1], 0);
  }

 public:
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
