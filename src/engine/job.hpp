#pragma once
// A job and one partition's work item as they travel through the engine's stages (engine-internal).
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/engine_api.hpp"
#include "engine/lookahead.hpp"
#include "engine/memory_budget.hpp"
#include "engine/partition_work.hpp"
#include "engine/request_digest.hpp"
#include "engine/work_queue.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

// Milliseconds from t0 to t1 (a job's timings and timeline are in ms since it was submitted).
inline double ms_since(Clock::time_point t0, Clock::time_point t1 = Clock::now()) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

struct Job {
  std::string id, request_id;
  RequestDigest digest{};  // what the request asks (request_digest.hpp): a retry joins only an equal one
  uint64_t seq = 0;
  ProofKind kind = ProofKind::Generic;
  Priority priority = Priority::Normal;
  CircuitDef def;
  std::vector<PartitionPayload> payloads;  // moved into work items by the load stage
  uint32_t partitions = 0;
  bool witness_length_checked = false;  // at submit; else the load stage checks it
  Clock::time_point submitted;
  std::optional<Clock::time_point> dispatched;  // first partition started synthesis
  Clock::time_point finished;

  std::atomic<bool> dead{false};  // cancelled or failed: stop its work at the next boundary
  // Guarded by Engine::mu_:
  bool done = false;
  bool running = false;
  JobStatus status = JobStatus::Unknown;
  std::string error;
  std::vector<std::string> proofs, publics;
  uint32_t parts_started = 0;  // admitted to synthesis (GetStatus: partitions in progress)
  uint32_t parts_done = 0;
  double synth_ms = 0, prove_ms = 0, finalize_ms = 0;
  std::vector<PartitionTiming> timeline;  // per partition
  uint64_t srs_load_ms = 0;
  std::shared_ptr<const CircuitRuntime> runtime;
  Reservation payload_memory;                        // the request's witnesses while the job holds them
  std::shared_ptr<const VanillaPartitions> vanilla;  // Filecoin kinds: every proof is checked against it

  int prio() const { return static_cast<int>(priority); }
  WorkKey key(uint32_t partition) const { return WorkKey{prio(), seq, partition}; }
};

// A partition's proof as finalize made it, before verification.
struct ProofBytes {
  std::string bytes;
};

// What the stages made of a partition so far, one type per step: the job before loading
// (monostate), the request's input, synthesis's output, the device stage's sums, the proof.
using PartitionState = std::variant<std::monostate, PartitionPayload, Synthesized, DeviceStageOut, ProofBytes>;

// One unit of work in a stage's queue: a job (load stage) or one of its partitions. What it holds
// is released with it, on whichever path it leaves the pipeline.
struct WorkItem {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  PartitionState state = {};
  std::shared_ptr<const CircuitRuntime> rt = {};  // the job's runtime, read when a stage admits the item
  Reservation memory = {};                        // the partition's host memory, synthesis to verification
  SlotToken slot = {};                            // the lookahead slot, synthesis to the device stage's pickup

  WorkKey key() const { return job->key(index); }
};

}  // namespace cuzk::engine
