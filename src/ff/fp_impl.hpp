#pragma once
// Out-of-line members of Fp: parsing, printing, inversion, square roots.
#include <algorithm>
#include <string>

#include "ff/inverse_safegcd.hpp"

namespace cuzk::ff {

template <class P>
Result<Fp<P>> Fp<P>::from_bytes_le(std::span<const uint8_t> b) {
  if (b.size() != NUM_BYTES) {
    return make_error(std::string(P::NAME) + ": expected " + std::to_string(NUM_BYTES) + " bytes, got " +
                      std::to_string(b.size()));
  }
  LimbsT l{};
  for (size_t i = 0; i < NUM_BYTES; ++i) l[i / 8] |= static_cast<uint64_t>(b[i]) << (8 * (i % 8));
  if (!less_than(l, MOD)) return make_error(std::string(P::NAME) + ": value is not canonical (>= modulus)");
  return from_canonical(l);
}

template <class P>
Result<Fp<P>> Fp<P>::from_bytes_be(std::span<const uint8_t> b) {
  if (b.size() != NUM_BYTES) {
    return make_error(std::string(P::NAME) + ": expected " + std::to_string(NUM_BYTES) + " bytes, got " +
                      std::to_string(b.size()));
  }
  uint8_t le[NUM_BYTES];
  std::reverse_copy(b.begin(), b.end(), le);
  return from_bytes_le(std::span<const uint8_t>(le, NUM_BYTES));
}

template <class P>
Fp<P> Fp<P>::from_bytes_le_mod_order(std::span<const uint8_t> b) {
  // Horner over bytes from the most significant end: x = x*256 + byte.
  const Fp base = from_u64(256);
  Fp x = zero();
  for (size_t i = b.size(); i-- > 0;) x = x * base + from_u64(b[i]);
  return x;
}

template <class P>
void Fp<P>::to_bytes_le(std::span<uint8_t> out) const {
  LimbsT c = to_canonical();
  for (size_t i = 0; i < NUM_BYTES && i < out.size(); ++i) out[i] = static_cast<uint8_t>(c[i / 8] >> (8 * (i % 8)));
}

template <class P>
void Fp<P>::to_bytes_be(std::span<uint8_t> out) const {
  uint8_t le[NUM_BYTES];
  to_bytes_le(std::span<uint8_t>(le, NUM_BYTES));
  for (size_t i = 0; i < NUM_BYTES && i < out.size(); ++i) out[i] = le[NUM_BYTES - 1 - i];
}

template <class P>
std::string Fp<P>::to_hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  uint8_t be[NUM_BYTES];
  to_bytes_be(std::span<uint8_t>(be, NUM_BYTES));
  std::string s = "0x";
  for (uint8_t c : be) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 15]);
  }
  return s;
}

template <class P>
Result<Fp<P>> Fp<P>::from_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return make_error(std::string(P::NAME) + ": empty hex string");
  LimbsT l{};
  unsigned bit = 0;
  for (size_t k = s.size(); k-- > 0;) {
    char ch = s[k];
    uint64_t d;
    if (ch >= '0' && ch <= '9')
      d = static_cast<uint64_t>(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = static_cast<uint64_t>(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      d = static_cast<uint64_t>(ch - 'A' + 10);
    else
      return make_error(std::string(P::NAME) + ": invalid hex digit '" + ch + "'");
    if (bit / 64 >= N) {
      if (d) return make_error(std::string(P::NAME) + ": hex value does not fit the field");
    } else {
      l[bit / 64] |= d << (bit % 64);
    }
    bit += 4;
  }
  if (!less_than(l, MOD)) return make_error(std::string(P::NAME) + ": value is not canonical (>= modulus)");
  return from_canonical(l);
}

template <class P>
Result<Fp<P>> Fp<P>::from_decimal(std::string_view s) {
  if (s.empty()) return make_error(std::string(P::NAME) + ": empty decimal string");
  LimbsT l{};
  for (char ch : s) {
    if (ch < '0' || ch > '9') return make_error(std::string(P::NAME) + ": invalid decimal digit '" + ch + "'");
    uint64_t carry = static_cast<uint64_t>(ch - '0');
    for (auto& w : l) w = mac(0, w, 10, carry);
    if (carry) return make_error(std::string(P::NAME) + ": decimal value does not fit the field");
  }
  if (!less_than(l, MOD)) return make_error(std::string(P::NAME) + ": value is not canonical (>= modulus)");
  return from_canonical(l);
}

template <class P>
std::string Fp<P>::to_decimal() const {
  LimbsT l = to_canonical();
  std::string s;
  while (!is_zero_limbs(l)) {
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      u128 cur = (rem << 64) | l[i];
      l[i] = static_cast<uint64_t>(cur / 10);
      rem = cur % 10;
    }
    s.push_back(static_cast<char>('0' + static_cast<int>(rem)));
  }
  if (s.empty()) s = "0";
  std::reverse(s.begin(), s.end());
  return s;
}

template <class P>
Fp<P> Fp<P>::inverse() const {
  if (is_zero()) return zero();
  // Invert the Montgomery representative aR as an integer: x = (aR)^{-1} = a^{-1} R^{-1}; then
  // mont_mul(x, R^3) = a^{-1} R, the Montgomery form of a^{-1}. MOD is prime, so the divsteps
  // always find the inverse; the binary algorithm is only a guard.
  if (const auto x = safegcd::inverse<N>(v_, MOD, 0 - INV)) return from_raw(mont_mul(*x, R3));
  return inverse_binary();
}

template <class P>
Fp<P> Fp<P>::inverse_binary() const {
  if (is_zero()) return zero();
  // Invert the Montgomery representative aR as an integer: x = (aR)^{-1} = a^{-1} R^{-1}; then
  // mont_mul(x, R^3) = a^{-1} R, the Montgomery form of a^{-1}.
  LimbsT u = v_, v = MOD, x1{}, x2{};
  x1[0] = 1;
  auto halve = [](LimbsT& x) {
    uint64_t carry = 0;
    if (x[0] & 1) carry = add_limbs(x, x, MOD);
    shr1(x);
    x[N - 1] |= carry << 63;
  };
  auto sub_mod = [](LimbsT& x, const LimbsT& y) {
    if (sub_limbs(x, x, y)) add_limbs(x, x, MOD);
  };
  LimbsT one_l{};
  one_l[0] = 1;
  while (u != one_l && v != one_l) {
    while ((u[0] & 1) == 0) {
      shr1(u);
      halve(x1);
    }
    while ((v[0] & 1) == 0) {
      shr1(v);
      halve(x2);
    }
    if (!less_than(u, v)) {
      sub_limbs(u, u, v);
      sub_mod(x1, x2);
    } else {
      sub_limbs(v, v, u);
      sub_mod(x2, x1);
    }
  }
  return from_raw(mont_mul(u == one_l ? x1 : x2, R3));
}

template <class P>
int Fp<P>::legendre() const {
  if (is_zero()) return 0;
  return pow(P_MINUS_1_OVER_2).is_one() ? 1 : -1;
}

template <class P>
std::optional<Fp<P>> Fp<P>::sqrt() const {
  if (is_zero()) return zero();
  if constexpr ((MOD[0] & 3) == 3) {
    // p = 3 mod 4: a^((p+1)/4).
    constexpr LimbsT e = [] {
      LimbsT t = MOD;
      LimbsT one_l{};
      one_l[0] = 1;
      add_limbs(t, t, one_l);
      shr1(t);
      shr1(t);
      return t;
    }();
    Fp r = pow(e);
    if (r.square() == *this) return r;
    return std::nullopt;
  } else {
    // Tonelli-Shanks with p - 1 = 2^S * T, T odd.
    struct Consts {
      unsigned s;
      LimbsT t_minus_1_over_2;
      Fp z;  // a generator of the 2-Sylow subgroup: c^T for a non-residue c
    };
    static const Consts k = [] {
      Consts c{};
      LimbsT t = MOD;
      t[0] -= 1;
      unsigned s = 0;
      while ((t[0] & 1) == 0) {
        shr1(t);
        ++s;
      }
      c.s = s;
      LimbsT tm = t;
      shr1(tm);  // (T-1)/2 since T is odd
      c.t_minus_1_over_2 = tm;
      Fp nr = from_u64(2);
      while (nr.legendre() != -1) nr += one();
      c.z = nr.pow(t);
      return c;
    }();
    if (legendre() != 1) return std::nullopt;
    Fp w = pow(k.t_minus_1_over_2);
    Fp x = *this * w;  // a^((T+1)/2)
    Fp b = x * w;      // a^T
    Fp z = k.z;
    unsigned m = k.s;
    while (!b.is_one()) {
      unsigned i = 0;
      Fp b2 = b;
      while (!b2.is_one()) {
        b2 = b2.square();
        ++i;
      }
      Fp t = z;
      for (unsigned j = 0; j + i + 1 < m; ++j) t = t.square();
      z = t.square();
      x *= t;
      b *= z;
      m = i;
    }
    return x;
  }
}

}  // namespace cuzk::ff
