#pragma once
// A SnapDeals request in a file, as `cuzk snap vanilla` and `cuzk synth-snap` write it (the fields
// of a SNAP_DEALS_UPDATE SubmitProofRequest; the vanilla proofs as in the PoSt request files and
// Curio's snap-vanilla.json, base64 of the bincode bytes):
//
//   {"registered_proof": "StackedDrg2KiBV1", "sector_id": 1, "miner_id": 1000,
//    "comm_r_old": "<64 hex>", "comm_d_new": "<64 hex>", "comm_r_new": "<64 hex>",
//    "vanilla_proofs": ["<base64 of one bincode PartitionProof>", ...]}
//
// Parsing checks the JSON and the field types only (unknown, duplicate or missing fields refused,
// naming them); the proofs themselves are checked by parse_snap_vanilla.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "filecoin/snap_validate.hpp"

namespace cuzk::filecoin {

struct SnapRequestFile {
  const RegisteredUpdateProof* proof = nullptr;
  uint64_t sector_id = 0, miner_id = 0;
  Bytes32 comm_r_old{}, comm_d_new{}, comm_r_new{};
  std::vector<std::vector<uint8_t>> vanilla_proofs;  // bincode, one per partition

  // What parse_snap_vanilla checks the proofs against (h_default).
  SnapRequestContext context() const;
};

std::string to_json(const SnapRequestFile& f);
// Throws std::invalid_argument naming the field.
SnapRequestFile parse_snap_request_file(std::string_view json);

}  // namespace cuzk::filecoin
