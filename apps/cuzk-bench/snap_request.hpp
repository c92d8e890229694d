#pragma once
// A SNAP_DEALS_UPDATE request from a SnapDeals request file (`cuzk snap vanilla`, `cuzk synth-snap`;
// filecoin/snap_request_file.hpp), and the public inputs a verifier derives for each partition,
// which cuzk-bench checks the daemon's proofs against. Loaded into the PostRequest shape (request
// fields, circuit id, inputs per partition), which single sends alike.
#include <optional>
#include <string>

#include "post_request.hpp"
#include "util/result.hpp"

namespace cuzk::bench {

// Errors name the file and the field (and, with derive_inputs, the partition).
Result<PostRequest> load_snap_request(const std::string& path, bool derive_inputs);

}  // namespace cuzk::bench
