#pragma once
// A PoSt request in a file, as `cuzk post vanilla` writes it and `cuzk-bench single --post` sends
// it (the fields of a WINDOW_POST_PARTITION / WINNING_POST SubmitProofRequest):
//
//   {"registered_proof": "StackedDrgWindow2KiBV1_1", "miner_id": 1000,
//    "randomness": "<64 hex digits>", "partition_index": 0,
//    "vanilla_proofs": ["<base64 of one bincode FallbackPoStSectorProof>", ...]}
//
// Parsing checks the JSON and the field types only (unknown or missing fields refused, naming
// them); the proofs themselves are checked by parse_post_vanilla.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_post_proof.hpp"

namespace cuzk::filecoin {

struct PostRequestFile {
  const RegisteredPostProof* proof = nullptr;
  uint64_t miner_id = 0;
  Bytes32 randomness{};
  uint32_t partition_index = 0;
  std::vector<std::vector<uint8_t>> vanilla_proofs;  // bincode, one per sector
};

std::string to_json(const PostRequestFile& f);
// Throws std::invalid_argument naming the field.
PostRequestFile parse_post_request_file(std::string_view json);

}  // namespace cuzk::filecoin
