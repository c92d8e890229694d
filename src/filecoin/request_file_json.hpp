#pragma once
// The JSON request files that `cuzk post vanilla`, `cuzk snap vanilla` and the synth commands write
// and `cuzk prove` / `cuzk-bench` read: one object of known fields, each exactly once. Errors name
// the kind of file and the field ("PoSt request file: miner_id: expected an unsigned integer").
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/domain.hpp"

namespace cuzk::filecoin {

class RequestFileReader {
 public:
  // `kind` prefixes every error; `fields` are the object's keys, all required (at most 32).
  RequestFileReader(std::string kind, std::span<const char* const> fields);

  // Calls on_field(index into fields, value, key) for each field of the object in `json`, refusing
  // unknown and repeated keys, then refuses a missing one.
  void parse(std::string_view json,
             const std::function<void(size_t, simdjson::dom::element, const std::string&)>& on_field) const;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  uint64_t u64(simdjson::dom::element v, const std::string& field) const;
  std::string_view string(simdjson::dom::element v, const std::string& field) const;
  Bytes32 hex32(simdjson::dom::element v, const std::string& field) const;
  // An array of base64 strings, decoded (errors name the element: "vanilla_proofs[3]").
  std::vector<std::vector<uint8_t>> base64_array(simdjson::dom::element v, const std::string& field) const;

 private:
  std::string kind_;
  std::span<const char* const> fields_;
};

// `["<base64>", ...]` for the byte strings, as base64_array reads it back.
std::string base64_array_json(const std::vector<std::vector<uint8_t>>& items);

}  // namespace cuzk::filecoin
