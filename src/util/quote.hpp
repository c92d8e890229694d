#pragma once
// Untrusted text quoted in an error message: a short printable prefix and, when cut, the length, so
// that a hostile 100 MB value floods neither a log nor a gRPC status.
#include <cstddef>
#include <string>
#include <string_view>

namespace cuzk {

inline std::string short_quote(std::string_view text, size_t max_chars = 128) {
  std::string out = "\"";
  for (char c : text.substr(0, max_chars)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  out += '"';
  if (text.size() > max_chars) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace cuzk
