#pragma once
// Quadratic extension F[u]/(u^2 + 1) over a prime field with p = 3 mod 4 (BLS12-381's Fq2; BN254's
// too). Elements are c0 + c1*u.
#include <optional>

#include "ff/fp.hpp"

namespace cuzk::ff {

template <class F>
class Fp2 {
 public:
  using Base = F;
  F c0, c1;

  constexpr Fp2() = default;
  constexpr Fp2(const F& a, const F& b) : c0(a), c1(b) {}
  static constexpr Fp2 zero() { return Fp2(); }
  static constexpr Fp2 one() { return Fp2(F::one(), F::zero()); }
  template <class Rng>
  static Fp2 random(Rng& rng) {
    F a = F::random(rng);
    return Fp2(a, F::random(rng));
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }

  friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) { return Fp2(a.c0 + b.c0, a.c1 + b.c1); }
  friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) { return Fp2(a.c0 - b.c0, a.c1 - b.c1); }
  constexpr Fp2 operator-() const { return Fp2(-c0, -c1); }
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    // Karatsuba: 3 base multiplications.
    F v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    return Fp2(v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1);
  }
  friend constexpr Fp2 operator*(const Fp2& a, const F& s) { return Fp2(a.c0 * s, a.c1 * s); }
  constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  constexpr Fp2 dbl() const { return Fp2(c0.dbl(), c1.dbl()); }
  constexpr Fp2 square() const {
    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
    return Fp2((c0 + c1) * (c0 - c1), (c0 * c1).dbl());
  }
  constexpr Fp2 conjugate() const { return Fp2(c0, -c1); }
  // Frobenius x -> x^(p^k): the conjugate for odd k.
  constexpr Fp2 frobenius(unsigned k) const { return (k & 1) ? conjugate() : *this; }
  // Multiplication by the sextic non-residue xi = 1 + u used by the Fq6 tower.
  constexpr Fp2 mul_by_xi() const { return Fp2(c0 - c1, c0 + c1); }
  constexpr F norm() const { return c0.square() + c1.square(); }

  Fp2 inverse() const {
    F t = norm().inverse();
    return Fp2(c0 * t, -(c1 * t));
  }

  template <size_t M>
  constexpr Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (unsigned i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }

  // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root computation over even
  // extension fields", Algorithm 9). Returns nullopt for non-squares.
  std::optional<Fp2> sqrt() const {
    if (is_zero()) return zero();
    static constexpr Limbs<F::N> p_minus_3_over_4 = [] {
      Limbs<F::N> t = F::MOD;
      Limbs<F::N> three{};
      three[0] = 3;
      sub_limbs(t, t, three);
      shr1(t);
      shr1(t);
      return t;
    }();
    Fp2 a1 = pow(p_minus_3_over_4);
    Fp2 alpha = a1.square() * *this;
    Fp2 x0 = a1 * *this;
    Fp2 x;
    if (alpha == -one()) {
      x = Fp2(-x0.c1, x0.c0);  // u * x0
    } else {
      Fp2 b = (alpha + one()).pow(F::P_MINUS_1_OVER_2);
      x = b * x0;
    }
    if (x.square() != *this) return std::nullopt;
    return x;
  }

  // zcash's ordering: compare c1 first, then c0 when c1 = 0.
  bool is_lexicographically_largest() const {
    return c1.is_lexicographically_largest() || (c1.is_zero() && c0.is_lexicographically_largest());
  }
};

}  // namespace cuzk::ff
