#include "engine/circuit_registry.hpp"

namespace cuzk::engine {

std::string file_stem(const std::string& circuit_id) {
  std::string out;
  for (char c : circuit_id) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '^';
    out += safe ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out;
}

CircuitDef CircuitRegistry::builtin_def(const std::string& id, const circuits::BuiltinSpec& spec) const {
  CircuitDef d;
  d.id = id;
  d.source = CircuitSource::Builtin;
  d.builtin = spec;
  d.pce_path = pce_dir_ + "/" + file_stem(id) + ".pce";
  d.params_path = param_dir_ + "/" + file_stem(id) + ".params";
  d.vk_path = param_dir_ + "/" + file_stem(id) + ".vk";
  d.test_setup = true;
  return d;
}

CircuitRegistry::CircuitRegistry(const Config& config)
    : builtins_(config.daemon.builtin_circuits), param_dir_(config.srs.param_dir), pce_dir_(config.pce.dir) {
  for (const CircuitSection& c : config.circuits) {
    CircuitDef d;
    d.id = c.id;
    d.test_setup = c.test_setup;
    d.params_path = c.params;
    d.vk_path = c.vk;
    if (!c.builtin.empty()) {
      d = builtin_def(c.id, circuits::parse_builtin(c.builtin).value());
      d.test_setup = c.test_setup || c.params.empty();
      if (!c.params.empty()) d.params_path = c.params;
      if (!c.vk.empty()) d.vk_path = c.vk;
    } else if (!c.pce.empty()) {
      d.source = CircuitSource::Pce;
      d.pce_path = c.pce;
    } else if (!c.r1cs.empty()) {
      d.source = CircuitSource::R1cs;
      d.r1cs_path = c.r1cs;
      d.pce_path = pce_dir_ + "/" + file_stem(c.id) + ".pce";
    } else {
      d.source = CircuitSource::Zkey;
      d.zkey_path = c.zkey;
    }
    if (!d.uses_zkey() && d.params_path.empty()) {
      d.params_path = param_dir_ + "/" + file_stem(c.id) + ".params";
      if (d.vk_path.empty()) d.vk_path = param_dir_ + "/" + file_stem(c.id) + ".vk";
    }
    defs_[c.id] = d;
  }
}

Result<CircuitDef> CircuitRegistry::find(const std::string& id) const {
  if (auto it = defs_.find(id); it != defs_.end()) return it->second;
  if (builtins_) {
    auto spec = circuits::parse_builtin(id);
    // "chain:2^10" and "chain:1024" are one circuit: keyed (and cached) by the canonical name.
    if (spec.ok()) {
      return builtin_def(spec->name(), *spec);
    }
  }
  std::string known;
  for (const auto& [k, v] : defs_) known += (known.empty() ? "" : ", ") + k;
  return make_error("unknown circuit id '" + id + "'" + (known.empty() ? "" : "; configured: " + known) +
                    (builtins_ ? "; or a built-in circuit:\n" + circuits::builtin_help() : ""));
}

std::vector<std::string> CircuitRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : defs_) out.push_back(k);
  return out;
}

}  // namespace cuzk::engine
