#include "engine/config.hpp"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <system_error>

#include "util/paths.hpp"

namespace cuzk::engine {

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

// ---------------------------------------------------------------------------------------------
// Reading TOML nodes

std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date/time";
  }
}

std::string at(std::string_view source, const toml::source_region& r) {
  return std::string(source) + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column) + ": ";
}

// A setter stores one key's value into the Config, or returns what is wrong with it (the caller
// adds the location and key).
using Setter = std::function<Result<bool>(const toml::node&)>;
struct Field {
  const char* key;
  Setter set;
};

Setter set_string(std::string& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    const auto* v = n.as_string();
    if (!v) return make_error("expected a string, got " + describe(n));
    dst = v->get();
    return true;
  };
}

Setter set_bool(bool& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    const auto* v = n.as_boolean();
    if (!v) return make_error("expected a boolean (true or false), got " + describe(n));
    dst = v->get();
    return true;
  };
}

Result<unsigned> to_unsigned(const toml::node& n) {
  const auto* v = n.as_integer();
  if (!v) return make_error("expected a non-negative integer, got " + describe(n));
  const int64_t x = v->get();
  if (x < 0 || static_cast<uint64_t>(x) > std::numeric_limits<unsigned>::max()) {
    return make_error("expected a non-negative integer below 2^32, got " + std::to_string(x));
  }
  return static_cast<unsigned>(x);
}

Setter set_unsigned(unsigned& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    auto v = to_unsigned(n);
    if (!v) return make_error(v.error());
    dst = *v;
    return true;
  };
}

Result<uint64_t> to_size(const toml::node& n) {
  if (const auto* i = n.as_integer()) {
    if (i->get() < 0) return make_error("a size cannot be negative (got " + std::to_string(i->get()) + ")");
    return static_cast<uint64_t>(i->get());
  }
  if (const auto* s = n.as_string()) return parse_size(s->get());
  return make_error("expected a size such as \"5GiB\" or an integer number of bytes, got " + describe(n));
}

Setter set_size(uint64_t& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    auto v = to_size(n);
    if (!v) return make_error(v.error());
    dst = *v;
    return true;
  };
}

// memory.total_budget: a size, or "auto" (stored as 0).
Setter set_budget(uint64_t& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    if (const auto* s = n.as_string(); s && lower(trim(s->get())) == "auto") {
      dst = 0;
      return true;
    }
    auto v = to_size(n);
    if (!v) return make_error(v.error() + " (or \"auto\")");
    dst = *v;
    return true;
  };
}

Setter set_duration(double& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    double x = 0;
    if (const auto* i = n.as_integer()) {
      x = static_cast<double>(i->get());
    } else if (const auto* f = n.as_floating_point()) {
      x = f->get();
    } else if (const auto* s = n.as_string()) {
      auto v = parse_duration(s->get());
      if (!v) return make_error(v.error());
      x = *v;
    } else {
      return make_error("expected a duration such as \"5m\", \"30s\" or a number of seconds, got " + describe(n));
    }
    if (!std::isfinite(x) || x < 0) return make_error("a duration must be a finite number of seconds >= 0");
    dst = x;
    return true;
  };
}

Setter set_string_array(std::vector<std::string>& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    const auto* a = n.as_array();
    if (!a) return make_error("expected an array of strings, got " + describe(n));
    std::vector<std::string> out;
    for (const auto& e : *a) {
      const auto* s = e.as_string();
      if (!s) return make_error("expected an array of strings, but an element is " + describe(e));
      out.push_back(s->get());
    }
    dst = std::move(out);
    return true;
  };
}

Setter set_unsigned_array(std::vector<unsigned>& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    const auto* a = n.as_array();
    if (!a) return make_error("expected an array of non-negative integers, got " + describe(n));
    std::vector<unsigned> out;
    for (const auto& e : *a) {
      auto v = to_unsigned(e);
      if (!v) return make_error("in the array: " + v.error());
      out.push_back(*v);
    }
    dst = std::move(out);
    return true;
  };
}

std::string key_list(const std::vector<Field>& fields) {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + std::string(f.key);
  return out;
}

// Reads every key of `table` through `fields`. `prefix` names the section in messages ("memory").
Result<bool> read_table(const toml::table& table, std::string_view source, const std::string& prefix,
                        const std::vector<Field>& fields) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();  // clang < 16 cannot capture a structured binding
    const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return name == f.key; });
    if (it == fields.end()) {
      std::string msg = at(source, key.source()) + "unknown key '" + std::string(key.str()) + "' in [" + prefix + "]";
      for (const auto& f : fields) {
        if (edit_distance(key.str(), f.key) <= 2) {
          msg += " (did you mean '" + std::string(f.key) + "'?)";
          break;
        }
      }
      return make_error(msg + "; valid keys: " + key_list(fields));
    }
    if (auto r = it->set(node); !r) {
      return make_error(at(source, node.source()) + prefix + "." + std::string(key.str()) + ": " + r.error());
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Sections: key name -> field. Durations are keys without the "_s" of their struct fields.

std::vector<Field> daemon_fields(DaemonSection& s) {
  return {{"listen", set_string(s.listen)},
          {"allow_remote", set_bool(s.allow_remote)},
          {"tls_cert", set_string(s.tls_cert)},
          {"tls_key", set_string(s.tls_key)},
          {"tls_client_ca", set_string(s.tls_client_ca)},
          {"auth_token_file", set_string(s.auth_token_file)},
          {"max_message_bytes", set_size(s.max_message_bytes)},
          {"metrics_listen", set_string(s.metrics_listen)},
          {"data_dir", set_string(s.data_dir)},
          {"builtin_circuits", set_bool(s.builtin_circuits)}};
}
std::vector<Field> memory_fields(MemorySection& s) {
  return {{"total_budget", set_budget(s.total_budget)},
          {"safety_margin", set_size(s.safety_margin)},
          {"eviction_min_idle", set_duration(s.eviction_min_idle_s)}};
}
std::vector<Field> gpus_fields(GpusSection& s) {
  return {{"backend", set_string(s.backend)},
          {"devices", set_unsigned_array(s.devices)},
          {"workers_per_device", set_unsigned(s.workers_per_device)},
          {"deadline_workers", set_unsigned(s.deadline_workers)},
          {"g2_msm", set_string(s.g2_msm)},
          {"msm_table_bits", set_unsigned(s.msm_table_bits)},
          {"overlap_h", set_bool(s.overlap_h)}};
}
std::vector<Field> scheduler_fields(SchedulerSection& s) {
  return {{"max_pending_jobs", set_unsigned(s.max_pending_jobs)},
          {"completed_retention", set_duration(s.completed_retention_s)}};
}
std::vector<Field> synthesis_fields(SynthesisSection& s) {
  return {{"workers", set_unsigned(s.workers)},
          {"threads", set_unsigned(s.threads)},
          {"lookahead", set_unsigned(s.lookahead)},
          {"nice", set_unsigned(s.nice)}};
}
std::vector<Field> prover_fields(ProverSection& s) {
  return {{"workers", set_unsigned(s.workers)},
          {"threads", set_unsigned(s.threads)},
          {"finalize_workers", set_unsigned(s.finalize_workers)}};
}
std::vector<Field> srs_fields(SrsSection& s) {
  return {{"param_dir", set_string(s.param_dir)},
          {"preload", set_string_array(s.preload)},
          {"check_subgroups", set_bool(s.check_subgroups)},
          {"allow_test_keys", set_bool(s.allow_test_keys)},
          {"test_keys", set_string(s.test_keys)}};
}
std::vector<Field> pce_fields(PceSection& s) {
  return {{"dir", set_string(s.dir)},
          {"extract_on_first_use", set_bool(s.extract_on_first_use)},
          {"verify_checksums", set_bool(s.verify_checksums)}};
}
std::vector<Field> logging_fields(LoggingSection& s) {
  return {{"level", set_string(s.level)}, {"format", set_string(s.format)}};
}
// "auto" or a value: unset std::optional for "auto".
Setter set_auto_bool(std::optional<bool>& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    if (const auto* s = n.as_string(); s && s->get() == "auto") {
      dst.reset();
      return true;
    }
    const auto* v = n.as_boolean();
    if (!v) return make_error("expected true, false or \"auto\", got " + describe(n));
    dst = v->get();
    return true;
  };
}
Setter set_auto_unsigned(std::optional<unsigned>& dst, unsigned lo, unsigned hi) {
  return [&dst, lo, hi](const toml::node& n) -> Result<bool> {
    if (const auto* s = n.as_string(); s && s->get() == "auto") {
      dst.reset();
      return true;
    }
    auto v = to_unsigned(n);
    if (!v || *v < lo || *v > hi) {
      return make_error("expected \"auto\" or an integer " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                        describe(n));
    }
    dst = *v;
    return true;
  };
}
std::vector<Field> tuning_fields(Tuning& s) {
  return {{"msm_simd", set_bool(s.msm_simd)},
          {"msm_glv", set_bool(s.msm_glv)},
          {"matvec_stream", set_bool(s.matvec_stream)},
          {"gpu_msm_reduce_threads", set_auto_unsigned(s.gpu_msm_reduce_threads, 32, 4096)},
          {"gpu_msm_prefetch", set_auto_bool(s.gpu_msm_prefetch)},
          {"gpu_msm_affine", set_auto_bool(s.gpu_msm_affine)}};
}
std::vector<Field> circuit_fields(CircuitSection& s) {
  return {{"id", set_string(s.id)},     {"builtin", set_string(s.builtin)},    {"pce", set_string(s.pce)},
          {"r1cs", set_string(s.r1cs)}, {"params", set_string(s.params)},      {"vk", set_string(s.vk)},
          {"zkey", set_string(s.zkey)}, {"test_setup", set_bool(s.test_setup)}};
}

constexpr const char* kSections =
    "daemon, memory, gpus, scheduler, synthesis, prover, srs, pce, logging, tuning, [[circuits]]";

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
  const std::vector<std::pair<const char*, std::vector<Field>>> sections = {
      {"daemon", daemon_fields(cfg.daemon)},
      {"memory", memory_fields(cfg.memory)},
      {"gpus", gpus_fields(cfg.gpus)},
      {"scheduler", scheduler_fields(cfg.scheduler)},
      {"synthesis", synthesis_fields(cfg.synthesis)},
      {"prover", prover_fields(cfg.prover)},
      {"srs", srs_fields(cfg.srs)},
      {"pce", pce_fields(cfg.pce)},
      {"logging", logging_fields(cfg.logging)},
      {"tuning", tuning_fields(cfg.tuning)}};

  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (name == "circuits") {
      const auto* arr = node.as_array();
      if (!arr) {
        return make_error(at(source, node.source()) +
                          "circuits must be an array of tables: write each circuit as "
                          "[[circuits]] (double brackets), got " +
                          describe(node));
      }
      for (const auto& e : *arr) {
        const auto* t = e.as_table();
        if (!t) return make_error(at(source, e.source()) + "each circuits entry must be a table, got " + describe(e));
        CircuitSection c;
        if (auto r = read_table(*t, source, "circuits", circuit_fields(c)); !r) return make_error(r.error());
        cfg.circuits.push_back(std::move(c));
      }
      continue;
    }
    const auto it = std::find_if(sections.begin(), sections.end(), [&](const auto& s) { return name == s.first; });
    if (it == sections.end()) {
      std::string msg = at(source, key.source()) + "unknown section or key '" + name + "'";
      for (const auto& s : sections) {
        if (edit_distance(name, s.first) <= 2) {
          msg += " (did you mean [" + std::string(s.first) + "]?)";
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
    if (auto r = read_table(*t, source, name, it->second); !r) return make_error(r.error());
    for (const auto& [key, value] : *t) cfg.explicit_keys.insert(name + "." + std::string(key.str()));
  }
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
