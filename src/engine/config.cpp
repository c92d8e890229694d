// The config parser: TOML text to Config, every key through its setter (config_fields.hpp) and the
// seed daemon's keys through config_seed.hpp; sizes, durations and relative paths.
#include "engine/config.hpp"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <system_error>

#include "engine/config_fields.hpp"
#include "engine/config_seed.hpp"
#include "util/paths.hpp"

namespace cuzk::engine {

using namespace config_detail;  // NOLINT(google-build-using-namespace): the parser's own helpers

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Numbers with units

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "<digits>[.<digits>]<spaces><unit>": splits off the number; false if there is none.
struct Quantity {
  std::string_view whole, fraction, unit;
};
bool split_quantity(std::string_view s, Quantity& q) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return false;
  q.whole = s.substr(0, i);
  q.fraction = {};
  if (i < s.size() && s[i] == '.') {
    const size_t start = ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) return false;
    q.fraction = s.substr(start, i - start);
  }
  q.unit = trim(s.substr(i));
  return true;
}

// Small Levenshtein distance, for "did you mean" hints on misspelt keys.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string key_list(const std::vector<Field>& fields) {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + std::string(f.key);
  return out;
}

// Reads every key of `table` through `fields`. `prefix` names the section in messages ("memory").
// The seed daemon's keys go to `seed` (read after the whole file); any other unknown key is an
// error. Our keys are recorded in `explicit_keys`.
Result<bool> read_table(const toml::table& table, std::string_view source, const std::string& prefix,
                        const std::vector<Field>& fields, std::vector<SeedOccurrence>& seed,
                        std::set<std::string>& explicit_keys) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();  // clang < 16 cannot capture a structured binding
    const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return name == f.key; });
    if (it != fields.end()) {
      if (auto r = it->set(node); !r) {
        return make_error(at(source, node.source()) + prefix + "." + std::string(name) + ": " + r.error());
      }
      explicit_keys.insert(prefix + "." + std::string(name));
      continue;
    }
    if (const SeedKey* k = find_seed_key(prefix, name)) {
      seed.push_back({k, &node});
      continue;
    }
    std::string msg = at(source, key.source()) + "unknown key '" + std::string(name) + "' in [" + prefix + "]";
    for (const auto& f : fields) {
      if (edit_distance(name, f.key) <= 2) {
        msg += " (did you mean '" + std::string(f.key) + "'?)";
        break;
      }
    }
    if (fields.empty()) {  // [pipeline]: the seed's section, no key of ours
      return make_error(msg + "; [" + prefix + "] is read for the seed daemon's keys: " + seed_key_list(prefix));
    }
    return make_error(msg + "; valid keys: " + key_list(fields));
  }
  return true;
}

// The [[circuits]] array.
Result<bool> read_circuits(const toml::node& node, std::string_view source, Config& cfg,
                           std::vector<SeedOccurrence>& seed) {
  const auto* arr = node.as_array();
  if (!arr) {
    return make_error(
        at(source, node.source()) +
        "circuits must be an array of tables: write each circuit as [[circuits]] (double brackets), got " +
        describe(node));
  }
  for (const auto& e : *arr) {
    const auto* t = e.as_table();
    if (!t) return make_error(at(source, e.source()) + "each circuits entry must be a table, got " + describe(e));
    CircuitSection c;
    std::set<std::string> unused;  // circuits are not knobs that finalize checks
    if (auto r = read_table(*t, source, "circuits", circuit_fields(c), seed, unused); !r) return r;
    cfg.circuits.push_back(std::move(c));
  }
  return true;
}

constexpr const char* kSections =
    "daemon, memory, gpus, scheduler, synthesis, prover, srs, pce, logging, tuning, [[circuits]] (and the seed "
    "daemon's pipeline)";

void resolve(std::string& path, const fs::path& base) {
  if (path.empty() || fs::path(path).is_absolute()) return;
  path = (base / path).lexically_normal().string();
}

}  // namespace

// -----------------------------------------------------------------------------------------------

Result<uint64_t> parse_size(std::string_view text) {
  const std::string_view s = trim(text);
  const std::string usage = "invalid size \"" + std::string(text) +
                            "\": expected a whole number of bytes or a number with a unit: B, KiB, MiB, GiB, TiB "
                            "(powers of 1024) or KB, MB, GB, TB (powers of 1000), as in \"5GiB\" or \"512MiB\"";
  Quantity q;
  if (!split_quantity(s, q)) return make_error(usage);
  const std::string unit = lower(q.unit);
  uint64_t mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  if (unit == "kib") mult = 1ull << 10;
  if (unit == "mib") mult = 1ull << 20;
  if (unit == "gib") mult = 1ull << 30;
  if (unit == "tib") mult = 1ull << 40;
  if (unit == "kb") mult = 1000ull;
  if (unit == "mb") mult = 1000ull * 1000;
  if (unit == "gb") mult = 1000ull * 1000 * 1000;
  if (unit == "tb") mult = 1000ull * 1000 * 1000 * 1000;
  if (mult == 0) return make_error(usage);
  if (mult == 1 && !q.fraction.empty()) return make_error(usage + " (bytes must be a whole number)");

  const std::string too_large = "size \"" + std::string(text) + "\" is too large";
  uint64_t whole = 0;
  if (std::from_chars(q.whole.data(), q.whole.data() + q.whole.size(), whole).ec != std::errc{}) {
    return make_error(too_large);
  }
  if (whole > std::numeric_limits<uint64_t>::max() / mult) return make_error(too_large);
  uint64_t bytes = whole * mult;
  if (!q.fraction.empty()) {
    // Exact integer arithmetic (rounded down), so "1.5GiB" is exactly 1.5 * 2^30.
    const std::string_view digits = q.fraction.substr(0, 18);
    uint64_t num = 0, den = 1;
    for (char c : digits) {
      num = num * 10 + static_cast<uint64_t>(c - '0');
      den *= 10;
    }
    const auto extra = static_cast<uint64_t>(static_cast<unsigned __int128>(num) * mult / den);
    if (extra > std::numeric_limits<uint64_t>::max() - bytes) return make_error(too_large);
    bytes += extra;
  }
  return bytes;
}

Result<double> parse_duration(std::string_view text) {
  const std::string_view s = trim(text);
  const std::string usage = "invalid duration \"" + std::string(text) +
                            "\": expected a number of seconds or a number with a unit ms, s, m, h or d, as in "
                            "\"250ms\", \"30s\", \"5m\" or \"2h\"";
  Quantity q;
  if (!split_quantity(s, q)) return make_error(usage);
  const std::string unit = lower(q.unit);
  double mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  if (unit == "ms") mult = 1e-3;
  if (unit == "m" || unit == "min") mult = 60;
  if (unit == "h") mult = 3600;
  if (unit == "d") mult = 86400;
  if (mult == 0) return make_error(usage);
  const std::string_view number = s.substr(0, q.whole.size() + (q.fraction.empty() ? 0 : q.fraction.size() + 1));
  double v = 0;
  if (std::from_chars(number.data(), number.data() + number.size(), v).ec != std::errc{} || !std::isfinite(v)) {
    return make_error(usage);
  }
  // Division for milliseconds keeps "250ms" exactly 0.25 (multiplying by 1e-3 would round).
  return unit == "ms" ? v / 1000.0 : v * mult;
}

std::string octal_mode(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode);
  return buf;
}

std::string Config::key_name(const std::string& key) const {
  const auto it = seed_names.find(key);
  return it == seed_names.end() ? key : it->second + " (" + key + " here)";
}

void resolve_relative_paths(Config& config, const std::string& base_dir) {
  std::error_code ec;  // no working directory (deleted): keep the paths relative rather than fail
  fs::path base = fs::absolute(base_dir.empty() ? fs::path(".") : fs::path(base_dir), ec);
  if (ec) base = base_dir;
  resolve(config.daemon.data_dir, base);
  resolve(config.daemon.tls_cert, base);
  resolve(config.daemon.tls_key, base);
  resolve(config.daemon.tls_client_ca, base);
  resolve(config.daemon.auth_token_file, base);
  resolve(config.srs.param_dir, base);
  resolve(config.pce.dir, base);
  for (auto& c : config.circuits) {
    resolve(c.pce, base);
    resolve(c.r1cs, base);
    resolve(c.params, base);
    resolve(c.vk, base);
    resolve(c.zkey, base);
  }
}

Result<Config> parse_config(std::string_view toml_text, std::string_view source) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    return make_error(at(source, e.source()) + "TOML syntax error: " + std::string(e.description()));
  }

  Config cfg;
  // Sections that are plain tables; [[circuits]] is handled separately below.
  const std::vector<Section> sections = section_fields(cfg);
  std::vector<SeedOccurrence> seed;
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (name == "circuits") {
      if (auto r = read_circuits(node, source, cfg, seed); !r) return make_error(r.error());
      continue;
    }
    const auto it = std::find_if(sections.begin(), sections.end(), [&](const Section& s) { return name == s.name; });
    if (it == sections.end() && !is_seed_section(name)) {
      std::string msg = at(source, key.source()) + "unknown section or key '" + name + "'";
      for (const auto& s : sections) {
        if (edit_distance(name, s.name) <= 2) {
          msg += " (did you mean [" + std::string(s.name) + "]?)";
          break;
        }
      }
      return make_error(msg + "; valid sections: " + kSections);
    }
    const auto* t = node.as_table();
    if (!t) {
      return make_error(at(source, node.source()) + "'" + name + "' must be a section ([" + name + "]), got " +
                        describe(node));
    }
    const std::vector<Field> none;
    if (auto r = read_table(*t, source, name, it == sections.end() ? none : it->fields, seed, cfg.explicit_keys); !r) {
      return make_error(r.error());
    }
  }
  if (auto r = apply_seed_keys(cfg, root, std::move(seed), source); !r) return make_error(r.error());
  return cfg;
}

Result<Config> load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec(errno, std::generic_category());
    return make_error("cannot read config file " + path + ": " + ec.message());
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error("cannot read config file " + path + ": read error");

  auto cfg = parse_config(text.str(), path);
  if (!cfg) return cfg;
  // Relative paths in the file ([[circuits]] files, srs.param_dir, pce.dir, daemon.data_dir) mean
  // relative to the file's directory, not to wherever the daemon happens to be started.
  resolve_relative_paths(*cfg, fs::path(path).parent_path().string());
  if (auto r = cfg->finalize(); !r) return make_error(path + ": " + r.error());
  return cfg;
}

Result<Config> default_config() {
  Config cfg;
  if (auto r = cfg.finalize(); !r) return make_error(r.error());
  return cfg;
}

}  // namespace cuzk::engine