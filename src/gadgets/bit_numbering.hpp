#pragma once
// Bit-order helpers of storage-proofs-core src/util.rs that sit between field elements and SHA-256.
//
// SHA-256 consumes each byte most significant bit first, while field elements decompose least
// significant bit first. reverse_bit_numbering converts between the two (padding to whole bytes
// with constant false first), which is how a 255-bit to_bits_le becomes the MSB-first stream of
// the element's 32 little-endian bytes, with a constant 0 where the 256th bit would be.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"

namespace cuzk::gadgets {

inline std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8 != 0) bits.push_back(Boolean::constant(false));
  for (size_t i = 0; i < bits.size(); i += 8) std::reverse(bits.begin() + i, bits.begin() + i + 8);
  return bits;
}

// storage-proofs-core's bytes_into_boolean_vec_be: one AllocatedBit ("bit i") per bit of `size`
// bytes, each byte most significant bit first. Without a value (blank circuits) every bit is
// unknown.
template <ConstraintSystem CS>
std::vector<Boolean> alloc_bytes_be(CS& cs, std::optional<std::span<const uint8_t>> bytes, size_t size) {
  if (bytes && bytes->size() != size) {
    throw std::invalid_argument("alloc_bytes_be: " + std::to_string(bytes->size()) + " bytes given, " +
                                std::to_string(size) + " expected");
  }
  std::vector<Boolean> out;
  out.reserve(size * 8);
  for (size_t i = 0; i < size * 8; ++i) {
    std::optional<bool> v;
    if (bytes) v = ((*bytes)[i / 8] >> (7 - i % 8)) & 1;
    auto ns = cs.namespace_([&] { return "bit " + std::to_string(i); });
    out.push_back(AllocatedBit::alloc(cs, v));
  }
  return out;
}

}  // namespace cuzk::gadgets
