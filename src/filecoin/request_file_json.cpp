#include "filecoin/request_file_json.hpp"

#include <stdexcept>

#include "filecoin/base64.hpp"

namespace cuzk::filecoin {

namespace dom = simdjson::dom;

RequestFileReader::RequestFileReader(std::string kind, std::span<const char* const> fields)
    : kind_(std::move(kind)), fields_(fields) {
  if (fields_.size() > 32) throw std::logic_error("RequestFileReader: at most 32 fields");
}

void RequestFileReader::fail(const std::string& field, const std::string& what) const {
  throw std::invalid_argument(kind_ + ": " + field + ": " + what);
}

void RequestFileReader::parse(std::string_view json,
                              const std::function<void(size_t, dom::element, const std::string&)>& on_field) const {
  dom::parser parser;
  dom::element doc;
  if (auto e = parser.parse(simdjson::padded_string(json)).get(doc)) fail("JSON", simdjson::error_message(e));
  dom::object obj;
  if (doc.get_object().get(obj)) fail("JSON", "expected an object");
  uint32_t seen = 0;
  for (dom::key_value_pair kv : obj) {
    const std::string key(kv.key);
    size_t i = 0;
    while (i < fields_.size() && key != fields_[i]) ++i;
    if (i == fields_.size()) fail(key, "unknown field");
    if (seen & (1u << i)) fail(key, "duplicate field");
    seen |= 1u << i;
    on_field(i, kv.value, key);
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!(seen & (1u << i))) fail(fields_[i], "missing field");
  }
}

uint64_t RequestFileReader::u64(dom::element v, const std::string& field) const {
  uint64_t x = 0;
  if (v.get_uint64().get(x)) fail(field, "expected an unsigned integer");
  return x;
}

std::string_view RequestFileReader::string(dom::element v, const std::string& field) const {
  std::string_view s;
  if (v.get_string().get(s)) fail(field, "expected a string");
  return s;
}

Bytes32 RequestFileReader::hex32(dom::element v, const std::string& field) const {
  const std::string_view hex = string(v, field);
  const size_t digits = hex.size() - (hex.starts_with("0x") ? 2 : 0);  // bytes32_from_hex takes a 0x prefix
  if (digits != 64) fail(field, "expected 64 hex digits, got " + std::to_string(digits) + " characters");
  const std::optional<Bytes32> b = bytes32_from_hex(hex);
  if (!b) fail(field, "not hex");
  return *b;
}

std::vector<std::vector<uint8_t>> RequestFileReader::base64_array(dom::element v, const std::string& field) const {
  dom::array arr;
  if (v.get_array().get(arr)) fail(field, "expected an array of base64 strings");
  std::vector<std::vector<uint8_t>> out;
  for (dom::element item : arr) {
    const std::string name = field + "[" + std::to_string(out.size()) + "]";
    std::vector<uint8_t> bytes;
    try {
      base64_decode(string(item, name), bytes);
    } catch (const std::invalid_argument& e) {
      fail(name, e.what());
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

std::string base64_array_json(const std::vector<std::vector<uint8_t>>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", \"" : "\"") + base64_encode(items[i].data(), items[i].size()) + "\"";
  }
  return out + "]";
}

}  // namespace cuzk::filecoin
