#pragma once
// A WINDOW_POST_PARTITION / WINNING_POST request from a PoSt request file (`cuzk post vanilla`
// writes them; filecoin/post_request_file.hpp), and the public inputs a verifier derives from it,
// which cuzk-bench checks the daemon's proof against.
#include <optional>
#include <string>
#include <vector>

#include "client.hpp"
#include "ff/bls12_381.hpp"
#include "util/result.hpp"

namespace cuzk::bench {

// Also what a SnapDeals request file loads into (snap_request.hpp).
struct PostRequest {
  v1::SubmitProofRequest fields;  // proof_kind, registered_proof, miner_id, randomness, partition_index, proofs
  std::string circuit_id;         // "window-post:2KiB", "snap:2KiB"
  uint32_t partitions = 1;        // PoSt: 1; SnapDeals: one per vanilla proof
  // Each partition's inputs (32-byte LE values concatenated) when derived: that needs the
  // vanilla proofs to be valid, so a file with a bad proof can still be sent (--no-verify) to see
  // the daemon refuse it.
  std::vector<std::string> public_inputs;
};

// Errors name the file and the field (and, with derive_inputs, the proof and its sector).
Result<PostRequest> load_post_request(const std::string& path, bool derive_inputs);
// A request-file option (--post, --snap) read with `load` (load_post_request, load_snap_request):
// nothing when `path` is empty, the loaded request otherwise; false (after printing the error on
// stderr) when it cannot be loaded. Without --no-verify the proofs are checked here (to derive the
// inputs); with it they are sent as they are, for the daemon to judge.
bool load_request_option(Result<PostRequest> (*load)(const std::string&, bool), const std::string& path,
                         bool derive_inputs, std::optional<PostRequest>& out);
// Public inputs as the daemon reports them: 32-byte little-endian values concatenated.
std::string packed_inputs(const std::vector<ff::Fr>& in);

}  // namespace cuzk::bench
