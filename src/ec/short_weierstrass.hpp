#pragma once
// Points of y^2 = x^3 + b (a = 0) over a field F, in affine and Jacobian coordinates
// (X/Z^2, Y/Z^3). Formulas: the Explicit-Formulas Database, a=0 short Weierstrass
// (dbl-2009-l, add-2007-bl, madd-2007-bl).
#include <span>
#include <vector>

#include "ff/fp.hpp"

namespace cuzk::ec {

// C supplies: using Base (coordinate field), using Scalar (prime-order scalar field),
// static Base b(), static const char* NAME.
template <class C>
struct Affine {
  using F = typename C::Base;
  F x{}, y{};
  bool infinity = true;

  constexpr Affine() = default;
  constexpr Affine(const F& x_, const F& y_) : x(x_), y(y_), infinity(false) {}
  static constexpr Affine identity() { return Affine(); }
  bool is_identity() const { return infinity; }
  bool is_on_curve() const { return infinity || y.square() == x.square() * x + C::b(); }
  Affine operator-() const { return infinity ? *this : Affine(x, -y); }
  friend bool operator==(const Affine& a, const Affine& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
};

template <class C>
struct Jacobian {
  using F = typename C::Base;
  using AffineT = Affine<C>;
  F x = F::one(), y = F::one(), z = F::zero();  // z == 0 is the identity

  constexpr Jacobian() = default;
  constexpr Jacobian(const F& x_, const F& y_, const F& z_) : x(x_), y(y_), z(z_) {}
  explicit Jacobian(const AffineT& a) {
    if (!a.infinity) *this = Jacobian(a.x, a.y, F::one());
  }
  static constexpr Jacobian identity() { return Jacobian(); }
  bool is_identity() const { return z.is_zero(); }

  Jacobian operator-() const { return Jacobian(x, -y, z); }

  friend bool operator==(const Jacobian& a, const Jacobian& b) {
    if (a.is_identity() || b.is_identity()) return a.is_identity() == b.is_identity();
    F z1z1 = a.z.square(), z2z2 = b.z.square();
    if (a.x * z2z2 != b.x * z1z1) return false;
    return a.y * z2z2 * b.z == b.y * z1z1 * a.z;
  }

  bool is_on_curve() const {
    if (is_identity()) return true;
    // Y^2 = X^3 + b Z^6
    F z2 = z.square();
    F z6 = z2.square() * z2;
    return y.square() == x.square() * x + C::b() * z6;
  }

  Jacobian dbl() const {
    if (is_identity()) return *this;
    F a = x.square(), b = y.square(), c = b.square();
    F d = ((x + b).square() - a - c).dbl();
    F e = a.dbl() + a;
    F f = e.square();
    Jacobian r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    F z1z1 = p.z.square(), z2z2 = q.z.square();
    F u1 = p.x * z2z2, u2 = q.x * z1z1;
    F s1 = p.y * q.z * z2z2, s2 = q.y * p.z * z1z1;
    F h = u2 - u1;
    F rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    F i = h.dbl().square();
    F j = h * i;
    F v = u1 * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (s1 * j).dbl();
    r.z = ((p.z + q.z).square() - z1z1 - z2z2) * h;
    return r;
  }

  // Mixed addition with an affine point (Z2 = 1).
  Jacobian add_affine(const AffineT& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return Jacobian(q);
    F z1z1 = z.square();
    F u2 = q.x * z1z1, s2 = q.y * z * z1z1;
    F h = u2 - x;
    F rr = (s2 - y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    F hh = h.square();
    F i = hh.dbl().dbl();
    F j = h * i;
    F v = x * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (y * j).dbl();
    r.z = (z + h).square() - z1z1 - hh;
    return r;
  }

  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
  Jacobian& operator+=(const AffineT& q) { return *this = add_affine(q); }

  AffineT to_affine() const {
    if (is_identity()) return AffineT();
    F zi = z.inverse();
    F zi2 = zi.square();
    return AffineT(x * zi2, y * zi2 * zi);
  }

  // Scalar multiplication by a little-endian integer (any width), width-5 wNAF.
  template <size_t M>
  Jacobian mul(const ff::Limbs<M>& k) const;
  Jacobian mul(const typename C::Scalar& s) const { return mul(s.to_canonical()); }
  Jacobian mul_u64(uint64_t k) const { return mul(ff::Limbs<1>{k}); }
};

// Converts many points to affine with one field inversion.
template <class C>
void batch_to_affine(std::span<const Jacobian<C>> in, std::span<Affine<C>> out) {
  using F = typename C::Base;
  const size_t n = in.size();
  std::vector<F> acc(n);
  F run = F::one();
  for (size_t i = 0; i < n; ++i) {
    acc[i] = run;
    if (!in[i].is_identity()) run *= in[i].z;
  }
  F inv = run.inverse();
  for (size_t i = n; i-- > 0;) {
    if (in[i].is_identity()) {
      out[i] = Affine<C>();
      continue;
    }
    F zi = inv * acc[i];
    inv *= in[i].z;
    F zi2 = zi.square();
    out[i] = Affine<C>(in[i].x * zi2, in[i].y * zi2 * zi);
  }
}

// wNAF digits of k (little-endian limbs), window w: each digit odd in (-2^(w-1), 2^(w-1)) or 0.
template <size_t M>
std::vector<int> wnaf_digits(ff::Limbs<M> k, unsigned w) {
  std::vector<int> digits;
  digits.reserve(64 * M + 1);
  const int full = 1 << w, half = 1 << (w - 1);
  // Work on M+1 limbs so that adding back a negative digit cannot overflow.
  ff::Limbs<M + 1> e{};
  for (size_t i = 0; i < M; ++i) e[i] = k[i];
  while (!ff::is_zero_limbs(e)) {
    int d = 0;
    if (e[0] & 1) {
      d = static_cast<int>(e[0] & static_cast<uint64_t>(full - 1));
      if (d >= half) d -= full;
      ff::Limbs<M + 1> dl{};
      if (d > 0) {
        dl[0] = static_cast<uint64_t>(d);
        ff::sub_limbs(e, e, dl);
      } else {
        dl[0] = static_cast<uint64_t>(-d);
        ff::add_limbs(e, e, dl);
      }
    }
    digits.push_back(d);
    ff::shr1(e);
  }
  return digits;
}

template <class C>
template <size_t M>
Jacobian<C> Jacobian<C>::mul(const ff::Limbs<M>& k) const {
  constexpr unsigned w = 5;
  auto digits = wnaf_digits(k, w);
  // Odd multiples P, 3P, ..., (2^(w-1)-1)P.
  Jacobian table[1 << (w - 2)];
  table[0] = *this;
  Jacobian twice = dbl();
  for (size_t i = 1; i < std::size(table); ++i) table[i] = table[i - 1] + twice;
  Jacobian r;
  for (size_t i = digits.size(); i-- > 0;) {
    r = r.dbl();
    int d = digits[i];
    if (d > 0)
      r += table[d / 2];
    else if (d < 0)
      r += -table[(-d) / 2];
  }
  return r;
}

}  // namespace cuzk::ec
