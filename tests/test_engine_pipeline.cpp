// The engine's stage runner (engine/pipeline) and its tokens (engine/lookahead) without circuits:
// fake stages over fake jobs. Every way an item leaves the pipeline (dropped by admit, failed by
// admit or run, its job dead, a closed queue, the end) returns its lookahead slot and its memory;
// failures read "partition N <label>: ..."; a stage without a queue runs on the same worker;
// status sees each worker's stage and its item's proof kind; a lane's busy time counts its
// overlapping workers once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "engine/lookahead.hpp"
#include "engine/memory_budget.hpp"
#include "engine/pipeline.hpp"

namespace {

using namespace cuzk::engine;
using namespace std::chrono_literals;

TEST(Lookahead, ATokenReturnsItsSlotWhenDestroyedResetOrMovedOver) {
  Lookahead slots(2);
  {
    std::optional<SlotToken> a = slots.take();
    ASSERT_TRUE(a && a->held());
    EXPECT_EQ(slots.free_slots(), 1u);
    SlotToken moved = std::move(*a);
    EXPECT_FALSE(a->held());
    EXPECT_TRUE(moved.held());
    EXPECT_EQ(slots.free_slots(), 1u);  // a move is not a release
    std::optional<SlotToken> b = slots.take();
    EXPECT_EQ(slots.free_slots(), 0u);
    moved = std::move(*b);  // the slot `moved` held goes back
    EXPECT_EQ(slots.free_slots(), 1u);
    moved.reset();
    moved.reset();  // twice: once only
    EXPECT_EQ(slots.free_slots(), 2u);
    std::optional<SlotToken> c = slots.take();
    EXPECT_EQ(slots.free_slots(), 1u);
  }
  EXPECT_EQ(slots.free_slots(), 2u);
}

TEST(Lookahead, TakeWaitsForASlotAndCloseEndsTheWait) {
  Lookahead slots(1);
  std::optional<SlotToken> held = slots.take();
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    std::optional<SlotToken> t = slots.take();
    got = t.has_value();
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(got);
  held->reset();
  waiter.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(slots.free_slots(), 1u);
  std::optional<SlotToken> again = slots.take();
  std::atomic<bool> returned{false};
  std::thread closed([&] {
    EXPECT_FALSE(slots.take().has_value());
    returned = true;
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(returned);
  slots.close();
  closed.join();
  EXPECT_TRUE(returned);
  again.reset();  // a token outliving close() still returns its slot
  EXPECT_EQ(slots.free_slots(), 1u);
}

// Two queued stages (a: gated by the lookahead, reserves memory; b: consumes the slot) and one
// inline stage (c); `behaviour` decides per partition what goes wrong.
enum class Fault { None, DropInAdmit, FailInAdmit, ThrowInAdmit, ThrowInRunA, ThrowInRunC, KillJobInRunA };

struct Harness {
  static constexpr unsigned kSlots = 2;
  static constexpr uint64_t kBytes = 1000;

  MemoryBudget budget{1 << 20};
  Lookahead slots{kSlots};
  WorkQueue<WorkItem> qa, qb;
  std::map<uint32_t, Fault> faults;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> failures;
  std::vector<uint32_t> finished;
  std::map<uint32_t, std::thread::id> ran_b, ran_c;
  std::atomic<int> ran_a{0};
  Pipeline pipeline{[this](const std::shared_ptr<Job>& job, const std::string& message) {
    job->dead = true;
    std::lock_guard lock(mu);
    failures.push_back(message);
    cv.notify_all();
  }};

  Fault fault(const WorkItem& i) {
    auto it = faults.find(i.index);
    return it == faults.end() ? Fault::None : it->second;
  }

  Harness() {
    Stage a{.id = StageId::Synthesize, .label = "synthesis", .queue = &qa, .gate = &slots};
    a.admit = [this](WorkItem& i) {
      if (fault(i) == Fault::DropInAdmit) return false;
      if (fault(i) == Fault::FailInAdmit) throw StageFailure("partition " + std::to_string(i.index) + ": no room");
      if (fault(i) == Fault::ThrowInAdmit) throw std::runtime_error("unexpected");
      i.memory = budget.acquire(kBytes).value();
      return true;
    };
    a.run = [this](WorkItem& i, const StageWorker&) {
      ++ran_a;
      if (fault(i) == Fault::ThrowInRunA) throw std::runtime_error("bad witness");
      if (fault(i) == Fault::KillJobInRunA) i.job->dead = true;
    };
    Stage b{.id = StageId::Device, .label = "prover", .queue = &qb};
    b.admit = [](WorkItem& i) {
      i.slot.reset();
      return true;
    };
    b.run = [this](WorkItem& i, const StageWorker&) {
      std::lock_guard lock(mu);
      ran_b[i.index] = std::this_thread::get_id();
    };
    Stage c{.id = StageId::Verify, .label = "finalize"};
    c.run = [this](WorkItem& i, const StageWorker&) {
      if (fault(i) == Fault::ThrowInRunC) throw std::runtime_error("does not verify");
      std::lock_guard lock(mu);
      ran_c[i.index] = std::this_thread::get_id();
    };
    c.done = [this](WorkItem& i, Clock::time_point, double) {
      i.memory.release_all();
      std::lock_guard lock(mu);
      finished.push_back(i.index);
      cv.notify_all();
      return std::vector<WorkItem>{};
    };
    pipeline.add_stage(std::move(a));
    pipeline.add_stage(std::move(b));
    pipeline.add_stage(std::move(c));
  }

  static std::shared_ptr<Job> job(ProofKind kind = ProofKind::Generic) {
    auto j = std::make_shared<Job>();
    j->id = "job-" + std::to_string(reinterpret_cast<uintptr_t>(j.get()));
    j->kind = kind;
    return j;
  }
  void push(const std::shared_ptr<Job>& j, uint32_t index) {
    WorkItem i;
    i.job = j;
    i.index = index;
    qa.push(j->key(index), std::move(i));
  }
  // Waits until `n` items have finished or failed.
  void wait_for(size_t n) {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return finished.size() + failures.size() >= n; }));
  }
  void stop() {
    qa.close();
    qb.close();
    slots.close();
    pipeline.join();
  }
};

TEST(Pipeline, EveryExitPathReturnsTheSlotAndTheMemory) {
  Harness h;
  h.faults = {{1, Fault::DropInAdmit},
              {2, Fault::FailInAdmit},
              {3, Fault::ThrowInRunA},
              {4, Fault::ThrowInRunC},
              {5, Fault::ThrowInAdmit}};
  h.pipeline.add_worker(0, "a-0");
  h.pipeline.add_worker(1, "b-0");
  // One job per partition, so that one failure does not stop the others.
  for (uint32_t i = 0; i < 6; ++i) h.push(Harness::job(), i);
  h.wait_for(5);  // 0 finishes; 2, 3, 4, 5 fail; 1 is dropped without a trace
  {
    std::lock_guard lock(h.mu);
    EXPECT_EQ(h.finished, std::vector<uint32_t>{0});
    std::sort(h.failures.begin(), h.failures.end());
    EXPECT_EQ(h.failures,
              (std::vector<std::string>{"partition 2: no room", "partition 3 synthesis: bad witness",
                                        "partition 4 finalize: does not verify", "partition 5 synthesis: unexpected"}));
  }
  // A job that died while its partition ran: the item is dropped at the hand-over.
  h.faults[6] = Fault::KillJobInRunA;
  h.push(Harness::job(), 6);
  // Partitions waiting in b's queue when it closes are dropped with what they hold.
  h.qb.close();
  h.push(Harness::job(), 7);
  // Once stage a has run items 0, 3, 4, 6 and 7, nothing reserves memory any more: wait for the
  // releases.
  for (int i = 0; i < 400 && !(h.ran_a == 5 && h.budget.used() == 0 && h.slots.free_slots() == Harness::kSlots - 1);
       ++i) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(h.ran_a, 5);
  EXPECT_EQ(h.budget.used(), 0u);
  // The idle worker of stage a holds one slot while it waits for its next item.
  EXPECT_EQ(h.slots.free_slots(), Harness::kSlots - 1);
  h.stop();
  EXPECT_EQ(h.slots.free_slots(), Harness::kSlots);
  EXPECT_EQ(h.budget.used(), 0u);
}

TEST(Pipeline, AStageWithoutAQueueRunsOnTheSameWorkerAndStatusSeesStagesAndKinds) {
  Harness h;
  h.pipeline.add_worker(0, "a-0");
  h.pipeline.add_worker(1, "b-0");
  h.pipeline.add_worker(1, "b-1");
  for (uint32_t i = 0; i < 6; ++i) h.push(Harness::job(), i);
  h.wait_for(6);
  {
    std::lock_guard lock(h.mu);
    ASSERT_EQ(h.ran_c.size(), 6u);
    for (const auto& [index, thread] : h.ran_c) EXPECT_EQ(thread, h.ran_b.at(index)) << index;
  }
  const std::vector<WorkerView> workers = h.pipeline.workers();
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].info.name, "a-0");
  EXPECT_EQ(workers[0].stage, StageId::Synthesize);
  EXPECT_EQ(workers[1].stage, StageId::Device);
  EXPECT_EQ(workers[2].stage, StageId::Device);
  for (const WorkerView& w : workers) EXPECT_EQ(w.info.state, "idle");
  h.stop();

  // Queued and running work is reported under its job's real kind and priority.
  auto porep = Harness::job(ProofKind::PorepSealCommit);
  auto window = Harness::job(ProofKind::WindowPostPartition);
  window->priority = Priority::High;
  WorkQueue<WorkItem> synth, prove;
  for (uint32_t i = 0; i < 3; ++i) synth.push(porep->key(i), WorkItem{.job = porep, .index = i});
  prove.push(window->key(0), WorkItem{.job = window});
  WorkerView busy{.info = {"prover-0", "busy", window->id, 1, 0.5},
                  .stage = StageId::Device,
                  .busy = true,
                  .kind = window->kind,
                  .priority = window->priority};
  const std::vector<QueueInfo> q = queue_status({{"synthesis", &synth}, {"prove", &prove}}, {busy});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].stage, "prove");
  EXPECT_EQ(q[0].proof_kind, "window_post");
  EXPECT_EQ(q[0].priority, Priority::High);
  EXPECT_EQ(q[0].pending, 1u);
  EXPECT_EQ(q[0].in_progress, 1u);
  EXPECT_EQ(q[1].stage, "synthesis");
  EXPECT_EQ(q[1].proof_kind, "porep_c2");
  EXPECT_EQ(q[1].pending, 3u);
  EXPECT_EQ(q[1].in_progress, 0u);
}

// A lane's busy seconds count the time at least one of its workers is busy: two workers of one
// GPU running at once count once (their own busy seconds count twice), a running item counts
// before it ends, and a lane without workers counts nothing.
TEST(Pipeline, ALanesBusySecondsCountOverlappingWorkersOnce) {
  WorkQueue<WorkItem> q;
  std::mutex mu;
  std::condition_variable cv;
  int started = 0, done = 0;
  bool release = false;
  Pipeline p([](const std::shared_ptr<Job>&, const std::string&) {});
  Stage device{.id = StageId::Device, .label = "prover", .queue = &q};
  device.run = [&](WorkItem&, const StageWorker&) {
    std::unique_lock lock(mu);
    ++started;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });  // both items run at once, until released
  };
  device.done = [&](WorkItem&, Clock::time_point, double) {
    std::lock_guard lock(mu);
    ++done;
    cv.notify_all();
    return std::vector<WorkItem>{};
  };
  p.add_stage(std::move(device));
  p.add_worker(0, "prover-gpu0-0", 0);
  p.add_worker(0, "prover-gpu0-1", 0);
  auto job = Harness::job();
  for (uint32_t i = 0; i < 2; ++i) q.push(job->key(i), WorkItem{.job = job, .index = i});
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return started == 2; }));
  }
  std::this_thread::sleep_for(150ms);
  EXPECT_GE(p.lane_busy_seconds(StageId::Device, 0), 0.15);  // counted while running
  {
    std::unique_lock lock(mu);
    release = true;
    cv.notify_all();
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return done == 2; }));
  }
  const double lane = p.lane_busy_seconds(StageId::Device, 0);
  double workers = 0;
  for (const WorkerView& w : p.workers()) workers += w.info.busy_seconds;
  EXPECT_GE(lane, 0.15);
  EXPECT_GE(workers, 0.3);
  EXPECT_LT(lane, workers - 0.1) << "the overlap was counted twice";
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(p.lane_busy_seconds(StageId::Device, 0), lane) << "an idle lane's seconds stay";
  EXPECT_EQ(p.lane_busy_seconds(StageId::Device, 1), 0.0);
  EXPECT_EQ(p.lane_busy_seconds(StageId::Synthesize, 0), 0.0);
  q.close();
  p.join();
}

TEST(Pipeline, StagesAreCheckedWhenAdded) {
  Pipeline p([](const std::shared_ptr<Job>&, const std::string&) {});
  Stage inline_first{.id = StageId::Verify, .label = "finalize"};
  inline_first.run = [](WorkItem&, const StageWorker&) {};
  EXPECT_THROW(p.add_stage(inline_first), std::logic_error);
  WorkQueue<WorkItem> q;
  Stage no_run{.id = StageId::Load, .queue = &q};
  EXPECT_THROW(p.add_stage(no_run), std::logic_error);
  Stage ok{.id = StageId::Load, .queue = &q};
  ok.run = [](WorkItem&, const StageWorker&) {};
  EXPECT_EQ(p.add_stage(ok), 0u);
  EXPECT_THROW(p.add_worker(1, "none"), std::logic_error);
}

}  // namespace
