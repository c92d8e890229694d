#pragma once
// The engine as a list of stages driven by one runner loop. A stage is a descriptor: the queue
// its workers pop, the gate they pass first (the lookahead), and three steps:
//   admit  untimed, not busy: drops the item (false: its job is dead) or readies it (a memory
//          reservation, which may wait); throws StageFailure to fail the job with that message
//          (another exception fails it as run's do);
//   run    timed, the worker marked busy: the stage's work; an exception fails the job with
//          "partition N <label>: <what>" (the load stage's message alone);
//   done   after a successful run: timings and metrics; returns what goes on to the next stage
//          (the item itself; the load stage: one item per partition; nothing at the end).
// The next stage's queue takes what `done` returns unless the job died meanwhile; a stage
// without a queue runs at once on the same worker (verification, right after finalize). Every
// item leaving the pipeline, on any path, gives back what it holds (job.hpp: WorkItem's tokens).
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/job.hpp"
#include "engine/lookahead.hpp"
#include "engine/metrics.hpp"
#include "engine/work_queue.hpp"

namespace cuzk::engine {

enum class StageId { Load, Synthesize, Device, Finalize, Verify };
// "scheduler", "synthesis", "prove", "finalize", "verify": GetStatus's and the metrics' names.
const char* stage_name(StageId id);
// The stages with a queue of their own, in order (verification runs on the finalize workers).
inline constexpr std::array<StageId, 4> kQueuedStages = {StageId::Load, StageId::Synthesize, StageId::Device,
                                                         StageId::Finalize};

// Thrown by a stage's admit step: fail the job with exactly this message.
class StageFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StageWorker;

struct Stage {
  StageId id = StageId::Load;
  std::string label = {};                // in error messages; empty: the message alone
  WorkQueue<WorkItem>* queue = nullptr;  // null: runs on the previous stage's worker, right after it
  Lookahead* gate = nullptr;             // a worker takes a slot before it pops; the item carries it
  // Items of at least this priority pass the gate without a slot: a deadline proof (WinningPoSt)
  // must not wait until partitions queued at the prover, which hold every slot, get their turn.
  int gate_bypass_priority = std::numeric_limits<int>::max();
  std::function<bool(WorkItem&)> admit = {};  // optional
  std::function<void(WorkItem&, const StageWorker&)> run = {};
  std::function<std::vector<WorkItem>(WorkItem&, Clock::time_point start, double ms)> done = {};  // optional
  Histogram* seconds = nullptr;  // observed after each successful run
};

// One worker thread, serving one stage's queue.
struct StageWorker {
  std::string name;
  size_t stage = 0;   // the stage whose queue it pops
  unsigned lane = 0;  // which of its stage's resources: a synthesis thread pool, a GPU slot
  // Pops only items of at least this priority (a worker kept free for deadline work); 0: any.
  int min_priority = 0;
  Gauge* busy_gauge = nullptr;
  // Guarded by Pipeline's lock:
  bool busy = false;
  std::string job_id;
  uint32_t partition = 0;
  ProofKind kind = ProofKind::Generic;
  Priority priority = Priority::Normal;
  uint64_t busy_ns = 0;
  Clock::time_point busy_since;
};

// A worker as status() sees it: its stage and, while busy, its item's job, kind and priority.
struct WorkerView {
  WorkerInfo info;
  StageId stage = StageId::Load;
  bool busy = false;
  ProofKind kind = ProofKind::Generic;
  Priority priority = Priority::Normal;
  Gauge* busy_gauge = nullptr;
};

// A stage's queue under its GetStatus name.
struct NamedQueue {
  const char* stage;
  const WorkQueue<WorkItem>* queue;
};
// GetStatus's queues: per stage, priority and proof kind, the items waiting in each queue and the
// items the busy workers hold (under their stage's name), sorted by stage name, priority, kind.
std::vector<QueueInfo> queue_status(const std::vector<NamedQueue>& queues, const std::vector<WorkerView>& workers);

class Pipeline {
 public:
  using FailJob = std::function<void(const std::shared_ptr<Job>&, const std::string&)>;

  explicit Pipeline(FailJob fail) : fail_(std::move(fail)) {}
  ~Pipeline() { join(); }
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Appends a stage (before any worker starts); returns its index. A stage without a queue
  // needs one before it.
  size_t add_stage(Stage stage);
  // Starts a worker thread on stage `stage` (one with a queue).
  void add_worker(size_t stage, std::string name, unsigned lane = 0, Gauge* busy_gauge = nullptr, int min_priority = 0);
  // Waits for every worker to return (their queues closed and drained, their gates closed).
  void join();

  std::vector<WorkerView> workers() const;
  // Sets each worker's busy_gauge to its busy seconds so far.
  void publish_busy() const;
  // Seconds so far during which at least one worker of the stage's lane `lane` was busy: the
  // occupancy of that lane's resource (a GPU's prover workers overlap, one uploading while
  // another's kernels run, so their busy seconds add up to more than the device's). 0 for a
  // stage or lane without workers.
  double lane_busy_seconds(StageId stage, unsigned lane) const;

 private:
  void worker_loop(StageWorker& w);
  // A slot of s's gate, or (with no slot) an item of at least s.gate_bypass_priority; false once
  // the gate is closed.
  bool pass_gate(const Stage& s, SlotToken& slot, std::optional<WorkItem>& urgent);
  void process(size_t stage, WorkItem item, StageWorker& w);
  void forward(size_t stage, WorkItem item, StageWorker& w);
  void set_busy(StageWorker& w, const WorkItem* item);
  double busy_seconds_locked(const StageWorker& w, Clock::time_point now) const;

  // A lane's occupancy: how many of its workers are busy, since when at least one is, and the
  // nanoseconds of earlier busy spans.
  struct LaneBusy {
    unsigned active = 0;
    Clock::time_point since;
    uint64_t ns = 0;
  };

  FailJob fail_;
  std::vector<Stage> stages_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<StageWorker>> workers_;
  std::map<std::pair<size_t, unsigned>, LaneBusy> lanes_;  // by (stage, lane), guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace cuzk::engine
