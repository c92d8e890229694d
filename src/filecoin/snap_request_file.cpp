#include "filecoin/snap_request_file.hpp"

#include <simdjson.h>

#include <stdexcept>

#include "filecoin/base64.hpp"

namespace cuzk::filecoin {
namespace {

namespace dom = simdjson::dom;

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw std::invalid_argument("SnapDeals request file: " + field + ": " + what);
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

Bytes32 get_hex32(dom::element v, const std::string& field) {
  const std::optional<Bytes32> b = bytes32_from_hex(get_string(v, field));
  if (!b) fail(field, "expected 64 hex digits (32 bytes)");
  return *b;
}

constexpr const char* kFields[] = {"registered_proof", "sector_id",  "miner_id",      "comm_r_old",
                                   "comm_d_new",       "comm_r_new", "vanilla_proofs"};

}  // namespace

SnapRequestContext SnapRequestFile::context() const {
  if (proof == nullptr) throw std::invalid_argument("SnapDeals request: no registered proof");
  SnapRequestContext ctx;
  ctx.shape = SnapCircuitShape::of(proof->sector_size);
  ctx.comm_r_old = comm_r_old;
  ctx.comm_d_new = comm_d_new;
  ctx.comm_r_new = comm_r_new;
  return ctx;
}

std::string to_json(const SnapRequestFile& f) {
  if (f.proof == nullptr) throw std::invalid_argument("SnapDeals request file: no registered proof");
  std::string out = "{\"registered_proof\": \"" + std::string(f.proof->name) +
                    "\", \"sector_id\": " + std::to_string(f.sector_id) +
                    ", \"miner_id\": " + std::to_string(f.miner_id) + ", \"comm_r_old\": \"" + to_hex(f.comm_r_old) +
                    "\", \"comm_d_new\": \"" + to_hex(f.comm_d_new) + "\", \"comm_r_new\": \"" + to_hex(f.comm_r_new) +
                    "\", \"vanilla_proofs\": [";
  for (size_t i = 0; i < f.vanilla_proofs.size(); ++i) {
    out += (i ? ", \"" : "\"") + base64_encode(f.vanilla_proofs[i].data(), f.vanilla_proofs[i].size()) + "\"";
  }
  return out + "]}\n";
}

SnapRequestFile parse_snap_request_file(std::string_view json) {
  dom::parser parser;
  dom::element doc;
  if (auto e = parser.parse(simdjson::padded_string(json)).get(doc)) fail("JSON", simdjson::error_message(e));
  dom::object obj;
  if (doc.get_object().get(obj)) fail("JSON", "expected an object");
  SnapRequestFile f;
  uint32_t seen = 0;
  for (dom::key_value_pair kv : obj) {
    const std::string key(kv.key);
    size_t i = 0;
    while (i < std::size(kFields) && key != kFields[i]) ++i;
    if (i == std::size(kFields)) fail(key, "unknown field");
    if (seen & (1u << i)) fail(key, "duplicate field");
    seen |= 1u << i;
    switch (i) {
      case 0:
        try {
          f.proof = &registered_update_proof(get_string(kv.value, key));
        } catch (const std::invalid_argument& e) {
          fail(key, e.what());
        }
        break;
      case 1:
        f.sector_id = get_u64(kv.value, key);
        break;
      case 2:
        f.miner_id = get_u64(kv.value, key);
        break;
      case 3:
        f.comm_r_old = get_hex32(kv.value, key);
        break;
      case 4:
        f.comm_d_new = get_hex32(kv.value, key);
        break;
      case 5:
        f.comm_r_new = get_hex32(kv.value, key);
        break;
      default: {
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
  }
  for (size_t i = 0; i < std::size(kFields); ++i) {
    if (!(seen & (1u << i))) fail(kFields[i], "missing field");
  }
  return f;
}

}  // namespace cuzk::filecoin
