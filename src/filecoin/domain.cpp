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

Bytes32 random_fr_bytes(Xoshiro256& rng) {
  Bytes32 b;
  for (size_t i = 0; i < 32; i += 8) {
    const uint64_t w = rng();
    for (size_t j = 0; j < 8; ++j) b[i + j] = static_cast<uint8_t>(w >> (8 * j));
  }
  b[31] &= 0x3f;
  return b;
}

std::optional<Bytes32> bytes32_from_hex(std::string_view hex) {
  if (hex.starts_with("0x")) hex.remove_prefix(2);
  if (hex.size() != 64) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes32 out{};
  for (size_t i = 0; i < 32; ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

}  // namespace cuzk::filecoin
