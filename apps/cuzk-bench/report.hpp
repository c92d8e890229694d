#pragma once
// Statistics and output helpers shared by the commands: percentiles and means, number and size
// formatting, an aligned text table, and JSON numbers rounded for reading.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::bench {

// Nearest-rank percentile (p in [0, 100]) of unsorted values; nullopt for an empty set.
std::optional<double> percentile(std::vector<double> values, double p);
std::optional<double> mean(const std::vector<double>& values);

// x rounded to `digits` decimals (for JSON: 12.3456789 -> 12.346).
double rounded(double x, int digits = 3);
// A JSON number rounded, or null.
nlohmann::json json_number(std::optional<double> x, int digits = 3);

std::string fmt_fixed(double x, int digits);
std::string fmt_opt(std::optional<double> x, int digits, const std::string& none = "-");
std::string fmt_bytes(uint64_t bytes);       // "3.2 GiB", "512 B"
std::string fmt_duration(uint64_t seconds);  // "1h 02m 03s"

// Left-aligned first column, right-aligned others, two spaces between columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // `indent` spaces before every line.
  std::string render(int indent = 0) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// "key   value" lines with the keys padded to the longest.
class KeyValues {
 public:
  void add(std::string key, std::string value) { rows_.emplace_back(std::move(key), std::move(value)); }
  std::string render() const;

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

// Hex of bytes (lowercase).
std::string to_hex(const std::string& bytes);

}  // namespace cuzk::bench
