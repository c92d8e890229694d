#include "filecoin/snap_request_file.hpp"

#include <stdexcept>

#include "filecoin/request_file_json.hpp"

namespace cuzk::filecoin {
namespace {

constexpr const char* kSnapFields[] = {"registered_proof", "sector_id",  "miner_id",      "comm_r_old",
                                       "comm_d_new",       "comm_r_new", "vanilla_proofs"};
const RequestFileReader kSnapReader("SnapDeals request file", kSnapFields);

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
  return "{\"registered_proof\": \"" + std::string(f.proof->name) +
         "\", \"sector_id\": " + std::to_string(f.sector_id) + ", \"miner_id\": " + std::to_string(f.miner_id) +
         ", \"comm_r_old\": \"" + to_hex(f.comm_r_old) + "\", \"comm_d_new\": \"" + to_hex(f.comm_d_new) +
         "\", \"comm_r_new\": \"" + to_hex(f.comm_r_new) +
         "\", \"vanilla_proofs\": " + base64_array_json(f.vanilla_proofs) + "}\n";
}

SnapRequestFile parse_snap_request_file(std::string_view json) {
  SnapRequestFile f;
  kSnapReader.parse(json, [&](size_t i, simdjson::dom::element v, const std::string& key) {
    switch (i) {
      case 0:
        try {
          f.proof = &registered_update_proof(kSnapReader.string(v, key));
        } catch (const std::invalid_argument& e) {
          kSnapReader.fail(key, e.what());
        }
        break;
      case 1:
        f.sector_id = kSnapReader.u64(v, key);
        break;
      case 2:
        f.miner_id = kSnapReader.u64(v, key);
        break;
      case 3:
        f.comm_r_old = kSnapReader.hex32(v, key);
        break;
      case 4:
        f.comm_d_new = kSnapReader.hex32(v, key);
        break;
      case 5:
        f.comm_r_new = kSnapReader.hex32(v, key);
        break;
      default:
        f.vanilla_proofs = kSnapReader.base64_array(v, key);
    }
  });
  return f;
}

}  // namespace cuzk::filecoin
