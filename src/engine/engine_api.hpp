#pragma once
// What the proving engine offers its front ends (the gRPC service, tests): plain C++ types, no
// gRPC. The enums carry the wire values of proto/cuzk/v1/proving.proto.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/operations.hpp"

namespace cuzk::engine {

enum class ProofKind : int {
  Unspecified = 0,
  PorepSealCommit = 1,
  SnapDealsUpdate = 2,
  WindowPostPartition = 3,
  WinningPost = 4,
  Generic = 100,
};
const char* kind_name(ProofKind kind);  // "porep_c2", "snap_update", "window_post", "winning_post", "generic"

enum class Priority : int { Unspecified = 0, Low = 1, Normal = 2, High = 3, Critical = 4 };
const char* priority_name(Priority p);  // "low", "normal", "high", "critical"
// Unspecified: the kind's default (WinningPoSt CRITICAL, WindowPoSt HIGH, else NORMAL); values
// outside 0..4 are NORMAL.
Priority effective_priority(ProofKind kind, int wire_priority);

enum class JobStatus : int { Unknown = 0, Completed = 1, Failed = 2, Cancelled = 3, Timeout = 4 };

// Why a call was refused; the gRPC layer maps these to status codes.
enum class ErrorCode { InvalidArgument, NotFound, FailedPrecondition, ResourceExhausted, Unavailable, Internal };

struct EngineError {
  ErrorCode code = ErrorCode::Internal;
  std::string message;
};

// Either a value or an EngineError.
template <class T>
struct Outcome {
  std::optional<T> value;
  EngineError error;
  bool ok() const { return value.has_value(); }
  static Outcome success(T v) { return Outcome{std::move(v), {}}; }
  static Outcome failure(ErrorCode code, std::string message) {
    return Outcome{std::nullopt, {code, std::move(message)}};
  }
};

struct ProofRequest {
  std::string request_id;  // idempotency key; empty: the engine picks a fresh job id
  ProofKind kind = ProofKind::Unspecified;
  int wire_priority = 0;  // as received (see effective_priority)
  std::string circuit_id;
  std::vector<std::string> witnesses;         // .wtns bytes, one per partition
  std::vector<std::string> partition_inputs;  // built-in circuits: one input per partition
  uint64_t sector_size = 0;                   // seed fields, kept for the Filecoin kinds
  uint64_t registered_proof = 0;
  uint64_t sector_number = 0;  // PoRep: 0 = not given; else checked against the wrapper and C1
  uint64_t miner_id = 0;       // PoRep: 0 = not given; with a sector number, C1's replica_id is checked;
                               // PoSt: the prover (its prover id), required
  std::string vanilla_proof;
  std::vector<std::string> vanilla_proofs;  // PoSt: one bincode FallbackPoStSectorProof per sector
  std::string randomness;                   // PoSt: 32 bytes, a canonical field element
  uint32_t partition_index = 0;             // WindowPoSt: which partition of the proof
  // SnapDeals: the raw 32-byte commitments (not CIDs); vanilla_proofs holds one bincode
  // PartitionProof per partition, in order.
  std::string comm_r_old, comm_r_new, comm_d_new;
};

struct Submitted {
  std::string job_id;
  uint32_t queue_position = 0;  // jobs ahead of it when it was queued
  bool existing = false;        // the request_id was known: this is the earlier job
};

struct JobTimings {
  uint64_t queue_wait_ms = 0;
  uint64_t srs_load_ms = 0;
  uint64_t synthesis_ms = 0;  // summed over partitions
  uint64_t prove_ms = 0;      // device stage + finalize, summed over partitions
  uint64_t finalize_ms = 0;
  uint64_t total_ms = 0;
  uint64_t compute_us = 0;  // synthesis + prove + finalize, summed over partitions
  uint64_t total_us = 0;
};

// One partition's path through the stages, in ms since the job was submitted (0 when the stage did
// not run); the gap between synthesis end and prove start is the wait for the prover.
struct PartitionTiming {
  uint32_t index = 0;
  double synthesis_start_ms = 0, synthesis_ms = 0;
  // The device stage: the witness's upload and its kernels. With two witnesses on a device the
  // upload runs while the other's kernels do; the wait for those kernels is device_wait_ms,
  // counted neither here nor in prove_start_ms (it is time waiting for the prover).
  double prove_start_ms = 0, prove_ms = 0;
  // The device stage's parts: the witness's upload (host copy and DMA), MatVec, H, the G1 MSMs,
  // and the G2 MSM. On a GPU the G2 MSM runs beside the G1 MSMs (and with
  // gpu::GpuProverOptions::overlap_h, H beside the l, a and b_g1 MSMs: there the parts add up to
  // more than the stage).
  double upload_ms = 0, matvec_ms = 0, h_ms = 0, msm_g1_ms = 0, msm_g2_ms = 0;
  double device_wait_ms = 0;
  double finalize_start_ms = 0, finalize_ms = 0;
  std::string backend;  // where the device stage ran: "gpu:0", "cpu"
};

struct JobResult {
  std::string job_id;
  JobStatus status = JobStatus::Unknown;
  std::string proof;  // 192 bytes per partition, in order
  std::string error_message;
  JobTimings timings;
  std::vector<std::string> public_inputs;  // per partition, 32-byte LE values without ONE
  uint32_t partitions = 0;
  std::vector<PartitionTiming> partition_timings;  // one per partition, in order
};

struct CancelResult {
  bool found = false;
  bool was_running = false;  // some partition had started
  bool cancelled = false;    // false when the job had already finished
};

struct SrsInfo {
  std::string circuit_id;
  int tier = 0;  // 0 HOT (in memory), 1 WARM, 2 COLD
  uint64_t size_bytes = 0;
  uint32_t ref_count = 0;
  bool test_only = false;  // keys from the TEST-ONLY setup (a public seed)
  // "file" (a .params file, or a zkey), or "memory": a TEST-ONLY key held in memory only
  // (srs.test_keys), made again on its next use after an eviction.
  std::string storage = "file";
};

struct PceInfoStatus {
  std::string circuit_id;
  uint64_t size_bytes = 0;
  std::string state;  // "loaded", "extracting", "failed"
  std::string path;
};

// EngineStatus::queues: per proof kind and priority, the unfinished jobs (the seed's meaning, which
// clients sum against their own limits): pending = no partition started yet, in_progress = some
// started; and their partitions: not started yet, started and not finished. stage is empty.
// EngineStatus::stage_queues: per stage, priority and kind, the partitions waiting in the stage's
// queue (pending) and being worked on (in_progress); the *_partitions fields are 0.
struct QueueInfo {
  std::string proof_kind;  // kind_name of the jobs' kind
  Priority priority = Priority::Normal;
  std::string stage;  // stage_queues: "scheduler", "synthesis", "prove", "finalize"
  uint32_t pending = 0;
  uint32_t in_progress = 0;
  uint32_t pending_partitions = 0;
  uint32_t in_progress_partitions = 0;
};

struct WorkerInfo {
  std::string name;
  std::string state;  // "idle" or "busy"
  std::string current_job_id;
  uint32_t current_partition = 0;
  double busy_seconds = 0;
};

struct EngineStatus {
  std::vector<SrsInfo> srs;
  std::vector<PceInfoStatus> pce;
  std::vector<QueueInfo> queues;        // jobs (and their partitions) per kind and priority
  std::vector<QueueInfo> stage_queues;  // partitions per stage, kind and priority
  std::vector<WorkerInfo> workers;
  std::vector<std::string> circuits;
  std::vector<std::string> tuning;  // "key=value (source)", every [tuning] key
  uint64_t completed = 0, failed = 0, cancelled = 0;
  uint64_t uptime_seconds = 0;
  uint64_t memory_used_bytes = 0, memory_limit_bytes = 0;
  uint64_t memory_waits = 0;  // reservations that waited for room (MemoryBudget::waits)
  uint64_t rss_bytes = 0, peak_rss_bytes = 0;
  bool test_keys_allowed = false;         // srs.allow_test_keys
  std::vector<OperationInfo> operations;  // long operations running now (operations.hpp)
};

struct PreloadResult {
  bool already_loaded = false;
  uint64_t load_time_ms = 0;
};

struct EvictResult {
  bool was_loaded = false;
  uint64_t freed_bytes = 0;
};

struct VerifyingKeyInfo {
  std::string vk_bytes;            // bellperson .vk layout
  uint32_t num_public_inputs = 0;  // without ONE
};

// The engine as its front ends see it. Every method is thread-safe.
class EngineApi {
 public:
  virtual ~EngineApi() = default;
  virtual Outcome<Submitted> submit(ProofRequest request) = 0;
  // std::nullopt: no such job. A zero timeout waits without limit; on expiry the result has
  // status Timeout (the job keeps running).
  virtual std::optional<JobResult> await(const std::string& job_id, std::chrono::milliseconds timeout) = 0;
  virtual CancelResult cancel(const std::string& job_id) = 0;
  virtual EngineStatus status() = 0;
  virtual std::string metrics_text() = 0;  // Prometheus text exposition format
  virtual Outcome<PreloadResult> preload_srs(const std::string& circuit_id) = 0;
  virtual Outcome<EvictResult> evict_srs(const std::string& circuit_id) = 0;
  virtual Outcome<VerifyingKeyInfo> verifying_key(const std::string& circuit_id) = 0;
};

}  // namespace cuzk::engine
