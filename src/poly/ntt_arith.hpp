#pragma once
// Internal to the NTT kernels: Fr arithmetic on raw Montgomery limbs addressed by pointer.
//
// Why not Fr's operators: GCC copies Fr values (std::array<uint64_t, 4>) through 16-byte SSE moves
// right after the field code wrote them with 64-bit scalar stores, and every such copy is a failed
// store-to-load forward (~15 cycles). In a butterfly (1 mul, 1 add, 1 sub) that doubled the time.
// These helpers read their operands and write their result with scalar accesses only, straight
// into the destination. The multiplication is the same routine Fr::operator* uses (the x86
// mulx/adx one when CUZK_X86_ADX, the portable CIOS otherwise), so results are bit-identical to
// Fr's operators (fully reduced Montgomery form); tests/test_ntt.cpp checks that.
//
// r may alias a or b in all three (inputs are loaded before the result is stored).
#include <cstdint>
#include <type_traits>

#include "ff/bls12_381.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cuzk::poly::detail {

using ff::Fr;

static_assert(sizeof(Fr) == 4 * sizeof(uint64_t) && std::is_standard_layout_v<Fr> && std::is_trivially_copyable_v<Fr>,
              "the NTT kernels address Fr as four little-endian uint64_t Montgomery limbs");

// The limbs of an element in place (Fr's only data member is its limb array).
inline uint64_t* limbs(Fr* p) {
  return reinterpret_cast<uint64_t*>(p);
}
inline const uint64_t* limbs(const Fr* p) {
  return reinterpret_cast<const uint64_t*>(p);
}

// r = a + b mod p, for a, b < p (the sum is < 2p < 2^256 since p has a spare top bit).
inline void add_to(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if defined(__x86_64__)
  static constexpr auto P = Fr::MOD;
  unsigned long long s0, s1, s2, s3, t0, t1, t2, t3;
  unsigned char c = _addcarry_u64(0, a[0], b[0], &s0);
  c = _addcarry_u64(c, a[1], b[1], &s1);
  c = _addcarry_u64(c, a[2], b[2], &s2);
  (void)_addcarry_u64(c, a[3], b[3], &s3);
  c = _subborrow_u64(0, s0, P[0], &t0);
  c = _subborrow_u64(c, s1, P[1], &t1);
  c = _subborrow_u64(c, s2, P[2], &t2);
  c = _subborrow_u64(c, s3, P[3], &t3);
  // Borrow set: the sum was already < p.
  r[0] = c ? s0 : t0;
  r[1] = c ? s1 : t1;
  r[2] = c ? s2 : t2;
  r[3] = c ? s3 : t3;
#else
  const Fr s = Fr::from_raw({a[0], a[1], a[2], a[3]}) + Fr::from_raw({b[0], b[1], b[2], b[3]});
  for (int i = 0; i < 4; ++i) r[i] = s.raw()[i];
#endif
}

// r = a - b mod p, for a, b < p: p is added back when the subtraction borrows.
inline void sub_to(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if defined(__x86_64__)
  static constexpr auto P = Fr::MOD;
  unsigned long long d0, d1, d2, d3;
  unsigned char c = _subborrow_u64(0, a[0], b[0], &d0);
  c = _subborrow_u64(c, a[1], b[1], &d1);
  c = _subborrow_u64(c, a[2], b[2], &d2);
  c = _subborrow_u64(c, a[3], b[3], &d3);
  const uint64_t mask = 0 - static_cast<uint64_t>(c);
  unsigned long long r0, r1, r2, r3;
  c = _addcarry_u64(0, d0, P[0] & mask, &r0);
  c = _addcarry_u64(c, d1, P[1] & mask, &r1);
  c = _addcarry_u64(c, d2, P[2] & mask, &r2);
  (void)_addcarry_u64(c, d3, P[3] & mask, &r3);
  r[0] = r0;
  r[1] = r1;
  r[2] = r2;
  r[3] = r3;
#else
  const Fr s = Fr::from_raw({a[0], a[1], a[2], a[3]}) - Fr::from_raw({b[0], b[1], b[2], b[3]});
  for (int i = 0; i < 4; ++i) r[i] = s.raw()[i];
#endif
}

// r = a * b (Montgomery), the routine behind Fr::operator*.
inline void mul_to(uint64_t* r, const uint64_t* a, const uint64_t* b) {
#if defined(CUZK_X86_ADX)
  ff::x86::mont_mul<4>(r, a, b, Fr::MOD.data(), Fr::INV);
#else
  const Fr::LimbsT t = Fr::mont_mul({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]});
  for (int i = 0; i < 4; ++i) r[i] = t[i];
#endif
}

}  // namespace cuzk::poly::detail
