#pragma once
// The proving engine: a job table, a circuit registry with its key (SRS) and PCE caches, one
// memory budget, and the partition pipeline
//
//   submit -> admission queue -> loader (keys, PCE) -> synthesis queue -> synthesis workers
//          -> prove queue (depth bounded by the lookahead) -> prover workers (device stage)
//          -> finalize queue -> finalize workers -> proofs re-assembled in partition order.
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
#include <thread>
#include <vector>

#include "engine/circuit_registry.hpp"
#include "engine/config.hpp"
#include "engine/engine_api.hpp"
#include "engine/gpu_pool.hpp"
#include "engine/memory_budget.hpp"
#include "engine/metrics.hpp"
#include "engine/pce_cache.hpp"
#include "engine/srs_manager.hpp"
#include "engine/work_queue.hpp"

namespace cuzk::engine {

struct Job;
struct CircuitRuntime;
struct PartitionTask;
struct ProvedTask;
class ThreadPoolSet;

class Engine final : public EngineApi {
 public:
  // gpu_setup: tests only (fake devices); by default the devices come from [gpus] and a scan.
  explicit Engine(const Config& config, GpuPoolSetup gpu_setup = {});
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

 private:
  struct WorkerState {
    std::string name;
    std::atomic<bool> busy{false};
    std::string job_id;  // guarded by Engine::mu_
    uint32_t partition = 0;
    std::atomic<uint64_t> busy_ns{0};
    std::chrono::steady_clock::time_point busy_since;
  };

  Result<bool> make_test_keys(const CircuitDef& def);
  // Sets the process's kernel tuning from config_.tuning and the environment; logs every value.
  void apply_tuning();
  void loader_loop(WorkerState& w);
  void synth_loop(WorkerState& w, unsigned index);
  void prover_loop(WorkerState& w, size_t gpu_slot);
  void finalize_loop(WorkerState& w);
  void fail_job(const std::shared_ptr<Job>& job, const std::string& message);
  void finish_job_locked(Job& job, JobStatus status, const std::string& message);
  void purge_queued(const std::string& job_id);
  void gc_finished_locked();
  JobResult result_of_locked(const Job& job) const;
  void set_busy(WorkerState& w, bool busy, const std::string& job_id = "", uint32_t partition = 0);
  // Busy time so far, the running stretch included (mu_ held).
  double busy_seconds_locked(const WorkerState& w, std::chrono::steady_clock::time_point now) const;
  std::shared_ptr<const CircuitRuntime> runtime_of(const Job& job) const;
  void register_metrics();
  bool release_slot();
  bool take_slot();

  Config config_;
  CircuitRegistry registry_;
  MemoryBudget budget_;
  SrsManager srs_;
  PceCache pce_;
  Metrics metrics_;
  std::chrono::steady_clock::time_point started_at_;

  mutable std::mutex mu_;
  std::condition_variable jobs_cv_;  // a job finished
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::map<std::string, std::string> by_request_id_;
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

  WorkQueue<std::shared_ptr<Job>> admit_q_;
  WorkQueue<std::shared_ptr<PartitionTask>> synth_q_;
  WorkQueue<std::shared_ptr<ProvedTask>> prove_q_;
  WorkQueue<std::shared_ptr<ProvedTask>> finalize_q_;

  // Lookahead: synthesized (or synthesizing) partitions not yet picked up by a prover.
  std::mutex slot_mu_;
  std::condition_variable slot_cv_;
  unsigned slots_free_ = 0;
  bool slots_closed_ = false;

  std::vector<std::unique_ptr<WorkerState>> workers_;
  std::vector<std::thread> threads_;
  std::unique_ptr<ThreadPoolSet> pools_;
  GpuPoolSetup gpu_setup_;
  std::vector<std::string> tuning_lines_;  // "key=value (source)", for status()
  std::unique_ptr<GpuPool> gpus_;          // made by start()
};

}  // namespace cuzk::engine
