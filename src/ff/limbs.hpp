#pragma once
// Fixed-width unsigned big integers as little-endian arrays of 64-bit limbs. constexpr so that
// field constants (R, R^2, exponents) are derived from the modulus at compile time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace cuzk::ff {

template <size_t N>
using Limbs = std::array<uint64_t, N>;

using u128 = unsigned __int128;

// The carry intrinsics compile to adc/sbb chains; gcc turns the __int128 forms into much slower
// code. The __int128 forms remain for constant evaluation and other targets.
constexpr uint64_t addc(uint64_t a, uint64_t b, uint64_t& carry) {
#if defined(__x86_64__)
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    carry = _addcarry_u64(static_cast<unsigned char>(carry), a, b, &r);
    return r;
  }
#endif
  u128 t = static_cast<u128>(a) + b + carry;
  carry = static_cast<uint64_t>(t >> 64);
  return static_cast<uint64_t>(t);
}

constexpr uint64_t subb(uint64_t a, uint64_t b, uint64_t& borrow) {
#if defined(__x86_64__)
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    borrow = _subborrow_u64(static_cast<unsigned char>(borrow), a, b, &r);
    return r;
  }
#endif
  u128 t = static_cast<u128>(a) - b - borrow;
  borrow = static_cast<uint64_t>(t >> 64) & 1;
  return static_cast<uint64_t>(t);
}

// a + b*c + carry, returning the low word and leaving the high word in carry.
constexpr uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t& carry) {
  u128 t = static_cast<u128>(b) * c + a + carry;
  carry = static_cast<uint64_t>(t >> 64);
  return static_cast<uint64_t>(t);
}

template <size_t N>
constexpr uint64_t add_limbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t c = 0;
  for (size_t i = 0; i < N; ++i) r[i] = addc(a[i], b[i], c);
  return c;
}

template <size_t N>
constexpr uint64_t sub_limbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t br = 0;
  for (size_t i = 0; i < N; ++i) r[i] = subb(a[i], b[i], br);
  return br;
}

template <size_t N>
constexpr bool less_than(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

// Equality without a memcmp call (std::array == is one): an OR of XORs the compiler keeps inline.
template <size_t N>
constexpr bool equal_limbs(const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t d = 0;
  for (size_t i = 0; i < N; ++i) d |= a[i] ^ b[i];
  return d == 0;
}

template <size_t N>
constexpr bool is_zero_limbs(const Limbs<N>& a) {
  uint64_t acc = 0;
  for (auto w : a) acc |= w;
  return acc == 0;
}

template <size_t N>
constexpr unsigned bit_length(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != 0) return static_cast<unsigned>(64 * i + 64 - static_cast<unsigned>(__builtin_clzll(a[i])));
  }
  return 0;
}

template <size_t N>
constexpr bool test_bit(const Limbs<N>& a, unsigned i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

template <size_t N>
constexpr void shr1(Limbs<N>& a) {
  for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
  a[N - 1] >>= 1;
}

// (a + a) mod m for a < m, with m < 2^(64N).
template <size_t N>
constexpr Limbs<N> double_mod(const Limbs<N>& a, const Limbs<N>& m) {
  Limbs<N> r{};
  uint64_t carry = add_limbs(r, a, a);
  if (carry || !less_than(r, m)) sub_limbs(r, r, m);
  return r;
}

// Parses a hexadecimal literal ("0x" optional) at compile time; characters other than hex
// digits are a programming error in a constant and stop compilation.
template <size_t N>
constexpr Limbs<N> limbs_from_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  Limbs<N> r{};
  unsigned bit = 0;
  for (size_t k = s.size(); k-- > 0;) {
    char ch = s[k];
    uint64_t d = 0;
    if (ch >= '0' && ch <= '9')
      d = static_cast<uint64_t>(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = static_cast<uint64_t>(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      d = static_cast<uint64_t>(ch - 'A' + 10);
    else if (ch == '_')
      continue;
    else
      throw "invalid hex digit in constant";
    if (bit / 64 >= N) {
      if (d != 0) throw "hex constant too wide";
    } else {
      r[bit / 64] |= d << (bit % 64);
    }
    bit += 4;
  }
  return r;
}

}  // namespace cuzk::ff
