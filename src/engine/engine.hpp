#pragma once
// The proving engine: a job table, a circuit registry with its key (SRS) and PCE caches, one
// memory budget, and the partition pipeline (pipeline.hpp; its stages in engine_stages.cpp)
//
//   submit (request_decoder.hpp) -> admission queue -> load (keys, PCE) -> synthesis queue
//          -> synthesize -> prove queue (depth bounded by the lookahead) -> device stage
//          -> finalize queue -> finalize, verify -> proofs re-assembled in partition order.
//
// Every queue is ordered by (priority, job, partition), so CRITICAL work overtakes NORMAL work at
// each stage, and the memory budget serves its waiters in the same order. Cancellation removes a
// job's queued work at once and stops its running work at the next stage boundary, releasing
// its memory. See docs/daemon.md for the behaviour users see.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/placement.hpp"
#include "engine/circuit_registry.hpp"
#include "engine/config.hpp"
#include "engine/engine_api.hpp"
#include "engine/engine_metrics.hpp"
#include "engine/job.hpp"
#include "engine/lookahead.hpp"
#include "engine/memory_budget.hpp"
#include "engine/metrics.hpp"
#include "engine/operations.hpp"
#include "engine/pce_cache.hpp"
#include "engine/pipeline.hpp"
#include "engine/reclaimer.hpp"
#include "engine/request_ids.hpp"
#include "engine/shared_reservations.hpp"
#include "engine/srs_manager.hpp"
#include "engine/work_queue.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

class Engine final : public EngineApi {
 public:
  // gpu_setup: tests only (fake devices); by default the devices come from [gpus] and a scan.
  explicit Engine(const Config& config, backend::PlacementSetup gpu_setup = {});
  ~Engine() override;  // shutdown(false) if still running
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Selects the GPUs, scans the PCE directory, preloads the configured keys, starts the workers
  // (one prover worker per device and gpus.workers_per_device, else prover.workers on the CPU).
  // Throws std::runtime_error on a fatal problem (a preload that fails, gpus.backend = "gpu"
  // without a GPU).
  void start();
  // Stops accepting work. drain: waits for every queued and running job to finish; otherwise
  // cancels them (and ends a drain running in another thread). Then stops the workers, once:
  // concurrent and repeated calls are safe.
  void shutdown(bool drain);

  Outcome<Submitted> submit(ProofRequest request) override;
  std::optional<JobResult> await(const std::string& job_id, std::chrono::milliseconds timeout) override;
  CancelResult cancel(const std::string& job_id) override;
  EngineStatus status() override;
  std::string metrics_text() override;
  Outcome<PreloadResult> preload_srs(const std::string& circuit_id) override;
  Outcome<EvictResult> evict_srs(const std::string& circuit_id) override;
  Outcome<VerifyingKeyInfo> verifying_key(const std::string& circuit_id) override;

  MemoryBudget& budget() { return budget_; }
  PceCache& pce_cache() { return pce_; }
  Operations& operations() { return operations_; }
  const Lookahead& lookahead() const { return lookahead_; }

 private:
  // The TEST-ONLY keys of a circuit without key files: written to its files or made in memory
  // (srs.test_keys), with the GPU's multiplier when there is one (engine_setup.cpp).
  Result<TestKeys> make_test_keys(const CircuitDef& def, int priority, const std::function<bool()>& cancelled);
  // Sets the process's kernel tuning from config_.tuning and the environment; logs every value.
  void apply_tuning();
  // Says which config keys the chosen backend ignores (known only once the GPUs are probed).
  void warn_ignored_keys() const;
  // The stages (engine_stages.cpp) and their workers.
  void build_pipeline(unsigned synth_workers);
  void load(WorkItem& item);
  std::vector<WorkItem> loaded(WorkItem& item);
  bool admit_synthesis(WorkItem& item);
  std::vector<WorkItem> synthesized(WorkItem& item, Clock::time_point t0, double ms);
  bool admit_device(WorkItem& item);
  void device(WorkItem& item, size_t gpu_slot);
  std::vector<WorkItem> proved(WorkItem& item, Clock::time_point t0, double ms);
  std::vector<WorkItem> finalized(WorkItem& item, Clock::time_point t0, double ms);
  void verify(WorkItem& item);
  std::vector<WorkItem> verified(WorkItem& item, double ms);
  // The job's runtime into item.rt; false when the job is dead or finished.
  bool admit_partition(WorkItem& item);

  // submit's steps: the decoded job, whether its request_id joins an earlier job, the answer when
  // it does, and the log line of a new job under a known id.
  Outcome<std::shared_ptr<Job>> make_job(ProofRequest& request);  // may move the request's payloads out
  RequestIds::Decision reuse_locked(const std::string& request_id, const RequestDigest& digest) const;
  Outcome<Submitted> joined_locked(const std::string& request_id, const RequestDigest& digest,
                                   const std::string& job_id);
  void log_new_job_locked(const Job& job, const RequestIds::Decision& reuse);

  void fail_job(const std::shared_ptr<Job>& job, const std::string& message);
  void finish_job_locked(Job& job, JobStatus status, const std::string& message);
  void purge_queued(const std::string& job_id);
  void gc_finished_locked();
  JobResult result_of_locked(const Job& job) const;
  std::shared_ptr<const CircuitRuntime> runtime_of(const Job& job) const;
  // GetStatus's queues: unfinished jobs (and their partitions) per kind and priority.
  std::vector<QueueInfo> job_queues_locked() const;
  // Refreshes the sampled metrics at each render.
  void collect_metrics();

  Config config_;
  // Before the caches, which report their loads to them.
  Metrics metrics_;
  EngineMetrics m_{metrics_};
  // Before the caches and the GPU pool, which report their long operations to it.
  Operations operations_;
  CircuitRegistry registry_;
  MemoryBudget budget_;
  // Host memory the GPU provers hold beyond the caches (a streamed key's pinned bases).
  SharedReservations host_held_{budget_};
  SrsManager srs_;
  PceCache pce_;
  std::chrono::steady_clock::time_point started_at_;

  mutable std::mutex mu_;
  std::condition_variable jobs_cv_;  // a job finished
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  RequestIds request_ids_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> finished_order_;
  uint64_t next_seq_ = 1;
  size_t unfinished_ = 0;
  uint64_t completed_ = 0, failed_ = 0, cancelled_ = 0;
  bool accepting_ = false;
  bool stopped_ = false;
  bool force_stop_ = false;
  // Set by a forced stop and at teardown: a test-only key generation in progress stops at its next
  // chunk and removes its partial file (at 32 GiB it runs for a minute and writes 47 GB).
  std::atomic<bool> abort_setup_{false};
  std::mutex teardown_mu_;

  // Synthesized (or synthesizing) partitions not yet picked up by a prover. Before the queues:
  // items still queued at destruction hand their slots back to it.
  Lookahead lookahead_;
  // The stages' queues, in order: jobs to load, then partitions to synthesize, to prove on a
  // device, to finalize (verification follows finalize on its worker).
  WorkQueue<WorkItem> admit_q_, synth_q_, prove_q_, finalize_q_;

  // Shared by the synthesis workers: one partition synthesized alone gets every thread, several
  // share them, the highest priority first (ThreadPool's CallPriority). The provers use the
  // process-wide pool (the MSM and NTT code's default).
  std::unique_ptr<ThreadPool> synth_pool_;
  backend::PlacementSetup gpu_setup_;
  std::vector<std::string> tuning_lines_;     // "key=value (source)", for status()
  std::unique_ptr<backend::Placement> gpus_;  // made by start()
  // Frees spent witnesses off the device stage; after budget_, so it drains (and gives their
  // reservations back) before the budget goes.
  Reclaimer reclaimer_;
  // Last: its workers stop (shutdown, or its destructor) before anything they use goes.
  Pipeline pipeline_{[this](const std::shared_ptr<Job>& job, const std::string& m) { fail_job(job, m); }};
};

}  // namespace cuzk::engine
