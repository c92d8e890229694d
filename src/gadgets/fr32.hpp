#pragma once
// Filecoin's 32-byte node encoding (fr32 crate, filecoin-hashers Domain): a node is a field
// element's canonical little-endian bytes, and a SHA-256 digest becomes a node by clearing the top
// two bits of its last byte ("trim_to_fr32"), which makes every digest < 2^254 < r, so canonical.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "gadgets/field_bits.hpp"

namespace cuzk::gadgets {

using NodeBytes = std::array<uint8_t, 32>;

inline NodeBytes fr_to_node_bytes(const Fr& x) {
  NodeBytes b{};
  x.to_bytes_le(b);
  return b;
}

// The node's bytes as a field element; they must be canonical (< r), as every Filecoin node is.
inline Fr node_bytes_to_fr(std::span<const uint8_t, 32> b) {
  auto r = Fr::from_bytes_le(b);
  if (!r.ok()) throw std::invalid_argument("node bytes are not a canonical field element: " + r.error());
  return r.value();
}

// Clears the two most significant bits of the little-endian 32-byte value.
inline void trim_to_fr32(std::span<uint8_t, 32> b) {
  b[31] &= 0x3f;
}

}  // namespace cuzk::gadgets
