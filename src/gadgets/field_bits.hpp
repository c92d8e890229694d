#pragma once
// Bit-level facts about Fr that the gadgets depend on: its bit length, its capacity (the number of
// bits that always fit, which bounds MultiEq batching and multipacking chunks), and the bits of a
// canonical value.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "r1cs/linear_combination.hpp"

namespace cuzk::gadgets {

using r1cs::Fr;

// ff's PrimeField::NUM_BITS and CAPACITY for the BLS12-381 scalar field (255 and 254).
inline constexpr size_t kFrNumBits = Fr::BITS;
inline constexpr size_t kFrCapacity = kFrNumBits - 1;
static_assert(kFrNumBits == 255, "the gadgets are written for the BLS12-381 scalar field");

// 2^k in Fr (k small: doubling is cheaper than an exponentiation and exact for every k).
inline Fr pow2(size_t k) {
  Fr r = Fr::one();
  for (size_t i = 0; i < k; ++i) r = r + r;
  return r;
}

// The kFrNumBits low bits of x's canonical representation, least significant first.
inline std::vector<bool> fr_to_bits_le(const Fr& x) {
  const auto limbs = x.to_canonical();
  std::vector<bool> bits(kFrNumBits);
  for (size_t i = 0; i < kFrNumBits; ++i) bits[i] = (limbs[i / 64] >> (i % 64)) & 1;
  return bits;
}

inline Fr fr_from_bool(bool b) {
  return b ? Fr::one() : Fr::zero();
}

// value_fn for an allocation whose value may be unknown (RecordingCS never calls it; the other
// backends throw "assignment missing" on nullopt).
inline std::optional<Fr> fr_from_bool(std::optional<bool> b) {
  if (!b) return std::nullopt;
  return fr_from_bool(*b);
}

}  // namespace cuzk::gadgets
