#pragma once
// Loading of the known-answer fixtures in tests/vectors/*.json (generated from @noble/curves by
// tests/vectors/gen_vectors.mjs; see the "note" field of each file for its layout).
//
// The directory is $CUZK_VECTORS_DIR when that environment variable is set and non-empty (so the
// tests can be pointed at freshly generated vectors: tests/vectors/check_live.mjs), otherwise the
// compile-time CUZK_VECTORS_DIR that tests/CMakeLists.txt defines (the checked-in fixtures).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::test {

using json = nlohmann::json;

inline std::string vectors_dir() {
  if (const char* env = std::getenv("CUZK_VECTORS_DIR"); env != nullptr && *env != '\0') return env;
#ifdef CUZK_VECTORS_DIR
  return CUZK_VECTORS_DIR;
#else
  return "tests/vectors";
#endif
}

// Parses <vectors_dir>/<name> (e.g. "fr.json"); throws std::runtime_error naming the path when the
// file is missing or is not valid JSON (gtest reports the exception as a test failure).
inline json load_vectors(std::string_view name) {
  const std::string path = vectors_dir() + "/" + std::string(name);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open test vectors " + path + " (set CUZK_VECTORS_DIR?)");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error("cannot parse test vectors " + path + ": " + e.what());
  }
}

// "0x"-prefix optional, even number of hex digits; throws std::invalid_argument otherwise.
inline std::vector<uint8_t> hex_to_bytes(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.size() % 2 != 0) throw std::invalid_argument("hex string of odd length");
  auto nibble = [](char c) -> uint8_t {
    if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
    throw std::invalid_argument(std::string("invalid hex digit '") + c + "'");
  };
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
  return out;
}

// Lowercase, no prefix (the fixtures' byte-string format).
inline std::string bytes_to_hex(std::span<const uint8_t> b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.size());
  for (uint8_t c : b) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 15]);
  }
  return s;
}

// A small unsigned integer written as "0x..." hex (e.g. pow exponents).
inline uint64_t u64_from_hex(std::string_view s) {
  const auto b = hex_to_bytes(s);
  if (b.size() > 8) {
    for (size_t i = 0; i + 8 < b.size(); ++i)
      if (b[i] != 0) throw std::invalid_argument("hex value does not fit 64 bits");
  }
  uint64_t v = 0;
  for (uint8_t c : b) v = v << 8 | c;
  return v;
}

// A prime-field element from its fixture hex string (canonical, big-endian).
template <class F>
F fe(const json& j) {
  return F::from_hex(j.get<std::string>()).value();
}

// A quadratic-extension element from its fixture value [c0, c1] (c0 + c1*u).
template <class F2>
F2 fe2(const json& j) {
  if (!j.is_array() || j.size() != 2) throw std::invalid_argument("Fq2 fixture value is not [c0, c1]: " + j.dump());
  return F2(fe<typename F2::Base>(j[0]), fe<typename F2::Base>(j[1]));
}

// Description of a fixture for failure messages: "<file> case <i> (seed ...)".
inline std::string describe(const json& file, std::string_view what, size_t i) {
  std::string seed = file.contains("meta") ? file["meta"].value("seed", "?") : "?";
  return std::string(what) + " case " + std::to_string(i) + " (seed " + seed + ")";
}

}  // namespace cuzk::test
