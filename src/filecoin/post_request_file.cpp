#include "filecoin/post_request_file.hpp"

#include <limits>
#include <stdexcept>

#include "filecoin/request_file_json.hpp"

namespace cuzk::filecoin {

namespace {

constexpr const char* kPostFields[] = {"registered_proof", "miner_id", "randomness", "partition_index",
                                       "vanilla_proofs"};
const RequestFileReader kPostReader("PoSt request file", kPostFields);

}  // namespace

std::string to_json(const PostRequestFile& f) {
  if (f.proof == nullptr) throw std::invalid_argument("PoSt request file: no registered proof");
  return "{\"registered_proof\": \"" + std::string(f.proof->name) + "\", \"miner_id\": " + std::to_string(f.miner_id) +
         ", \"randomness\": \"" + to_hex(f.randomness) +
         "\", \"partition_index\": " + std::to_string(f.partition_index) +
         ", \"vanilla_proofs\": " + base64_array_json(f.vanilla_proofs) + "}\n";
}

PostRequestFile parse_post_request_file(std::string_view json) {
  PostRequestFile f;
  kPostReader.parse(json, [&](size_t i, simdjson::dom::element v, const std::string& key) {
    switch (i) {
      case 0:
        try {
          f.proof = &registered_post_proof(kPostReader.string(v, key));
        } catch (const std::invalid_argument& e) {
          kPostReader.fail(key, e.what());
        }
        break;
      case 1:
        f.miner_id = kPostReader.u64(v, key);
        break;
      case 2:
        f.randomness = kPostReader.hex32(v, key);
        break;
      case 3: {
        const uint64_t p = kPostReader.u64(v, key);
        if (p > std::numeric_limits<uint32_t>::max()) kPostReader.fail(key, "too large");
        f.partition_index = static_cast<uint32_t>(p);
        break;
      }
      default:
        f.vanilla_proofs = kPostReader.base64_array(v, key);
    }
  });
  return f;
}

}  // namespace cuzk::filecoin
