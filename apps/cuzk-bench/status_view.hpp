#pragma once
// What cuzk-bench shows of a daemon's GetStatus: the JSON of `status --json`, the full text of
// `status`, and the compact view that `status --watch` redraws (what changes while proofs run:
// jobs, the queue by priority, the provers (GPUs) busy, memory, long operations in progress).
#include <nlohmann/json.hpp>
#include <string>

#include "client.hpp"

namespace cuzk::bench {

nlohmann::json status_json(const v1::GetStatusResponse& s);

// `status`: the summary lines, then the workers, operations, jobs, stages, keys, PCEs and GPUs.
std::string status_text(const v1::GetStatusResponse& s);

// `status --watch`: `now`, with what changed since `prev` (null at the first refresh) over
// `elapsed_s` seconds: proofs completed since, and each prover's average busy workers.
std::string watch_text(const v1::GetStatusResponse& now, const v1::GetStatusResponse* prev, double elapsed_s);

}  // namespace cuzk::bench
