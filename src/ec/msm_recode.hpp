#pragma once
// Scalars as the CPU MSM engines read them (msm_pippenger.hpp): their kind (0 and 1 take no
// bucket), canonical limbs, and the balanced recoding into signed window digits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "ff/bls12_381.hpp"
#include "ff/limbs.hpp"

namespace cuzk::ec::msm_detail {

using ScalarLimbs = ff::Limbs<4>;

inline ScalarLimbs reduce_mod_r(ScalarLimbs k) {
  while (!ff::less_than(k, ff::Fr::MOD)) ff::sub_limbs(k, k, ff::Fr::MOD);
  return k;
}

// Bits [pos, pos + c) of k (c <= 32).
inline uint64_t extract_bits(const ScalarLimbs& k, unsigned pos, unsigned c) {
  const unsigned limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  uint64_t v = k[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return v & ((uint64_t{1} << c) - 1);
}

// Balanced recoding: k = sum_j d_j 2^(jc), d_j in [-2^(c-1), 2^(c-1) - 1]; W windows suffice for
// k < r (msm_num_windows).
template <class D>
inline void recode(const ScalarLimbs& k, unsigned c, unsigned windows, D* out, size_t stride) {
  const int64_t half = int64_t{1} << (c - 1), full = int64_t{1} << c;
  int64_t carry = 0;
  for (unsigned j = 0; j < windows; ++j) {
    int64_t x = static_cast<int64_t>(extract_bits(k, j * c, c)) + carry;
    carry = x >= half;
    x -= carry * full;
    out[j * stride] = static_cast<D>(x);
  }
}

// Largest magnitude of a top-window digit for scalars (or split halves) up to `max`: the top bits
// plus the carry from below.
inline uint32_t top_magnitude(unsigned c, unsigned windows, const ScalarLimbs& max) {
  return static_cast<uint32_t>(extract_bits(max, (windows - 1) * c, c) + 1);
}

inline ScalarLimbs r_minus_1() {
  ScalarLimbs r1 = ff::Fr::MOD;
  r1[0] -= 1;  // r is odd
  return r1;
}

// Scalar traits: kind() is 0, 1 or 2 (anything else); canonical() the value below r.
struct FrScalar {
  static int kind(const ff::Fr& s) { return s.is_zero() ? 0 : (s.is_one() ? 1 : 2); }
  static ScalarLimbs canonical(const ff::Fr& s) { return s.to_canonical(); }
};

struct CanonicalScalar {
  static int kind(const ScalarLimbs& s) {
    const ScalarLimbs k = reduce_mod_r(s);
    if ((k[1] | k[2] | k[3]) != 0) return 2;
    return k[0] > 1 ? 2 : static_cast<int>(k[0]);
  }
  static ScalarLimbs canonical(const ScalarLimbs& s) { return reduce_mod_r(s); }
};

// Where the classification pass put each block's points (prefix sums over blocks of `block`
// scalars): block b's non-trivial scalars go to positions [big_off[b], big_off[b+1]) and its first
// base is bases[base_off[b]] (a density bitmap makes the bases fewer than the scalars).
struct BlockOffsets {
  std::span<const uint32_t> big_off, base_off;
  size_t block;
};

// Calls f(i, base) for every scalar i of block blk that has a base (the density bit set), with the
// index of that base.
template <class F>
inline void for_each_in_block(size_t blk, size_t block, size_t n, const uint64_t* dens, uint32_t base, const F& f) {
  const size_t e = std::min(n, (blk + 1) * block);
  for (size_t i = blk * block; i < e; ++i) {
    if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
    f(i, base++);
  }
}

}  // namespace cuzk::ec::msm_detail
