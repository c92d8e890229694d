#include "engine/circuit_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "filecoin/registered_proof.hpp"
#include "util/quote.hpp"

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

std::string CircuitRegistry::porep_id(uint64_t sector_size) {
  return "porep:" + filecoin::sector_size_name(sector_size);
}

std::string CircuitRegistry::post_id(const filecoin::RegisteredPostProof& proof) {
  return filecoin::post_circuit_id(proof);
}

std::string CircuitRegistry::snap_id(const filecoin::RegisteredUpdateProof& proof) {
  return filecoin::snap_circuit_id(proof);
}

CircuitDef CircuitRegistry::filecoin_def(std::string id, CircuitSource source, const std::string& official_stem) const {
  CircuitDef d;
  d.id = std::move(id);
  d.source = source;
  d.pce_path = pce_dir_ + "/" + file_stem(d.id) + ".pce";
  const std::string official = param_dir_ + "/" + official_stem;
  std::error_code ec;
  if (std::filesystem::exists(official + ".params", ec)) {
    d.params_path = official + ".params";
    d.vk_path = std::filesystem::exists(official + ".vk", ec) ? official + ".vk" : "";
    d.test_setup = false;
  } else {
    d.params_path = param_dir_ + "/" + file_stem(d.id) + ".params";
    d.vk_path = param_dir_ + "/" + file_stem(d.id) + ".vk";
    d.test_setup = true;
  }
  return d;
}

std::optional<Result<CircuitDef>> CircuitRegistry::find_filecoin(const std::string& id) const {
  const size_t colon = id.find(':');
  const std::string prefix = colon == std::string::npos ? "" : id.substr(0, colon);
  if (prefix != "porep" && prefix != "window-post" && prefix != "winning-post" && prefix != "snap") {
    return std::nullopt;
  }
  CircuitDef d;
  std::string official;
  try {
    const uint64_t size = filecoin::parse_sector_size(id.substr(colon + 1));
    if (prefix == "porep") {
      official = filecoin::porep_parameter_file_stem(filecoin::default_seal_proof(size));
      d = filecoin_def(porep_id(size), CircuitSource::Porep, official);
      d.porep_sector_size = size;
    } else if (prefix == "snap") {
      const filecoin::RegisteredUpdateProof& update = filecoin::update_proof_of_size(size);
      official = filecoin::update_parameter_file_stem(update);
      d = filecoin_def(snap_id(update), CircuitSource::Snap, official);
      d.update_proof = &update;
    } else {
      const auto type = prefix == "window-post" ? filecoin::PostType::kWindow : filecoin::PostType::kWinning;
      const filecoin::RegisteredPostProof& post = filecoin::default_post_proof(type, size);
      official = filecoin::post_parameter_file_stem(post);
      d = filecoin_def(post_id(post), CircuitSource::Post, official);
      d.post_proof = &post;
    }
  } catch (const std::exception& e) {
    return make_error("circuit id " + short_quote(id) + ": " + e.what());
  }
  if (d.test_setup && !allow_test_keys_) {
    return make_error("circuit '" + d.id + "': the official parameter file " + official +
                      ".params is not in the parameter directory " + param_dir_ +
                      " (srs.param_dir); put the official .params and .vk there, or set srs.allow_test_keys = "
                      "true for TEST-ONLY keys whose proofs no chain accepts");
  }
  return d;
}

CircuitRegistry::CircuitRegistry(const Config& config)
    : builtins_(config.daemon.builtin_circuits),
      allow_test_keys_(config.srs.allow_test_keys),
      param_dir_(config.srs.param_dir),
      pce_dir_(config.pce.dir) {
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
  if (auto d = find_filecoin(id)) return std::move(*d);
  if (builtins_) {
    auto spec = circuits::parse_builtin(id);
    // "chain:2^10" and "chain:1024" are one circuit: keyed (and cached) by the canonical name.
    if (spec.ok()) {
      return builtin_def(spec->name(), *spec);
    }
  }
  std::string known;
  for (const auto& [k, v] : defs_) known += (known.empty() ? "" : ", ") + k;
  return make_error("unknown circuit id " + short_quote(id) + (known.empty() ? "" : "; configured: " + known) +
                    (builtins_ ? "; or a built-in circuit:\n" + circuits::builtin_help() : ""));
}

std::vector<std::string> CircuitRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : defs_) out.push_back(k);
  return out;
}

std::vector<std::string> CircuitRegistry::output_dirs() const {
  std::vector<std::string> out = {param_dir_, pce_dir_};
  auto add_parent = [&](const std::string& path) {
    if (path.empty()) return;
    // (Not `dir = "."` on an empty string: GCC 12 warns about that assignment, -Wrestrict.)
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? std::string(1, '.') : parent.string();
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
  };
  for (const auto& [id, d] : defs_) {
    // A configured .pce (source Pce) is an input; an r1cs or built-in circuit's is written here.
    if (d.source != CircuitSource::Pce) add_parent(d.pce_path);
    if (d.test_setup) {
      add_parent(d.params_path);
      add_parent(d.vk_path);
    }
  }
  return out;
}

}  // namespace cuzk::engine
