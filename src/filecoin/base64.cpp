#include "filecoin/base64.hpp"

#include <array>
#include <cstdio>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_table() {
  std::array<int8_t, 256> t{};
  for (auto& x : t) x = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr auto kTable = make_table();

[[noreturn]] void bad(const std::string& what, size_t offset) {
  throw std::invalid_argument("invalid base64: " + what + " at offset " + std::to_string(offset));
}

}  // namespace

void base64_decode(std::string_view in, std::vector<uint8_t>& out) {
  if (in.size() % 4 != 0) {
    throw std::invalid_argument("invalid base64: length " + std::to_string(in.size()) + " is not a multiple of 4");
  }
  out.reserve(out.size() + in.size() / 4 * 3);
  for (size_t g = 0; g < in.size(); g += 4) {
    const bool last = g + 4 == in.size();
    uint32_t v[4];
    int pad = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = in[g + i];
      if (c == '=') {
        // Padding may only end the last group, as "x=" or "==" after at least two symbols.
        if (!last || i < 2) bad("misplaced '='", g + i);
        ++pad;
        v[i] = 0;
        continue;
      }
      if (pad > 0) bad("data after '='", g + i);
      const int8_t d = kTable[static_cast<uint8_t>(c)];
      if (d < 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<uint8_t>(c)));
        bad(std::string("character ") + hex, g + i);
      }
      v[i] = static_cast<uint32_t>(d);
    }
    const uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    // A canonical encoding leaves the bits that no output byte uses zero.
    if ((pad == 1 && (n & 0xff) != 0) || (pad == 2 && (n & 0xffff) != 0)) bad("non-zero trailing bits", g + 3 - pad);
    out.push_back(static_cast<uint8_t>(n >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(n >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(n));
  }
}

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string s;
  s.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    const size_t left = size - i;
    const uint32_t n = (uint32_t{data[i]} << 16) | (left > 1 ? uint32_t{data[i + 1]} << 8 : 0) |
                       (left > 2 ? uint32_t{data[i + 2]} : 0);
    s += kAlphabet[(n >> 18) & 63];
    s += kAlphabet[(n >> 12) & 63];
    s += left > 1 ? kAlphabet[(n >> 6) & 63] : '=';
    s += left > 2 ? kAlphabet[n & 63] : '=';
  }
  return s;
}

}  // namespace cuzk::filecoin
