// Reading TOML nodes into Config fields, and the key tables of every section (config_fields.hpp).
#include "engine/config_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

namespace cuzk::engine::config_detail {
namespace {

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
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

Result<uint64_t> to_size(const toml::node& n) {
  if (const auto* i = n.as_integer()) {
    if (i->get() < 0) return make_error("a size cannot be negative (got " + std::to_string(i->get()) + ")");
    return static_cast<uint64_t>(i->get());
  }
  if (const auto* s = n.as_string()) return parse_size(s->get());
  return make_error("expected a size such as \"5GiB\" or an integer number of bytes, got " + describe(n));
}

// memory.total_budget: a size, or "auto" (stored as 0).
Setter set_budget(uint64_t& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    if (const auto* s = n.as_string(); s && lower_trimmed(s->get()) == "auto") {
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

// daemon.socket_mode: an octal string ("0660", "660") or an integer (TOML's 0o660). The range is
// checked by finalize, so that both forms get the same message.
Setter set_socket_mode(unsigned& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    if (const auto* i = n.as_integer()) {
      if (i->get() < 0 || i->get() > 07777) return make_error("expected a mode such as \"0660\", got " + node_text(n));
      dst = static_cast<unsigned>(i->get());
      return true;
    }
    const auto* s = n.as_string();
    if (!s) return make_error("expected an octal mode such as \"0660\", got " + describe(n));
    const std::string& text = s->get();
    unsigned mode = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mode, 8);
    if (text.empty() || text.size() > 4 || ec != std::errc{} || end != text.data() + text.size()) {
      return make_error("\"" + text + "\" is not an octal mode; expected e.g. \"0660\" (owner and group read+write)");
    }
    dst = mode;
    return true;
  };
}

// daemon.socket_group: a group name, or a numeric gid as an integer or a string.
Setter set_group(std::string& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    if (const auto* i = n.as_integer()) {
      if (i->get() < 0 || i->get() >= 0xffffffffLL)
        return make_error("a gid must be 0..4294967294, got " + node_text(n));
      dst = std::to_string(i->get());
      return true;
    }
    const auto* s = n.as_string();
    if (!s) return make_error("expected a group name or a numeric gid, got " + describe(n));
    dst = s->get();
    return true;
  };
}

std::vector<Field> daemon_fields(DaemonSection& s) {
  return {{"listen", set_string(s.listen)},
          {"allow_remote", set_bool(s.allow_remote)},
          {"tls_cert", set_string(s.tls_cert)},
          {"tls_key", set_string(s.tls_key)},
          {"tls_client_ca", set_string(s.tls_client_ca)},
          {"auth_token_file", set_string(s.auth_token_file)},
          {"max_message_bytes", set_size(s.max_message_bytes)},
          {"socket_mode", set_socket_mode(s.socket_mode)},
          {"socket_group", set_group(s.socket_group)},
          {"allow_unauthenticated_from", set_string_array(s.allow_unauthenticated_from)},
          {"metrics_listen", set_string(s.metrics_listen)},
          {"data_dir", set_string(s.data_dir)},
          {"builtin_circuits", set_bool(s.builtin_circuits)}};
}
std::vector<Field> memory_fields(MemorySection& s) {
  return {{"total_budget", set_budget(s.total_budget)},
          {"safety_margin", set_size(s.safety_margin)},
          {"eviction_min_idle", set_duration(s.eviction_min_idle_s)}};
}
// gpus.memory_limit: a size for every device, or a table of sizes by device ordinal.
Setter set_memory_limit(uint64_t& all, std::map<unsigned, uint64_t>& per_device) {
  return [&all, &per_device](const toml::node& n) -> Result<bool> {
    const auto* t = n.as_table();
    if (const auto* none = n.as_string(); none && lower_trimmed(none->get()) == "none") {
      all = 0;
      per_device.clear();
      return true;
    }
    if (!t) {
      auto v = to_size(n);
      if (!v) {
        return make_error(v.error() + ", \"none\", or a table of sizes by device ordinal ({ \"0\" = \"16GiB\" })");
      }
      if (*v == 0) return make_error("a cap of 0 bytes leaves no room for any prover; \"none\" means no cap");
      all = *v;
      per_device.clear();
      return true;
    }
    std::map<unsigned, uint64_t> out;
    for (const auto& [key, value] : *t) {
      const std::string name(key.str());
      unsigned device = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), device);
      if (ec != std::errc{} || end != name.data() + name.size() || name.empty()) {
        return make_error("\"" + name +
                          "\" is not a device ordinal (the table's keys are ordinals: \"0\", \"1\", ...)");
      }
      auto v = to_size(value);
      if (!v) return make_error("device " + name + ": " + v.error());
      if (*v == 0) return make_error("device " + name + ": a cap of 0 bytes leaves no room for any prover");
      out[device] = *v;
    }
    all = 0;
    per_device = std::move(out);
    return true;
  };
}

std::vector<Field> gpus_fields(GpusSection& s) {
  return {{"backend", set_string(s.backend)},
          {"devices", set_unsigned_array(s.devices)},
          {"workers_per_device", set_unsigned(s.workers_per_device)},
          {"deadline_workers", set_unsigned(s.deadline_workers)},
          {"g2_msm", set_string(s.g2_msm)},
          {"msm_table_bits", set_unsigned(s.msm_table_bits)},
          {"overlap_h", set_bool(s.overlap_h)},
          {"memory_limit", set_memory_limit(s.memory_limit, s.memory_limit_per_device)}};
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
std::vector<Field> tuning_fields(Tuning& s) {
  return {{"msm_simd", set_bool(s.msm_simd)},
          {"msm_glv", set_bool(s.msm_glv)},
          {"matvec_stream", set_bool(s.matvec_stream)},
          {"gpu_msm_reduce_threads", set_auto_unsigned(s.gpu_msm_reduce_threads, 32, 4096)},
          {"gpu_msm_prefetch", set_auto_bool(s.gpu_msm_prefetch)},
          {"gpu_msm_affine", set_auto_bool(s.gpu_msm_affine)}};
}
}  // namespace

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

std::string node_text(const toml::node& n) {
  // toml++ prints strings as 'literal' strings; messages quote them as the file most likely did.
  if (const auto* str = n.as_string()) return "\"" + str->get() + "\"";
  std::ostringstream out;
  n.visit([&out](const auto& v) { out << v; });
  return out.str();
}

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

Setter set_unsigned(unsigned& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    auto v = to_unsigned(n);
    if (!v) return make_error(v.error());
    dst = *v;
    return true;
  };
}

Setter set_size(uint64_t& dst) {
  return [&dst](const toml::node& n) -> Result<bool> {
    auto v = to_size(n);
    if (!v) return make_error(v.error());
    dst = *v;
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

std::vector<Field> circuit_fields(CircuitSection& s) {
  return {{"id", set_string(s.id)},     {"builtin", set_string(s.builtin)},    {"pce", set_string(s.pce)},
          {"r1cs", set_string(s.r1cs)}, {"params", set_string(s.params)},      {"vk", set_string(s.vk)},
          {"zkey", set_string(s.zkey)}, {"test_setup", set_bool(s.test_setup)}};
}

std::vector<Section> section_fields(Config& cfg) {
  return {{"daemon", daemon_fields(cfg.daemon)},
          {"memory", memory_fields(cfg.memory)},
          {"gpus", gpus_fields(cfg.gpus)},
          {"scheduler", scheduler_fields(cfg.scheduler)},
          {"synthesis", synthesis_fields(cfg.synthesis)},
          {"prover", prover_fields(cfg.prover)},
          {"srs", srs_fields(cfg.srs)},
          {"pce", pce_fields(cfg.pce)},
          {"logging", logging_fields(cfg.logging)},
          {"tuning", tuning_fields(cfg.tuning)}};
}

const Field* find_field(const std::vector<Section>& sections, std::string_view section, std::string_view key) {
  for (const auto& s : sections) {
    if (section != s.name) continue;
    for (const auto& f : s.fields) {
      if (key == f.key) return &f;
    }
  }
  return nullptr;
}
}  // namespace cuzk::engine::config_detail
