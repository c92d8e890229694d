#include "filecoin/post_request_file.hpp"

#include <simdjson.h>

#include <limits>
#include <stdexcept>

#include "filecoin/base64.hpp"
#include "filecoin/domain.hpp"

namespace cuzk::filecoin {

namespace {

namespace dom = simdjson::dom;

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw std::invalid_argument("PoSt request file: " + field + ": " + what);
}

Bytes32 parse_hex32(const std::string& field, std::string_view hex) {
  if (hex.size() != 64) fail(field, "expected 64 hex digits, got " + std::to_string(hex.size()) + " characters");
  Bytes32 out{};
  auto digit = [&](char c) -> uint8_t {
    if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
    fail(field, "not hex");
  };
  for (size_t i = 0; i < 32; ++i) out[i] = static_cast<uint8_t>(digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]));
  return out;
}

uint64_t get_u64(dom::element v, const std::string& field) {
  uint64_t x = 0;
  if (v.get_uint64().get(x)) fail(field, "expected an unsigned integer");
  return x;
}

std::string_view get_string(dom::element v, const std::string& field) {
  std::string_view s;
  if (v.get_string().get(s)) fail(field, "expected a string");
  return s;
}

}  // namespace

std::string to_json(const PostRequestFile& f) {
  if (f.proof == nullptr) throw std::invalid_argument("PoSt request file: no registered proof");
  std::string out = "{\"registered_proof\": \"" + std::string(f.proof->name) +
                    "\", \"miner_id\": " + std::to_string(f.miner_id) + ", \"randomness\": \"" + to_hex(f.randomness) +
                    "\", \"partition_index\": " + std::to_string(f.partition_index) + ", \"vanilla_proofs\": [";
  for (size_t i = 0; i < f.vanilla_proofs.size(); ++i) {
    out += (i ? ", \"" : "\"") + base64_encode(f.vanilla_proofs[i].data(), f.vanilla_proofs[i].size()) + "\"";
  }
  return out + "]}\n";
}

PostRequestFile parse_post_request_file(std::string_view json) {
  dom::parser parser;
  dom::element doc;
  if (auto e = parser.parse(simdjson::padded_string(json)).get(doc)) fail("JSON", simdjson::error_message(e));
  dom::object obj;
  if (doc.get_object().get(obj)) fail("JSON", "expected an object");
  PostRequestFile f;
  uint32_t seen = 0;
  static constexpr const char* kFields[] = {"registered_proof", "miner_id", "randomness", "partition_index",
                                            "vanilla_proofs"};
  for (dom::key_value_pair kv : obj) {
    const std::string key(kv.key);
    size_t i = 0;
    while (i < std::size(kFields) && key != kFields[i]) ++i;
    if (i == std::size(kFields)) fail(key, "unknown field");
    if (seen & (1u << i)) fail(key, "duplicate field");
    seen |= 1u << i;
    if (i == 0) {
      try {
        f.proof = &registered_post_proof(get_string(kv.value, key));
      } catch (const std::invalid_argument& e) {
        fail(key, e.what());
      }
    } else if (i == 1) {
      f.miner_id = get_u64(kv.value, key);
    } else if (i == 2) {
      f.randomness = parse_hex32(key, get_string(kv.value, key));
    } else if (i == 3) {
      const uint64_t p = get_u64(kv.value, key);
      if (p > std::numeric_limits<uint32_t>::max()) fail(key, "too large");
      f.partition_index = static_cast<uint32_t>(p);
    } else {
      dom::array arr;
      if (kv.value.get_array().get(arr)) fail(key, "expected an array of base64 strings");
      for (dom::element v : arr) {
        const std::string field = key + "[" + std::to_string(f.vanilla_proofs.size()) + "]";
        std::vector<uint8_t> bytes;
        try {
          base64_decode(get_string(v, field), bytes);
        } catch (const std::invalid_argument& e) {
          fail(field, e.what());
        }
        f.vanilla_proofs.push_back(std::move(bytes));
      }
    }
  }
  for (size_t i = 0; i < std::size(kFields); ++i) {
    if (!(seen & (1u << i))) fail(kFields[i], "missing field");
  }
  return f;
}

}  // namespace cuzk::filecoin
