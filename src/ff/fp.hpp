#pragma once
// Prime field elements in Montgomery form, generic over the modulus. A parameter struct gives N
// (64-bit limbs), MODULUS and NAME; every other constant is derived here at compile time, so a new
// field (e.g. BN254) is one parameter struct.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ff/limbs.hpp"
#include "util/result.hpp"

#if defined(CUZK_X86_ADX)
#include "ff/mont_x86.hpp"
#endif

namespace cuzk::ff {

namespace detail {

template <size_t N>
constexpr uint64_t neg_inv64(uint64_t p0) {
  // Newton iteration for p0^{-1} mod 2^64 (p0 odd), then negate.
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - p0 * x;
  return ~x + 1;
}

template <size_t N>
constexpr Limbs<N> pow2_mod(unsigned k, const Limbs<N>& m) {
  Limbs<N> r{};
  r[0] = 1;
  for (unsigned i = 0; i < k; ++i) r = double_mod(r, m);
  return r;
}

}  // namespace detail

template <class P>
class Fp {
 public:
  static constexpr size_t N = P::N;
  using Params = P;
  using LimbsT = Limbs<N>;
  static constexpr LimbsT MOD = P::MODULUS;
  static constexpr unsigned BITS = bit_length(MOD);
  static constexpr size_t NUM_BYTES = (BITS + 7) / 8;
  static constexpr uint64_t INV = detail::neg_inv64<N>(MOD[0]);
  static constexpr LimbsT R1 = detail::pow2_mod<N>(64 * N, MOD);      // R mod p
  static constexpr LimbsT R2 = detail::pow2_mod<N>(2 * 64 * N, MOD);  // R^2 mod p
  static constexpr LimbsT R3 = detail::pow2_mod<N>(3 * 64 * N, MOD);  // R^3 mod p
  // The multiplication below (CIOS without the final carry word) needs one spare top bit.
  static_assert(MOD[N - 1] < 0x7fffffffffffffffULL, "modulus needs a spare top bit");
  static_assert((MOD[0] & 1) == 1, "modulus must be odd");

  constexpr Fp() = default;

  static constexpr Fp zero() { return Fp(); }
  static constexpr Fp one() { return from_raw(R1); }
  // Takes limbs already in Montgomery form (as stored by snarkjs .zkey/.ptau).
  static constexpr Fp from_raw(const LimbsT& l) {
    Fp r;
    r.v_ = l;
    return r;
  }
  // Takes a canonical integer; it must be < p (checked by the byte/hex parsers, not here).
  static constexpr Fp from_canonical(const LimbsT& l) { return from_raw(mont_mul(l, R2)); }
  static constexpr Fp from_u64(uint64_t x) {
    LimbsT l{};
    l[0] = x;
    if (less_than(l, MOD)) return from_canonical(l);
    sub_limbs(l, l, MOD);  // only reachable for tiny test moduli
    return from_canonical(l);
  }
  static Result<Fp> from_hex(std::string_view s);
  static Result<Fp> from_decimal(std::string_view s);
  static Result<Fp> from_bytes_le(std::span<const uint8_t> b);
  static Result<Fp> from_bytes_be(std::span<const uint8_t> b);
  // Reduces an arbitrary wide little-endian byte string mod p (hash-to-field, seeds).
  static Fp from_bytes_le_mod_order(std::span<const uint8_t> b);

  template <class Rng>
  static Fp random(Rng& rng) {
    for (;;) {
      LimbsT l;
      for (auto& w : l) w = rng();
      if (BITS % 64 != 0) l[N - 1] &= (uint64_t{1} << (BITS % 64)) - 1;
      if (less_than(l, MOD)) return from_raw(l);  // uniform in [0,p); the Montgomery map is a bijection
    }
  }

  constexpr const LimbsT& raw() const { return v_; }
  constexpr LimbsT to_canonical() const {
    LimbsT one{};
    one[0] = 1;
    return mont_mul(v_, one);
  }
  void to_bytes_le(std::span<uint8_t> out) const;  // exactly NUM_BYTES
  void to_bytes_be(std::span<uint8_t> out) const;
  std::string to_hex() const;      // "0x" + NUM_BYTES*2 digits, canonical, big-endian
  std::string to_decimal() const;  // canonical value in base 10

  constexpr bool is_zero() const { return is_zero_limbs(v_); }
  constexpr bool is_one() const { return equal_limbs(v_, R1); }
  friend constexpr bool operator==(const Fp& a, const Fp& b) { return equal_limbs(a.v_, b.v_); }

  friend constexpr Fp operator+(const Fp& a, const Fp& b) {
    Fp r;
    add_limbs(r.v_, a.v_, b.v_);  // < 2p < 2^(64N): no carry out thanks to the spare bit
    r.reduce_once();
    return r;
  }
  friend constexpr Fp operator-(const Fp& a, const Fp& b) {
    Fp r;
    uint64_t borrow = sub_limbs(r.v_, a.v_, b.v_);
    LimbsT masked;
    const uint64_t mask = 0 - borrow;
    for (size_t i = 0; i < N; ++i) masked[i] = MOD[i] & mask;
    add_limbs(r.v_, r.v_, masked);
    return r;
  }
  constexpr Fp operator-() const { return is_zero() ? *this : from_raw(sub_from_mod()); }
  friend constexpr Fp operator*(const Fp& a, const Fp& b) { return from_raw(mont_mul(a.v_, b.v_)); }
  constexpr Fp& operator+=(const Fp& b) { return *this = *this + b; }
  constexpr Fp& operator-=(const Fp& b) { return *this = *this - b; }
  constexpr Fp& operator*=(const Fp& b) { return *this = *this * b; }

  constexpr Fp dbl() const { return *this + *this; }
  constexpr Fp square() const { return from_raw(mont_sqr(v_)); }
  // Halving: a/2 = a/2 if even, (a+p)/2 if odd (no multiplication).
  constexpr Fp half() const {
    Fp r = *this;
    uint64_t carry = 0;
    if (r.v_[0] & 1) carry = add_limbs(r.v_, r.v_, MOD);
    shr1(r.v_);
    r.v_[N - 1] |= carry << 63;
    return r;
  }

  template <size_t M>
  constexpr Fp pow(const Limbs<M>& e) const {
    Fp r = one();
    for (unsigned i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }
  constexpr Fp pow(uint64_t e) const { return pow(Limbs<1>{e}); }

  // Multiplicative inverse by Bernstein-Yang divsteps (ff/inverse_safegcd.hpp; variable time: the
  // prover only inverts public or randomized values). The inverse of zero is zero.
  Fp inverse() const;
  // The same by the bit-by-bit binary extended Euclidean algorithm: several times slower, kept as
  // the independent reference the tests compare inverse() with.
  Fp inverse_binary() const;
  // -1, 0 or 1.
  int legendre() const;
  // A square root if one exists (which of the two is unspecified).
  std::optional<Fp> sqrt() const;

  // Lexicographic "largest" as zcash serialization defines it: canonical value > (p-1)/2.
  bool is_lexicographically_largest() const { return less_than(P_MINUS_1_OVER_2, to_canonical()); }

  static constexpr LimbsT P_MINUS_1_OVER_2 = [] {
    LimbsT t = MOD;
    shr1(t);
    return t;
  }();

  // Montgomery product of raw limbs; exposed for the extension fields and kernels.
  static constexpr LimbsT mont_mul(const LimbsT& a, const LimbsT& b) {
#if defined(CUZK_X86_ADX)
    if (!std::is_constant_evaluated()) {
      if constexpr (N == 4 || N == 6) {
        LimbsT r;
        x86::mont_mul<N>(r.data(), a.data(), b.data(), MOD.data(), INV);
        return r;
      }
    }
#endif
    return mont_mul_portable(a, b);
  }
  static constexpr LimbsT mont_sqr(const LimbsT& a) {
#if defined(CUZK_X86_ADX)
    if (!std::is_constant_evaluated()) {
      if constexpr (N == 4 || N == 6) {
        LimbsT r;
        x86::mont_sqr<N>(r.data(), a.data(), MOD.data(), INV);
        return r;
      }
    }
#endif
    return mont_mul_portable(a, a);
  }

  // Montgomery multiplication by operand scanning, without the extra carry word (valid with a
  // spare top bit).
  static constexpr LimbsT mont_mul_portable(const LimbsT& a, const LimbsT& b) {
    // Per row two mac chains, t += a*b[i] (its carry is the top word) then t = (t + m*p)/2^64,
    // fully unrolled: GCC keeps t in registers. Against one fused pass without the pragmas this
    // is 9% (Fr) / 10% (Fq) faster at -O3 and 37% / 35% faster at -O2 (Zen 4, GCC 12).
    LimbsT t{};
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) {
      uint64_t ca = 0;
#pragma GCC unroll 16
      for (size_t j = 0; j < N; ++j) t[j] = mac(t[j], a[j], b[i], ca);
      const uint64_t m = t[0] * INV;
      uint64_t cm = 0;
      (void)mac(t[0], m, MOD[0], cm);
#pragma GCC unroll 16
      for (size_t j = 1; j < N; ++j) t[j - 1] = mac(t[j], m, MOD[j], cm);
      t[N - 1] = ca + cm;  // t + a*b[i] + m*p < 2^(64(N+1)) thanks to the spare bit: no overflow
    }
    Fp r = from_raw(t);
    r.reduce_once();
    return r.v_;
  }

 private:
  constexpr void reduce_once() {
    LimbsT s;
    uint64_t borrow = sub_limbs(s, v_, MOD);
    const uint64_t keep = 0 - borrow;  // all ones when v < p
    for (size_t i = 0; i < N; ++i) v_[i] = (v_[i] & keep) | (s[i] & ~keep);
  }
  constexpr LimbsT sub_from_mod() const {
    LimbsT r;
    sub_limbs(r, MOD, v_);
    return r;
  }

  LimbsT v_{};
};

// Inverts every non-zero element in place with one field inversion (Montgomery's trick); zeros
// stay zero.
template <class F>
void batch_inverse(std::span<F> xs) {
  if (xs.empty()) return;
  std::vector<F> prefix(xs.size());
  F acc = F::one();
  for (size_t i = 0; i < xs.size(); ++i) {
    prefix[i] = acc;
    if (!xs[i].is_zero()) acc *= xs[i];
  }
  F inv = acc.inverse();
  for (size_t i = xs.size(); i-- > 0;) {
    if (xs[i].is_zero()) continue;
    F x = xs[i];
    xs[i] = inv * prefix[i];
    inv *= x;
  }
}

}  // namespace cuzk::ff

#include "ff/fp_impl.hpp"
