#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace cuzk::bench {

std::optional<double> percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t idx = rank < 1 ? 0 : std::min(values.size() - 1, static_cast<size_t>(rank) - 1);
  return values[idx];
}

std::optional<double> mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double rounded(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

nlohmann::json json_number(std::optional<double> x, int digits) {
  if (!x || !std::isfinite(*x)) return nullptr;
  return rounded(*x, digits);
}

std::string fmt_fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string fmt_opt(std::optional<double> x, int digits, const std::string& none) {
  return x && std::isfinite(*x) ? fmt_fixed(*x, digits) : none;
}

std::string fmt_bytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? std::to_string(bytes) + " B" : fmt_fixed(v, 1) + " " + units[u];
}

std::string fmt_duration(uint64_t seconds) {
  char buf[64];
  const uint64_t h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lluh %02llum %02llus", static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s));
  } else if (m > 0) {
    std::snprintf(buf, sizeof buf, "%llum %02llus", static_cast<unsigned long long>(m),
                  static_cast<unsigned long long>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
  }
  return buf;
}

std::string Table::render(int indent) const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l(static_cast<size_t>(indent), ' ');
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(width[i] - cell.size(), ' ');
      if (i > 0) l += "  ";
      l += i == 0 ? cell + pad : pad + cell;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header_);
  for (const auto& r : rows_) line(r);
  return out;
}

std::string KeyValues::render() const {
  size_t w = 0;
  for (const auto& [k, v] : rows_) w = std::max(w, k.size());
  std::string out;
  for (const auto& [k, v] : rows_) out += k + std::string(w - k.size() + 2, ' ') + v + "\n";
  return out;
}

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

}  // namespace cuzk::bench
