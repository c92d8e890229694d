#pragma once
// Quadratic extension Fp12 = Fp6[w]/(w^2 - v) over Fp6 = Fp2[v]/(v^3 - xi), so w^6 = xi. Elements
// are c0 + c1*w. Over Fp2 the basis is (1, v, v^2, w, vw, v^2 w) = (1, w^2, w^4, w, w^3, w^5), and the
// flat coefficient order c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2 is the one of zkcrypto/bls12_381,
// blst and @noble/curves.
//
// Formulas:
//  * multiplication: Karatsuba over Fp6 (3 Fp6 multiplications);
//  * squaring: "complex" squaring (Devegili et al., ePrint 2006/471, Section 3): 2 Fp6 products;
//  * inverse: (c0 - c1 w) / (c0^2 - v c1^2);
//  * Frobenius: w^(p^k) = xi^((p^k - 1)/6) * w (p = 1 mod 6), coefficients computed once from xi as
//    in fp6.hpp;
//  * cyclotomic squaring: Granger and Scott, "Faster Squaring in the Cyclotomic Subgroup of Sixth
//    Degree Extensions" (PKC 2010, ePrint 2009/565), Section 3.2, with Fp12 seen as Fp4[w]/(w^3 - s),
//    Fp4 = Fp2[s]/(s^2 - xi), s = w^3:
//      x = A + B w + C w^2,  A = c0.c0 + c1.c1 s,  B = c1.c0 + c0.c2 s,  C = c0.c1 + c1.c2 s,
//      x^2 = (3A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w + (3B^2 - 2 conj(C)) w^2
//    for x in the cyclotomic subgroup (x^(p^4 - p^2 + 1) = 1), conj being s -> -s;
//  * compressed cyclotomic squaring (Karabina), for long chains of squarings: see Compressed below;
//  * sparse multiplication by a line value d0 + d1 v + d4 v w (slots 0, 1 and 4: the shape of the
//    lines of an M-type sextic twist, such as BLS12-381's G2, evaluated at a G1 point).
#include <array>

#include "ff/fp6.hpp"

namespace cuzk::ff {

template <class F6>
class Fp12 {
 public:
  using Base = F6;
  using F2 = typename F6::Base;
  F6 c0, c1;

  constexpr Fp12() = default;
  constexpr Fp12(const F6& a, const F6& b) : c0(a), c1(b) {}
  static constexpr Fp12 zero() { return Fp12(); }
  static constexpr Fp12 one() { return Fp12(F6::one(), F6::zero()); }
  template <class Rng>
  static Fp12 random(Rng& rng) {
    F6 a = F6::random(rng);
    return Fp12(a, F6::random(rng));
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }

  friend constexpr Fp12 operator+(const Fp12& a, const Fp12& b) { return Fp12(a.c0 + b.c0, a.c1 + b.c1); }
  friend constexpr Fp12 operator-(const Fp12& a, const Fp12& b) { return Fp12(a.c0 - b.c0, a.c1 - b.c1); }
  constexpr Fp12 operator-() const { return Fp12(-c0, -c1); }
  constexpr Fp12& operator+=(const Fp12& b) { return *this = *this + b; }
  constexpr Fp12& operator-=(const Fp12& b) { return *this = *this - b; }
  constexpr Fp12& operator*=(const Fp12& b) { return *this = *this * b; }
  constexpr Fp12 dbl() const { return Fp12(c0.dbl(), c1.dbl()); }

  friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    F6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return Fp12(t1.mul_by_nonresidue() + t0, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1);
  }

  // (c0 + c1 w)^2 = (c0 + c1)(c0 + v c1) - t - v t + 2t w, t = c0 c1.
  constexpr Fp12 square() const {
    F6 t = c0 * c1;
    F6 r0 = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - t - t.mul_by_nonresidue();
    return Fp12(r0, t.dbl());
  }

  // Multiplication by w: (c0 + c1 w) w = v c1 + c0 w.
  constexpr Fp12 mul_by_nonresidue() const { return Fp12(c1.mul_by_nonresidue(), c0); }

  // x^(p^6) = c0 - c1 w; for x in the cyclotomic subgroup (e.g. after the easy part of the final
  // exponentiation) this is x^-1.
  constexpr Fp12 conjugate() const { return Fp12(c0, -c1); }

  Fp12 inverse() const {
    F6 d = c0.square() - c1.square().mul_by_nonresidue();
    F6 di = d.inverse();
    return Fp12(c0 * di, -(c1 * di));
  }

  // this * (d0 + d1 v + d4 v w): with b0 = d0 + d1 v and b1 = d4 v, 13 Fp2 multiplications instead
  // of 18.
  constexpr Fp12 mul_by_014(const F2& d0, const F2& d1, const F2& d4) const {
    F6 t0 = c0.mul_by_01(d0, d1);
    F6 t1 = c1.mul_by_1(d4);
    F6 r1 = (c0 + c1).mul_by_01(d0, d1 + d4) - t0 - t1;
    return Fp12(t1.mul_by_nonresidue() + t0, r1);
  }

  // Granger-Scott squaring; valid only in the cyclotomic subgroup (see the header comment).
  constexpr Fp12 cyclotomic_square() const {
    // Squares in Fp4 = Fp2[s]/(s^2 - xi): (a + b s)^2 = (a^2 + xi b^2) + ((a + b)^2 - a^2 - b^2) s.
    auto fp4_square = [](const F2& a, const F2& b, F2& r0, F2& r1) {
      F2 a2 = a.square(), b2 = b.square();
      r0 = b2.mul_by_xi() + a2;
      r1 = (a + b).square() - a2 - b2;
    };
    F2 a0, a1, b0, b1, cc0, cc1;
    fp4_square(c0.c0, c1.c1, a0, a1);    // A^2
    fp4_square(c1.c0, c0.c2, b0, b1);    // B^2
    fp4_square(c0.c1, c1.c2, cc0, cc1);  // C^2
    Fp12 r;
    // A' = 3A^2 - 2 conj(A)
    r.c0.c0 = (a0 - c0.c0).dbl() + a0;
    r.c1.c1 = (a1 + c1.c1).dbl() + a1;
    // B' = 3 s C^2 + 2 conj(B), s C^2 = xi C^2_1 + C^2_0 s
    F2 sc0 = cc1.mul_by_xi();
    r.c1.c0 = (sc0 + c1.c0).dbl() + sc0;
    r.c0.c2 = (cc0 - c0.c2).dbl() + cc0;
    // C' = 3B^2 - 2 conj(C)
    r.c0.c1 = (b0 - c0.c1).dbl() + b0;
    r.c1.c2 = (b1 + c1.c2).dbl() + b1;
    return r;
  }

  // Karabina's compressed squaring (Karabina, "Squaring in cyclotomic subgroups", Math. Comp. 82
  // (2013), ePrint 2010/542): in the cyclotomic subgroup, B' and C' above depend on B and C only, so
  // (B, C), the coefficients of w, w^4, w^2, w^5, square on their own with 6 Fp2 squarings, and the
  // full element is recovered at the end (decompress) with one Fp2 inversion per batch.
  struct Compressed {
    F2 b0, b1;  // B = b0 + b1 s: coefficients of w and w^4 (c1.c0, c0.c2)
    F2 c0, c1;  // C = c0 + c1 s: coefficients of w^2 and w^5 (c0.c1, c1.c2)
  };
  Compressed compress() const { return Compressed{c1.c0, c0.c2, c0.c1, c1.c2}; }

  static constexpr Compressed compressed_square(const Compressed& x) {
    const F2 b0s = x.b0.square(), b1s = x.b1.square(), c0s = x.c0.square(), c1s = x.c1.square();
    const F2 b01 = (x.b0 + x.b1).square() - b0s - b1s;  // 2 b0 b1
    const F2 c01 = (x.c0 + x.c1).square() - c0s - c1s;  // 2 c0 c1
    const F2 sc0 = c01.mul_by_xi();                     // s C^2 = xi (2 c0 c1) + (c0^2 + xi c1^2) s
    const F2 sc1 = c1s.mul_by_xi() + c0s;
    const F2 bb0 = b1s.mul_by_xi() + b0s;  // B^2 = (b0^2 + xi b1^2) + 2 b0 b1 s
    Compressed r;
    r.b0 = (sc0 + x.b0).dbl() + sc0;  // B' = 3 s C^2 + 2 conj(B)
    r.b1 = (sc1 - x.b1).dbl() + sc1;
    r.c0 = (bb0 - x.c0).dbl() + bb0;  // C' = 3 B^2 - 2 conj(C)
    r.c1 = (b01 + x.c1).dbl() + b01;
    return r;
  }

  // Recovers the elements of the cyclotomic subgroup with these compressed forms (Karabina,
  // Theorem 3.1), with one Fp2 inversion for the whole batch. In our coefficient names (A = a0 + a1 s
  // being the coefficients of 1 and w^3):
  //   b0 != 0:          a1 = (xi c1^2 + 3 c0^2 - 2 b1) / (4 b0)
  //   b0 == 0, b1 != 0: a1 = 2 c0 c1 / b1
  //   b0 == b1 == 0:    the element is 1 (then C = 0 too), a1 = 0
  //   a0 = xi (2 a1^2 + b0 c1 - 3 b1 c0) + 1.
  template <size_t K>
  static std::array<Fp12, K> decompress(const std::array<Compressed, K>& xs) {
    std::array<F2, K> num, den, prefix;
    F2 acc = F2::one();
    for (size_t i = 0; i < K; ++i) {
      const Compressed& x = xs[i];
      if (!x.b0.is_zero()) {
        const F2 c0s = x.c0.square();
        num[i] = x.c1.square().mul_by_xi() + (c0s - x.b1).dbl() + c0s;
        den[i] = x.b0.dbl().dbl();
      } else {
        num[i] = (x.c0 * x.c1).dbl();
        den[i] = x.b1;
      }
      prefix[i] = acc;
      if (!den[i].is_zero()) acc *= den[i];
    }
    F2 inv = acc.inverse();  // Montgomery's trick: one inversion for all non-zero denominators
    std::array<Fp12, K> out;
    for (size_t i = K; i-- > 0;) {
      const Compressed& x = xs[i];
      F2 a1 = F2::zero();
      if (!den[i].is_zero()) {
        a1 = num[i] * (inv * prefix[i]);
        inv *= den[i];
      }
      const F2 t = a1.square().dbl() + x.b0 * x.c1;
      const F2 u = x.b1 * x.c0;
      const F2 a0 = (t - u.dbl() - u).mul_by_xi() + F2::one();
      out[i] = Fp12(F6(a0, x.c0, x.b1), F6(x.b0, a1, x.c1));
    }
    return out;
  }

  // Frobenius coefficients: w[k] = xi^((p^k - 1)/6), so w^(p^k) = w[k] * w. Computed once.
  static const std::array<F2, 12>& frobenius_coeffs() {
    static const std::array<F2, 12> c = detail::xi_power_table<F2, 12>(6);
    return c;
  }

  // x -> x^(p^k) for any k (the map has order 12).
  Fp12 frobenius(unsigned k) const {
    k %= 12;
    if (k == 0) return *this;
    if (k == 6) return conjugate();
    return Fp12(c0.frobenius(k), c1.frobenius(k) * frobenius_coeffs()[k]);
  }

  template <size_t M>
  Fp12 pow(const Limbs<M>& e) const {
    Fp12 r = one();
    for (unsigned i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }
  Fp12 pow(uint64_t e) const { return pow(Limbs<1>{e}); }
};

}  // namespace cuzk::ff
