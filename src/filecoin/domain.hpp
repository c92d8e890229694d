#pragma once
// A 32-byte Filecoin value: a tree node (Sha256Domain or PoseidonDomain, both the little-endian
// bytes of an Fr), a commitment, a ticket or a seed. serde writes each as an array of 32 integers.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ff/bls12_381.hpp"
#include "util/rng.hpp"

namespace cuzk::filecoin {

using Bytes32 = std::array<uint8_t, 32>;
using Fr = ff::Fr;

inline bool is_zero(const Bytes32& b) {
  for (uint8_t x : b) {
    if (x != 0) return false;
  }
  return true;
}

// True when the bytes, read little-endian, are below the BLS12-381 scalar modulus r.
bool is_canonical_fr(const Bytes32& b);
// The Fr the bytes encode (little-endian); throws std::invalid_argument when not canonical.
Fr to_fr(const Bytes32& b);
Bytes32 to_bytes(const Fr& x);
// 254 random bits from `rng` (little-endian words): below 2^254 < r, so always a canonical field
// element (synthetic sectors and vanilla proofs).
Bytes32 random_fr_bytes(Xoshiro256& rng);
// Lower-case hex of the bytes in order (for messages and tests).
std::string to_hex(const Bytes32& b);
// The bytes of exactly 64 hex digits (either case, an optional 0x); nullopt for anything else.
std::optional<Bytes32> bytes32_from_hex(std::string_view hex);

}  // namespace cuzk::filecoin
