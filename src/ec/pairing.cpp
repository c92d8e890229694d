#include "ec/pairing.hpp"

#include <array>
#include <bit>

namespace cuzk::ec {

namespace {

// Index of the top bit of |z|; the Miller loop and the exponentiation by |z| start below it.
constexpr int kTopBit = 63 - std::countl_zero(BLS_X_ABS);

// A point of the twist E'(Fq2): y^2 = x^3 + b', b' = 4(1 + u), in homogeneous projective coordinates
// (x = X/Z, y = Y/Z).
struct G2Homogeneous {
  Fq2 x, y, z;
};

Fq2 half(const Fq2& a) {
  return Fq2(a.c0.half(), a.c1.half());
}

// 3 b' = 12 (1 + u): multiplication by xi, then by 12 with additions.
Fq2 mul_by_3b(const Fq2& a) {
  Fq2 t = a.mul_by_xi().dbl().dbl();  // 4 xi a
  return t + t.dbl();                 // 12 xi a
}

// T <- 2T and the tangent line at T. Doubling formulas in homogeneous coordinates for a = 0 curves:
// Costello, Lange, Naehrig (ePrint 2009/615) as written by Aranha, Karabina, Longa, Gebotys, Lopez,
// "Faster Explicit Formulas for Computing Pairings over Ordinary Curves" (ePrint 2010/526), Section 4:
//   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B + F)/2, H = (Y + Z)^2 - (B + C), J = X^2,
//   X3 = A (B - F), Y3 = G^2 - 3E^2, Z3 = B H.
// The line: on E, through the untwisted T (x w^-2, y w^-3) with slope lambda = 3x^2/(2y) w^-1,
// evaluated at P and multiplied by -2YZ w^3 (w^3 is in Fq4 and 2YZ in Fq2: the final exponentiation
// removes both), is (E - B) + 3J xP v - H yP v w.
LineCoeffs doubling_step(G2Homogeneous& t) {
  const Fq2 a = half(t.x * t.y);
  const Fq2 b = t.y.square();
  const Fq2 c = t.z.square();
  const Fq2 e = mul_by_3b(c);
  const Fq2 f = e.dbl() + e;
  const Fq2 g = half(b + f);
  const Fq2 h = (t.y + t.z).square() - (b + c);
  const Fq2 j = t.x.square();
  const Fq2 e2 = e.square();
  t.x = a * (b - f);
  t.y = g.square() - (e2.dbl() + e2);
  t.z = b * h;
  return LineCoeffs{e - b, j.dbl() + j, -h};
}

// T <- T + Q for affine Q = (x2, y2) and the line through T and Q (mixed addition of Aranha et al.,
// ePrint 2010/526, Section 4):
//   theta = Y - y2 Z, lambda = X - x2 Z, C = theta^2, D = lambda^2, E = lambda^3, F = Z C, G = X D,
//   H = E + F - 2G, X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E.
// With slope s = theta/lambda, the line value (s x2 - y2) - s xP v + yP v w, times lambda, is
//   (theta x2 - lambda y2) - theta xP v + lambda yP v w.
LineCoeffs addition_step(G2Homogeneous& t, const G2Affine& q) {
  const Fq2 theta = t.y - q.y * t.z;
  const Fq2 lambda = t.x - q.x * t.z;
  const Fq2 c = theta.square();
  const Fq2 d = lambda.square();
  const Fq2 e = lambda * d;
  const Fq2 f = t.z * c;
  const Fq2 g = t.x * d;
  const Fq2 h = e + f - g.dbl();
  t.x = lambda * h;
  t.y = theta * (g - h) - t.y * e;
  t.z = t.z * e;
  return LineCoeffs{theta * q.x - lambda * q.y, -theta, lambda};
}

inline void ell(Fq12& f, const LineCoeffs& l, const G1Affine& p) {
  f = f.mul_by_014(l.c0, l.c1 * p.x, l.c2 * p.y);
}

// One pair computing its lines as it goes.
struct LiveTerm {
  G1Affine p;
  G2Affine q;
  G2Homogeneous t;
  LiveTerm(const G1Affine& p_, const G2Affine& q_) : p(p_), q(q_), t{q_.x, q_.y, Fq2::one()} {}
  void dbl(Fq12& f) { ell(f, doubling_step(t), p); }
  void add(Fq12& f) { ell(f, addition_step(t, q), p); }
};

// One pair reading precomputed lines.
struct PreparedTerm {
  G1Affine p;
  const LineCoeffs* next;
  void dbl(Fq12& f) { ell(f, *next++, p); }
  void add(Fq12& f) { ell(f, *next++, p); }
};

// The shared loop: for each bit of |z| below the top one, f <- f^2 times every pair's tangent line,
// then every pair's chord line when the bit is set. z < 0: f_{z,Q} = 1/f_{|z|,Q} up to a vertical
// line that the final exponentiation removes, and 1/f becomes conj(f) after it.
template <class Term>
Fq12 miller_loop_impl(std::span<Term> terms) {
  Fq12 f = Fq12::one();
  if (terms.empty()) return f;
  for (int i = kTopBit - 1; i >= 0; --i) {
    if (i != kTopBit - 1) f = f.square();  // f = 1 on the first step
    for (auto& t : terms) t.dbl(f);
    if ((BLS_X_ABS >> i) & 1) {
      for (auto& t : terms) t.add(f);
    }
  }
  return BLS_X_IS_NEGATIVE ? f.conjugate() : f;
}

// x^|z| for x in the cyclotomic subgroup. |z| = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16, so
// x^|z| is the product of x^(2^i) over the set bits i: one chain of 63 compressed (Karabina)
// squarings, a snapshot at each set bit, one batched decompression and 5 multiplications.
constexpr int kSetBits = std::popcount(BLS_X_ABS);

Fq12 cyclotomic_exp_by_x_abs(const Fq12& x) {
  static_assert((BLS_X_ABS & 1) == 0, "the chain below starts at x^2");
  std::array<Fq12::Compressed, kSetBits> snaps;
  size_t n = 0;
  Fq12::Compressed c = x.compress();
  for (int i = 1; i <= kTopBit; ++i) {
    c = Fq12::compressed_square(c);
    if ((BLS_X_ABS >> i) & 1) snaps[n++] = c;
  }
  const auto parts = Fq12::decompress(snaps);
  Fq12 r = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) r *= parts[i];
  return r;
}

}  // namespace

G2Prepared::G2Prepared(const G2Affine& q) {
  if (q.infinity) return;
  infinity = false;
  lines.reserve(static_cast<size_t>(kTopBit + std::popcount(BLS_X_ABS) - 1));
  G2Homogeneous t{q.x, q.y, Fq2::one()};
  for (int i = kTopBit - 1; i >= 0; --i) {
    lines.push_back(doubling_step(t));
    if ((BLS_X_ABS >> i) & 1) lines.push_back(addition_step(t, q));
  }
}

Fq12 miller_loop(const G1Affine& p, const G2Affine& q) {
  if (p.infinity || q.infinity) return Fq12::one();
  LiveTerm t(p, q);
  return miller_loop_impl(std::span<LiveTerm>(&t, 1));
}

Fq12 miller_loop(const G1Affine& p, const G2Prepared& q) {
  if (p.infinity || q.infinity) return Fq12::one();
  PreparedTerm t{p, q.lines.data()};
  return miller_loop_impl(std::span<PreparedTerm>(&t, 1));
}

Fq12 multi_miller_loop(std::span<const std::pair<G1Affine, G2Affine>> terms) {
  std::vector<LiveTerm> live;
  live.reserve(terms.size());
  for (const auto& [p, q] : terms) {
    if (!p.infinity && !q.infinity) live.emplace_back(p, q);
  }
  return miller_loop_impl(std::span<LiveTerm>(live));
}

Fq12 multi_miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> terms) {
  std::vector<PreparedTerm> live;
  live.reserve(terms.size());
  for (const auto& [p, q] : terms) {
    if (!p.infinity && q != nullptr && !q->infinity) live.push_back(PreparedTerm{p, q->lines.data()});
  }
  return miller_loop_impl(std::span<PreparedTerm>(live));
}

Fq12 cyclotomic_exp_by_z(const Fq12& x) {
  Fq12 r = cyclotomic_exp_by_x_abs(x);
  return BLS_X_IS_NEGATIVE ? r.conjugate() : r;
}

Fq12 final_exponentiation(const Fq12& f) {
  // Easy part: t = f^((q^6 - 1)(q^2 + 1)), which lies in the cyclotomic subgroup (there conj = inverse).
  Fq12 t = f.conjugate() * f.inverse();
  t = t.frobenius(2) * t;
  // Hard part: t^((z - 1)^2 (z + q) (z^2 + q^2 - 1) + 3) = t^(3 (q^4 - q^2 + 1)/r).
  const Fq12 a = cyclotomic_exp_by_z(t) * t.conjugate();                                        // t^(z - 1)
  const Fq12 b = cyclotomic_exp_by_z(a) * a.conjugate();                                        // t^((z - 1)^2)
  const Fq12 c = cyclotomic_exp_by_z(b) * b.frobenius(1);                                       // b^(z + q)
  const Fq12 d = cyclotomic_exp_by_z(cyclotomic_exp_by_z(c)) * c.frobenius(2) * c.conjugate();  // c^(z^2 + q^2 - 1)
  return d * t.cyclotomic_square() * t;
}

Fq12 pairing(const G1Affine& p, const G2Affine& q) {
  return final_exponentiation(miller_loop(p, q));
}

Fq12 multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms) {
  return final_exponentiation(multi_miller_loop(terms));
}

Fq12 multi_pairing(std::span<const std::pair<G1Affine, const G2Prepared*>> terms) {
  return final_exponentiation(multi_miller_loop(terms));
}

}  // namespace cuzk::ec
