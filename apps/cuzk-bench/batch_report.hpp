#pragma once
// cuzk-bench batch: what each proof of a phase left (ProofRecord), and the batch's report: the
// statistics over the measured phase's answers as JSON and, without --json, as text.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "commands.hpp"
#include "cuzk/v1/proving.pb.h"
#include "status_sampler.hpp"

namespace cuzk::bench {

struct ProofRecord {
  uint64_t index = 0;  // within its phase
  std::string job_id;
  bool answered = false;          // Prove returned (any status)
  bool completed = false;         // status COMPLETED
  bool valid = false;             // completed and verified (or --no-verify)
  bool cancel_requested = false;  // --cancel-every picked this proof
  bool cancelled = false;         // it ended CANCELLED, as asked: neither a proof nor a failure
  uint64_t await_timeouts = 0;    // AwaitProof answers TIMEOUT before the last one (--await-timeout-ms)
  std::string error;
  double submit_s = 0, done_s = 0, latency_ms = 0;
  uint64_t queue_wait_ms = 0, srs_load_ms = 0, synthesis_ms = 0, prove_ms = 0, finalize_ms = 0, total_ms = 0;
  uint64_t compute_us = 0, total_us = 0;  // server: arithmetic of all partitions; submission to result
  double verify_ms = 0;
  std::vector<v1::PartitionTiming> parts;  // the daemon's per-partition stage times
};

// The measured phase: its attempted proofs, wall time and GetStatus samples.
struct BatchRun {
  std::span<const ProofRecord> records;
  double wall_s = 0;
  const std::vector<StatusSample>& samples;
  uint64_t sampler_errors = 0;
};

// Fills json with the batch's figures and, unless g.json, prints them; returns the failed proofs
// (those not attempted, after an interruption, count as failed; cancelled ones as asked do not).
uint64_t report_batch(const GlobalOptions& g, const BatchOptions& o, const BatchRun& run, nlohmann::json& json);

}  // namespace cuzk::bench
