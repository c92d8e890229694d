#include "filecoin/domain.hpp"

#include <span>
#include <stdexcept>

namespace cuzk::filecoin {

bool is_canonical_fr(const Bytes32& b) {
  return Fr::from_bytes_le(std::span<const uint8_t>(b)).ok();
}

Fr to_fr(const Bytes32& b) {
  auto r = Fr::from_bytes_le(std::span<const uint8_t>(b));
  if (!r.ok()) throw std::invalid_argument("not a canonical field element: " + to_hex(b));
  return *r;
}

Bytes32 to_bytes(const Fr& x) {
  Bytes32 b{};
  x.to_bytes_le(b);
  return b;
}

std::string to_hex(const Bytes32& b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (uint8_t x : b) {
    s += kHex[x >> 4];
    s += kHex[x & 15];
  }
  return s;
}

}  // namespace cuzk::filecoin
