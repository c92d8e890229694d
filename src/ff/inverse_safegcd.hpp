#pragma once
// Modular inversion by Bernstein-Yang divsteps ("safegcd", eprint 2019/266), in a variable-time
// form: the inverse of public values (MSM bucket sums, batch products) in a few microseconds
// instead of the bit-by-bit binary extended Euclid.
//
// The algorithm, in brief. With f = m (odd), g = x and delta = 1, one divstep is
//   delta > 0 and g odd:  (delta, f, g) <- (1 - delta, g, (g - f) / 2)
//   g odd otherwise:      (delta, f, g) <- (1 + delta, f, (g + f) / 2)
//   g even:               (delta, f, g) <- (1 + delta, f, g / 2)
// f stays odd, and g reaches 0 after at most ~2.9 * bits steps, when f = +-gcd(m, x) = +-1. The
// decisions of k steps depend only on the low k bits of f and g, so they are taken 62 at a time
// on one machine word, which yields an integer matrix T with 2^62 (f', g') = T (f, g) and entries
// of at most 62 bits; T is then applied to the full-width f and g. Alongside, d and e with
// d x = f and e x = g (mod m) are updated by the same matrix and a division by 2^62 mod m
// (Montgomery style: add the multiple of m that clears the low 62 bits, then shift). At the end
// x^-1 = +-d.
//
// Numbers are kept as L limbs of 62 bits in int64 (the top limb signed, the others in [0, 2^62)),
// so that the signed matrix products accumulate in __int128 without overflow.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ff/limbs.hpp"

namespace cuzk::ff::safegcd {

using i128 = __int128;
inline constexpr uint64_t kMask62 = (uint64_t{1} << 62) - 1;

// N 64-bit limbs as L signed 62-bit limbs (value = sum v[i] 2^(62 i)).
template <size_t N>
struct S62 {
  static constexpr size_t L = (64 * N) / 62 + 1;
  int64_t v[L];
};

template <size_t N>
S62<N> to_s62(const Limbs<N>& a) {
  S62<N> r{};
  for (size_t i = 0; i < S62<N>::L; ++i) {
    const size_t bit = 62 * i, w = bit / 64, off = bit % 64;
    uint64_t x = w < N ? a[w] >> off : 0;
    if (off > 2 && w + 1 < N) x |= a[w + 1] << (64 - off);
    r.v[i] = static_cast<int64_t>(x & kMask62);
  }
  return r;
}

// For 0 <= a < 2^(64N), limbs normalised.
template <size_t N>
Limbs<N> from_s62(const S62<N>& a) {
  Limbs<N> r{};
  for (size_t i = 0; i < S62<N>::L; ++i) {
    const uint64_t x = static_cast<uint64_t>(a.v[i]);
    const size_t bit = 62 * i, w = bit / 64, off = bit % 64;
    if (w < N) r[w] |= x << off;
    if (off > 2 && w + 1 < N) r[w + 1] |= x >> (64 - off);
  }
  return r;
}

// Carries every limb into [0, 2^62) except the top one, which keeps the sign.
template <size_t N>
void normalise(S62<N>& a) {
  for (size_t i = 0; i + 1 < S62<N>::L; ++i) {
    a.v[i + 1] += a.v[i] >> 62;  // arithmetic shift: floor division
    a.v[i] = static_cast<int64_t>(static_cast<uint64_t>(a.v[i]) & kMask62);
  }
}

template <size_t N>
bool is_negative(const S62<N>& a) {  // a normalised
  return a.v[S62<N>::L - 1] < 0;
}

template <size_t N>
void add(S62<N>& a, const S62<N>& b) {
  for (size_t i = 0; i < S62<N>::L; ++i) a.v[i] += b.v[i];
  normalise(a);
}
template <size_t N>
void sub(S62<N>& a, const S62<N>& b) {
  for (size_t i = 0; i < S62<N>::L; ++i) a.v[i] -= b.v[i];
  normalise(a);
}

// 2^62 (f, g) = T (f_in, g_in) after 62 divsteps.
struct Matrix {
  int64_t u, v, q, r;
};

// 62 divsteps on the low words of f and g (f odd); returns the new delta. Runs of even g are
// skipped in one go (count of trailing zeros). The matrix is kept in wrapping unsigned arithmetic:
// its true entries are at most 2^62 in magnitude, so the final two's-complement values are exact.
inline int64_t divsteps62(int64_t delta, uint64_t f, uint64_t g, Matrix& t) {
  uint64_t u = 1, v = 0, q = 0, r = 1;
  int left = 62;
  for (;;) {
    const int z = std::countr_zero(g | (uint64_t{1} << left));  // <= left
    g >>= z;
    u <<= z;
    v <<= z;
    delta += z;
    left -= z;
    if (left == 0) break;
    // g is odd.
    if (delta > 0) {
      const uint64_t nf = g;
      g = (g - f) >> 1;
      f = nf;
      const uint64_t nu = q << 1, nv = r << 1;
      q -= u;
      r -= v;
      u = nu;
      v = nv;
      delta = 1 - delta;
    } else {
      g = (g + f) >> 1;
      q += u;
      r += v;
      u <<= 1;
      v <<= 1;
      delta = 1 + delta;
    }
    --left;
  }
  t = Matrix{static_cast<int64_t>(u), static_cast<int64_t>(v), static_cast<int64_t>(q), static_cast<int64_t>(r)};
  return delta;
}

// (f, g) <- T (f, g) / 2^62 (exact: the low 62 bits of both products vanish).
template <size_t N>
void update_fg(S62<N>& f, S62<N>& g, const Matrix& t) {
  constexpr size_t L = S62<N>::L;
  i128 cf = i128{t.u} * f.v[0] + i128{t.v} * g.v[0];
  i128 cg = i128{t.q} * f.v[0] + i128{t.r} * g.v[0];
  cf >>= 62;
  cg >>= 62;
  for (size_t i = 1; i < L; ++i) {
    cf += i128{t.u} * f.v[i] + i128{t.v} * g.v[i];
    cg += i128{t.q} * f.v[i] + i128{t.r} * g.v[i];
    f.v[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(cf) & kMask62);
    g.v[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(cg) & kMask62);
    cf >>= 62;
    cg >>= 62;
  }
  f.v[L - 1] = static_cast<int64_t>(cf);
  g.v[L - 1] = static_cast<int64_t>(cg);
}

// (d, e) <- T (d, e) / 2^62 mod m, for d, e in [0, m); results in [0, m) again. minv = m^-1 mod
// 2^64. The added multiple k m (0 <= k < 2^62) clears the low 62 bits; |T (d, e)| <= 2^62 m, so
// the quotient lies in (-m, 2m) and one correction normalises it.
template <size_t N>
void update_de(S62<N>& d, S62<N>& e, const Matrix& t, const S62<N>& m, uint64_t minv) {
  constexpr size_t L = S62<N>::L;
  const uint64_t lo_d = static_cast<uint64_t>(t.u) * static_cast<uint64_t>(d.v[0]) +
                        static_cast<uint64_t>(t.v) * static_cast<uint64_t>(e.v[0]);
  const uint64_t lo_e = static_cast<uint64_t>(t.q) * static_cast<uint64_t>(d.v[0]) +
                        static_cast<uint64_t>(t.r) * static_cast<uint64_t>(e.v[0]);
  const int64_t kd = static_cast<int64_t>((0 - lo_d * minv) & kMask62);
  const int64_t ke = static_cast<int64_t>((0 - lo_e * minv) & kMask62);
  i128 cd = i128{t.u} * d.v[0] + i128{t.v} * e.v[0] + i128{kd} * m.v[0];
  i128 ce = i128{t.q} * d.v[0] + i128{t.r} * e.v[0] + i128{ke} * m.v[0];
  cd >>= 62;
  ce >>= 62;
  for (size_t i = 1; i < L; ++i) {
    cd += i128{t.u} * d.v[i] + i128{t.v} * e.v[i] + i128{kd} * m.v[i];
    ce += i128{t.q} * d.v[i] + i128{t.r} * e.v[i] + i128{ke} * m.v[i];
    d.v[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(cd) & kMask62);
    e.v[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(ce) & kMask62);
    cd >>= 62;
    ce >>= 62;
  }
  d.v[L - 1] = static_cast<int64_t>(cd);
  e.v[L - 1] = static_cast<int64_t>(ce);
  for (S62<N>* x : {&d, &e}) {
    if (is_negative(*x)) {
      add(*x, m);
    } else {
      S62<N> y = *x;
      sub(y, m);
      if (!is_negative(y)) *x = y;
    }
  }
}

template <size_t N>
bool is_zero(const S62<N>& a) {
  int64_t acc = 0;
  for (size_t i = 0; i < S62<N>::L; ++i) acc |= a.v[i];
  return acc == 0;
}

// x^-1 mod m for an odd modulus m < 2^(64N - 2) and 0 < x < m with gcd(x, m) = 1; minv = m^-1
// mod 2^64. nullopt when the gcd is not 1 (or, which the bound excludes, g has not reached 0
// after kMaxRounds rounds of 62 divsteps).
template <size_t N>
std::optional<Limbs<N>> inverse(const Limbs<N>& x, const Limbs<N>& m, uint64_t minv) {
  // At most ~2.9 * 64N divsteps are needed (Bernstein-Yang's bound: (49 d + 57) / 17 for d-bit
  // inputs); kMaxRounds leaves ample room.
  constexpr int kMaxRounds = static_cast<int>((3 * 64 * N) / 62 + 4);
  const S62<N> ms = to_s62(m);
  S62<N> f = ms, g = to_s62(x), d{}, e{};
  e.v[0] = 1;
  int64_t delta = 1;
  for (int round = 0; round < kMaxRounds && !is_zero(g); ++round) {
    Matrix t;
    delta = divsteps62(delta, static_cast<uint64_t>(f.v[0]) | (static_cast<uint64_t>(f.v[1]) << 62),
                       static_cast<uint64_t>(g.v[0]) | (static_cast<uint64_t>(g.v[1]) << 62), t);
    update_fg(f, g, t);
    update_de(d, e, t, ms, minv);
  }
  if (!is_zero(g)) return std::nullopt;
  // f = +-gcd: d x = f (mod m).
  S62<N> one{};
  one.v[0] = 1;
  S62<N> minus_one{};
  sub(minus_one, one);
  bool neg = false;
  {
    S62<N> t = f;
    sub(t, one);
    if (!is_zero(t)) {
      t = f;
      sub(t, minus_one);
      if (!is_zero(t)) return std::nullopt;  // gcd != 1
      neg = true;
    }
  }
  if (neg && !is_zero(d)) {
    S62<N> r = ms;
    sub(r, d);
    d = r;
  }
  return from_s62(d);
}

}  // namespace cuzk::ff::safegcd
