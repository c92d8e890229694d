#pragma once
// Internal to the config parser: reading one TOML node into one Config field (a Setter checks the
// node's type and range), and the key tables of every section. config.cpp walks the file with
// them; config_seed.cpp reads the seed daemon's keys through the same setters.
#include <toml++/toml.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config.hpp"

namespace cuzk::engine::config_detail {

// "a string", "an integer", ...: a node's type for messages.
std::string describe(const toml::node& n);
// "file:line:column: " of a node or key.
std::string at(std::string_view source, const toml::source_region& r);
// A value as the file wrote it: "32", "\"0.0.0.0:9821\"", "[0, 1]".
std::string node_text(const toml::node& n);

// A setter stores one key's value into the Config, or returns what is wrong with it (the caller
// adds the location and key).
using Setter = std::function<Result<bool>(const toml::node&)>;
struct Field {
  const char* key;
  Setter set;
};
struct Section {
  const char* name;
  std::vector<Field> fields;
};

Setter set_string(std::string& dst);
Setter set_bool(bool& dst);
Setter set_unsigned(unsigned& dst);
Setter set_size(uint64_t& dst);
Setter set_string_array(std::vector<std::string>& dst);

// The plain-table sections of `cfg` ([[circuits]] apart), their keys bound to its fields.
std::vector<Section> section_fields(Config& cfg);
std::vector<Field> circuit_fields(CircuitSection& s);
// The field of "section.key" in `sections`, or null.
const Field* find_field(const std::vector<Section>& sections, std::string_view section, std::string_view key);

}  // namespace cuzk::engine::config_detail
