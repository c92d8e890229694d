// The seed daemon's configuration keys (config_seed.hpp). What each one meant there: curio
// extern/cuzk/cuzk-core/src/config.rs and extern/cuzk/cuzk.example.toml.
#include "engine/config_seed.hpp"

#include <algorithm>
#include <array>

namespace cuzk::engine::config_detail {
namespace {

using Type = SeedKey::Type;

// Mapped keys mean the same here. The others, and why they have no counterpart.
const std::array kSeedKeys = {
    SeedKey{"daemon", "status_listen", "daemon.metrics_listen", ""},
    SeedKey{"memory", "pinned_budget", nullptr,
            "the seed daemon deprecated and ignored it; memory.total_budget covers all memory here", Type::Size},
    SeedKey{"memory", "working_memory_budget", nullptr,
            "the seed daemon deprecated and ignored it; memory.total_budget covers all memory here", Type::Size},
    SeedKey{"gpus", "gpu_threads", "prover.threads", ""},
    SeedKey{"gpus", "gpu_workers_per_device", "gpus.workers_per_device", ""},
    SeedKey{"scheduler", "max_batch_size", nullptr,
            "the seed's cross-sector batching; here the partitions of different jobs overlap in the pipeline, so "
            "no proof waits for a batch to fill",
            Type::Unsigned},
    SeedKey{"scheduler", "max_batch_wait_ms", nullptr, "the seed's batch fill timeout; nothing is batched here",
            Type::Unsigned},
    SeedKey{"scheduler", "sort_by_type", nullptr,
            "the seed never read it; here every queue orders work by priority, then submission", Type::Bool},
    SeedKey{"synthesis", "partition_workers", nullptr,
            "the seed daemon deprecated and ignored it; synthesis.workers sets the partitions synthesized at once "
            "here",
            Type::Unsigned},
    SeedKey{"pipeline", "enabled", nullptr,
            "the proving pipeline is always on here (false chose the seed's older monolithic provers)", Type::Bool},
    SeedKey{"pipeline", "synthesis_lookahead", nullptr,
            "the seed only logged it; synthesis.lookahead is the nearest key here, but it counts partitions (not "
            "proofs) synthesized or waiting for the prover, and 1 would leave the prover idle",
            Type::Unsigned},
    SeedKey{"pipeline", "synthesis_concurrency", nullptr,
            "the seed's number of proofs synthesized at once; here synthesis.workers counts partitions, whatever "
            "proof they belong to",
            Type::Unsigned},
    SeedKey{"pipeline", "max_parallel_synthesis", "synthesis.workers", ""},
    SeedKey{"pipeline", "slot_size", nullptr, "a code path the seed never reached; nothing corresponds to it here",
            Type::Unsigned},
    SeedKey{"pipeline", "max_gpu_queue_depth", nullptr,
            "the seed's dispatch pacer; here synthesis.lookahead bounds the partitions synthesized or waiting for "
            "the prover",
            Type::Unsigned},
    SeedKey{"srs", "param_cache", "srs.param_dir", ""},
};

std::string name_of(const SeedKey& k) {
  return std::string(k.section) + "." + k.key;
}

Result<bool> check_type(const SeedKey& k, const toml::node& n) {
  unsigned u = 0;
  bool b = false;
  uint64_t size = 0;
  switch (k.type) {
    case Type::Unsigned:
      return set_unsigned(u)(n);
    case Type::Bool:
      return set_bool(b)(n);
    case Type::Size:
      return set_size(size)(n);
  }
  return true;
}

// A mapped key: into our key, or compared with it when the file sets both.
Result<bool> read_mapped(Config& cfg, const toml::table& root, const SeedOccurrence& o, std::string_view source) {
  const std::string seed = name_of(*o.seed);
  const std::string ours = o.seed->ours;
  const std::string section = ours.substr(0, ours.find('.'));
  const std::string key = ours.substr(section.size() + 1);
  Config scratch;
  const auto scratch_fields = section_fields(scratch);
  if (auto r = find_field(scratch_fields, section, key)->set(*o.node); !r) {
    return make_error(at(source, o.node->source()) + seed + " (the seed daemon's name for " + ours + "): " + r.error());
  }
  if (const toml::node* mine = root.at_path(ours).node()) {
    // Both given: the same value is fine, another is ambiguous. Comparing the two scratch configs'
    // printed form compares the parsed values ("32GiB" equals 34359738368) whatever their type.
    Config other;
    const auto other_fields = section_fields(other);
    (void)find_field(other_fields, section, key)->set(*mine);  // read_table has checked it
    if (config_to_toml(scratch) == config_to_toml(other)) return true;
    return make_error(at(source, o.node->source()) + seed + " = " + node_text(*o.node) + " and " + ours + " = " +
                      node_text(*mine) + " set the same thing (" + seed + " is the seed daemon's name for " + ours +
                      ") to different values; keep one of them");
  }
  const auto fields = section_fields(cfg);
  (void)find_field(fields, section, key)->set(*o.node);  // checked on the scratch copy above
  cfg.explicit_keys.insert(ours);
  cfg.seed_names[ours] = seed;
  return true;
}

// "porep-32g" -> "porep:32GiB"; "" for anything else. The seed's ids (srs_manager.rs CircuitId),
// with the 64 GiB PoSt ones it lacks.
std::string our_circuit_id(const std::string& seed_id) {
  static const std::array<std::pair<const char*, const char*>, 4> kKinds = {
      {{"porep-", "porep:"}, {"wpost-", "window-post:"}, {"winning-", "winning-post:"}, {"snap-", "snap:"}}};
  for (const auto& [prefix, ours] : kKinds) {
    const std::string p = prefix;
    if (seed_id.rfind(p, 0) != 0) continue;
    const std::string size = seed_id.substr(p.size());
    if (size == "32g" || size == "64g") return ours + size.substr(0, 2) + "GiB";
  }
  return "";
}

// The seed ignored srs.preload (it loads keys on first use), so its ids are not preloaded here
// either: a seed config listing all four 32 GiB kinds would otherwise load ~100 GiB of keys at
// start, or refuse to start where one kind's official parameters are missing.
void drop_seed_preload_ids(Config& cfg) {
  std::vector<std::string> kept;
  std::string seed_ids, ours;
  for (const std::string& id : cfg.srs.preload) {
    const std::string mapped = our_circuit_id(id);
    if (mapped.empty()) {
      kept.push_back(id);
      continue;
    }
    seed_ids += (seed_ids.empty() ? "\"" : ", \"") + id + "\"";
    ours += (ours.empty() ? "\"" : ", \"") + mapped + "\"";
  }
  if (seed_ids.empty()) return;
  cfg.srs.preload = std::move(kept);
  cfg.warnings.push_back({"srs.preload", "srs.preload: " + seed_ids +
                                             " (the seed daemon's circuit ids) are not preloaded: the seed ignored "
                                             "srs.preload and loaded keys on first use, and so does this daemon; to "
                                             "load them at start here, list " +
                                             ours});
}

}  // namespace

const SeedKey* find_seed_key(std::string_view section, std::string_view key) {
  for (const auto& k : kSeedKeys) {
    if (section == k.section && key == k.key) return &k;
  }
  return nullptr;
}

bool is_seed_section(std::string_view section) {
  return section == "pipeline";
}

std::string seed_key_list(std::string_view section) {
  std::string out;
  for (const auto& k : kSeedKeys) {
    if (section == k.section) out += (out.empty() ? "" : ", ") + std::string(k.key);
  }
  return out;
}

Result<bool> apply_seed_keys(Config& cfg, const toml::table& root, std::vector<SeedOccurrence> found,
                             std::string_view source) {
  std::sort(found.begin(), found.end(), [](const SeedOccurrence& a, const SeedOccurrence& b) {
    const auto& x = a.node->source().begin;
    const auto& y = b.node->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  for (const auto& o : found) {
    if (o.seed->ours) {
      if (auto r = read_mapped(cfg, root, o, source); !r) return r;
      continue;
    }
    const std::string seed = name_of(*o.seed);
    if (auto r = check_type(*o.seed, *o.node); !r) {
      return make_error(at(source, o.node->source()) + seed + ": " + r.error());
    }
    cfg.warnings.push_back(
        {seed, seed + " (a key of the seed daemon's configuration) has no effect here: " + o.seed->why});
  }
  drop_seed_preload_ids(cfg);
  return true;
}

}  // namespace cuzk::engine::config_detail
