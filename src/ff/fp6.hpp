#pragma once
// Cubic extension Fp6 = Fp2[v]/(v^3 - xi) over a quadratic extension Fp2 = Fp[u]/(u^2 + 1), where
// xi is the sextic non-residue that Fp2::mul_by_xi multiplies by (xi = 1 + u for BLS12-381, the
// tower of zkcrypto/bls12_381, blst and @noble/curves). Elements are c0 + c1*v + c2*v^2.
//
// Formulas: Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and Squaring on
// Pairing-Friendly Fields" (ePrint 2006/471): Karatsuba multiplication (Section 4) and the
// Chung-Hasan squaring CH-SQR2; inversion by the adjugate ("Implementing cryptographic pairings",
// Scott 2007, Section 3.2).
//
// Frobenius coefficients are not hard-coded: they are computed once, on first use, from xi:
//   v^(p^k) = xi^((p^k - 1)/3) * v, so x^(p^k) = c0^(p^k) + c1^(p^k) g1[k] v + c2^(p^k) g2[k] v^2
// with g1[k] = xi^((p^k - 1)/3) and g2[k] = g1[k]^2 = xi^(2(p^k - 1)/3). Because
// (p^k - 1)/d = p * (p^(k-1) - 1)/d + (p - 1)/d, every g[k] follows from g[1] = xi^((p-1)/d) by
// g[k] = g[k-1]^p * g[1] (the p-power map of Fp2 is its conjugation); tests compare them with the
// direct exponentiation.
#include <array>
#include <cstdint>

#include "ff/fp2.hpp"

namespace cuzk::ff {

namespace detail {

// floor(a / d) for a small divisor d (long division from the top limb).
template <size_t N>
constexpr Limbs<N> div_small(const Limbs<N>& a, uint64_t d) {
  Limbs<N> q{};
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a[i];
    q[i] = static_cast<uint64_t>(cur / d);
    rem = cur % d;
  }
  return q;
}

// (p - 1) / d for the (odd) modulus of the prime field F; d must divide p - 1.
template <class F>
constexpr Limbs<F::N> p_minus_1_over(uint64_t d) {
  Limbs<F::N> pm1 = F::MOD;
  pm1[0] -= 1;  // p is odd: no borrow
  return div_small(pm1, d);
}

// Table t[k] = xi^((p^k - 1)/d), k = 0..K-1, by the recurrence t[k] = conj(t[k-1]) * t[1].
template <class F2, size_t K>
std::array<F2, K> xi_power_table(uint64_t d) {
  using F = typename F2::Base;
  const F2 xi = F2::one().mul_by_xi();
  std::array<F2, K> t;
  t[0] = F2::one();
  if constexpr (K > 1) {
    t[1] = xi.pow(p_minus_1_over<F>(d));
    for (size_t k = 2; k < K; ++k) t[k] = t[k - 1].frobenius(1) * t[1];
  }
  return t;
}

}  // namespace detail

template <class F2>
class Fp6 {
 public:
  using Base = F2;
  F2 c0, c1, c2;

  constexpr Fp6() = default;
  constexpr Fp6(const F2& a, const F2& b, const F2& c) : c0(a), c1(b), c2(c) {}
  static constexpr Fp6 zero() { return Fp6(); }
  static constexpr Fp6 one() { return Fp6(F2::one(), F2::zero(), F2::zero()); }
  template <class Rng>
  static Fp6 random(Rng& rng) {
    F2 a = F2::random(rng);
    F2 b = F2::random(rng);
    return Fp6(a, b, F2::random(rng));
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  friend constexpr bool operator==(const Fp6& a, const Fp6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }

  friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) { return Fp6(a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2); }
  friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) { return Fp6(a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2); }
  constexpr Fp6 operator-() const { return Fp6(-c0, -c1, -c2); }
  constexpr Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  constexpr Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  constexpr Fp6& operator*=(const Fp6& b) { return *this = *this * b; }
  constexpr Fp6 dbl() const { return Fp6(c0.dbl(), c1.dbl(), c2.dbl()); }

  // Karatsuba-style interpolation: 6 Fp2 multiplications (Devegili et al., Section 4).
  friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    F2 v0 = a.c0 * b.c0, v1 = a.c1 * b.c1, v2 = a.c2 * b.c2;
    F2 r0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - v1 - v2).mul_by_xi() + v0;
    F2 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1 + v2.mul_by_xi();
    F2 r2 = (a.c0 + a.c2) * (b.c0 + b.c2) - v0 - v2 + v1;
    return Fp6(r0, r1, r2);
  }
  // Multiplication by an element of the base field Fp2.
  friend constexpr Fp6 operator*(const Fp6& a, const F2& s) { return Fp6(a.c0 * s, a.c1 * s, a.c2 * s); }

  // Chung-Hasan CH-SQR2: 2 multiplications and 3 squarings in Fp2.
  constexpr Fp6 square() const {
    F2 s0 = c0.square();
    F2 s1 = (c0 * c1).dbl();
    F2 s2 = (c0 - c1 + c2).square();
    F2 s3 = (c1 * c2).dbl();
    F2 s4 = c2.square();
    return Fp6(s3.mul_by_xi() + s0, s4.mul_by_xi() + s1, s1 + s2 + s3 - s0 - s4);
  }

  // Multiplication by v (the quadratic non-residue of Fp12 = Fp6[w]/(w^2 - v)):
  // (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2.
  constexpr Fp6 mul_by_nonresidue() const { return Fp6(c2.mul_by_xi(), c0, c1); }

  // Sparse products used by line evaluation: this * (b0 + b1 v) (5 Fp2 multiplications) and
  // this * (b1 v) (3 Fp2 multiplications).
  constexpr Fp6 mul_by_01(const F2& b0, const F2& b1) const {
    F2 v0 = c0 * b0, v1 = c1 * b1;
    F2 r0 = ((c1 + c2) * b1 - v1).mul_by_xi() + v0;
    F2 r1 = (c0 + c1) * (b0 + b1) - v0 - v1;
    F2 r2 = (c0 + c2) * b0 - v0 + v1;
    return Fp6(r0, r1, r2);
  }
  constexpr Fp6 mul_by_1(const F2& b1) const { return Fp6((c2 * b1).mul_by_xi(), c0 * b1, c1 * b1); }

  // Inverse via the adjugate: with t0 = c0^2 - xi c1 c2, t1 = xi c2^2 - c0 c1, t2 = c1^2 - c0 c2,
  // x * (t0 + t1 v + t2 v^2) = c0 t0 + xi (c2 t1 + c1 t2) in Fp2. The inverse of zero is zero.
  Fp6 inverse() const {
    F2 t0 = c0.square() - (c1 * c2).mul_by_xi();
    F2 t1 = c2.square().mul_by_xi() - c0 * c1;
    F2 t2 = c1.square() - c0 * c2;
    F2 d = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_xi();
    F2 di = d.inverse();
    return Fp6(t0 * di, t1 * di, t2 * di);
  }

  struct FrobeniusCoeffs {
    std::array<F2, 6> v;   // xi^((p^k - 1)/3): v^(p^k) = v[k] * v
    std::array<F2, 6> v2;  // xi^(2(p^k - 1)/3) = v[k]^2: (v^2)^(p^k) = v2[k] * v^2
  };
  // Computed once, on first use (thread-safe static initialisation).
  static const FrobeniusCoeffs& frobenius_coeffs() {
    static const FrobeniusCoeffs c = [] {
      FrobeniusCoeffs r;
      r.v = detail::xi_power_table<F2, 6>(3);
      for (size_t k = 0; k < 6; ++k) r.v2[k] = r.v[k].square();
      return r;
    }();
    return c;
  }

  // x -> x^(p^k) for any k (the map has order 6 on Fp6).
  Fp6 frobenius(unsigned k) const {
    k %= 6;
    if (k == 0) return *this;
    const FrobeniusCoeffs& fc = frobenius_coeffs();
    return Fp6(c0.frobenius(k), c1.frobenius(k) * fc.v[k], c2.frobenius(k) * fc.v2[k]);
  }

  template <size_t M>
  Fp6 pow(const Limbs<M>& e) const {
    Fp6 r = one();
    for (unsigned i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }
};

}  // namespace cuzk::ff
