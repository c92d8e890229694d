#pragma once
// Internal to the config parser: the keys of the seed daemon's configuration (Curio's Rust cuzk,
// curio extern/cuzk/cuzk-core/src/config.rs) that are not ours, so that its cuzk.toml loads here.
// Each is either read into the key of ours with the same meaning, or accepted with one warning
// saying why it has no effect here. Only these keys are lenient: any other unknown key is an error.
#include <string>
#include <string_view>
#include <vector>

#include "engine/config_fields.hpp"

namespace cuzk::engine::config_detail {

struct SeedKey {
  enum class Type { Unsigned, Bool, Size };  // of a key with no effect: its value is still checked
  const char* section;
  const char* key;
  // Our "section.key" it is read into (with our key's type); null: it has no effect here, and
  // `why` says why.
  const char* ours;
  const char* why;
  Type type = Type::Unsigned;
};

// The seed key "section.key", or null.
const SeedKey* find_seed_key(std::string_view section, std::string_view key);
// [pipeline]: a section of the seed's that has no counterpart here (its keys are seed keys).
bool is_seed_section(std::string_view section);
// "enabled, synthesis_lookahead, ...": the seed keys of a section, for messages.
std::string seed_key_list(std::string_view section);

// A seed key as the file wrote it (the node lives as long as the parsed TOML table).
struct SeedOccurrence {
  const SeedKey* seed;
  const toml::node* node;
};

// Reads the mapped keys into `cfg` (unless `root`, the whole file, sets our key too: to the same
// value that is fine, to another an error naming both), checks the type of the others and adds
// their warnings in file order; then drops the seed's circuit ids from srs.preload (one warning).
Result<bool> apply_seed_keys(Config& cfg, const toml::table& root, std::vector<SeedOccurrence> found,
                             std::string_view source);

}  // namespace cuzk::engine::config_detail
