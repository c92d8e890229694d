#include "engine/pipeline.hpp"

#include <map>
#include <optional>
#include <tuple>

namespace cuzk::engine {

const char* stage_name(StageId id) {
  switch (id) {
    case StageId::Load:
      return "scheduler";
    case StageId::Synthesize:
      return "synthesis";
    case StageId::Device:
      return "prove";
    case StageId::Finalize:
      return "finalize";
    case StageId::Verify:
      return "verify";
  }
  return "scheduler";
}

std::vector<QueueInfo> queue_status(const std::vector<NamedQueue>& queues, const std::vector<WorkerView>& workers) {
  std::map<std::tuple<std::string, int, ProofKind>, QueueInfo> tally;
  auto entry = [&](const char* stage, Priority p, ProofKind k) -> QueueInfo& {
    QueueInfo& q = tally[{stage, static_cast<int>(p), k}];
    q.stage = stage;
    q.priority = p;
    q.proof_kind = kind_name(k);
    return q;
  };
  for (const NamedQueue& nq : queues) {
    auto counts = nq.queue->count_by([](const WorkItem& it) { return std::pair(it.job->priority, it.job->kind); });
    for (const auto& [pk, n] : counts) entry(nq.stage, pk.first, pk.second).pending += static_cast<uint32_t>(n);
  }
  for (const WorkerView& w : workers) {
    if (w.busy && !w.info.current_job_id.empty()) ++entry(stage_name(w.stage), w.priority, w.kind).in_progress;
  }
  std::vector<QueueInfo> out;
  for (auto& [key, q] : tally) out.push_back(std::move(q));
  return out;
}

size_t Pipeline::add_stage(Stage stage) {
  if (!threads_.empty()) throw std::logic_error("Pipeline::add_stage after a worker started");
  if (!stage.queue && stages_.empty()) throw std::logic_error("the first stage needs a queue");
  if (!stage.run) throw std::logic_error(std::string("stage ") + stage_name(stage.id) + " has no run step");
  stages_.push_back(std::move(stage));
  return stages_.size() - 1;
}

void Pipeline::add_worker(size_t stage, std::string name, unsigned lane, Gauge* busy_gauge, int min_priority) {
  if (stage >= stages_.size() || !stages_[stage].queue) throw std::logic_error("a worker needs a stage with a queue");
  auto w = std::make_unique<StageWorker>();
  w->name = std::move(name);
  w->stage = stage;
  w->lane = lane;
  w->busy_gauge = busy_gauge;
  w->min_priority = min_priority;
  StageWorker& ref = *w;
  {
    std::lock_guard lock(mu_);
    workers_.push_back(std::move(w));
  }
  threads_.emplace_back([this, &ref] { worker_loop(ref); });
}

void Pipeline::join() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void Pipeline::worker_loop(StageWorker& w) {
  const Stage& s = stages_[w.stage];
  for (;;) {
    SlotToken slot;
    std::optional<WorkItem> item;
    if (w.min_priority > 0) {
      item = s.queue->pop_at_least(w.min_priority);  // no gate: such workers serve deadline work
      if (!item) return;
    } else if (s.gate) {
      if (!pass_gate(s, slot, item)) return;
    }
    if (!item) item = s.queue->pop();
    if (!item) return;
    if (slot.held()) item->slot = std::move(slot);
    process(w.stage, std::move(*item), w);
  }
}

bool Pipeline::pass_gate(const Stage& s, SlotToken& slot, std::optional<WorkItem>& urgent) {
  // Polls rather than waiting on the gate alone: an urgent item arriving while every slot is
  // held must be noticed (the poll only runs while the gate is full).
  if (s.gate_bypass_priority == std::numeric_limits<int>::max()) {
    std::optional<SlotToken> t = s.gate->take();
    if (!t) return false;
    slot = std::move(*t);
    return true;
  }
  constexpr std::chrono::milliseconds kPoll{5};
  for (;;) {
    if (std::optional<SlotToken> t = s.gate->take_for(kPoll)) {
      slot = std::move(*t);
      return true;
    }
    if (s.gate->closed()) return false;
    if ((urgent = s.queue->try_pop_at_least(s.gate_bypass_priority))) return true;
  }
}

void Pipeline::process(size_t stage, WorkItem item, StageWorker& w) {
  const Stage& s = stages_[stage];
  auto labelled = [&](const std::string& what) {
    return s.label.empty() ? what : "partition " + std::to_string(item.index) + " " + s.label + ": " + what;
  };
  if (s.admit) {
    try {
      if (!s.admit(item)) return;
    } catch (const StageFailure& e) {
      if (!item.job->dead) fail_(item.job, e.what());
      return;
    } catch (const std::exception& e) {
      if (!item.job->dead) fail_(item.job, labelled(e.what()));
      return;
    }
  }
  set_busy(w, &item);
  const auto t0 = Clock::now();
  std::optional<std::string> error;
  try {
    s.run(item, w);
  } catch (const std::exception& e) {
    error = e.what();
  }
  set_busy(w, nullptr);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (error) {
    // What the item holds goes back first: whoever the failure wakes sees the budget as it will be.
    item.memory.release_all();
    item.slot.reset();
    fail_(item.job, labelled(*error));
    return;
  }
  if (s.seconds) s.seconds->observe(ms / 1000);
  std::vector<WorkItem> next;
  if (s.done) {
    next = s.done(item, t0, ms);
  } else {
    next.push_back(std::move(item));
  }
  for (WorkItem& n : next) forward(stage + 1, std::move(n), w);
}

void Pipeline::forward(size_t stage, WorkItem item, StageWorker& w) {
  if (stage >= stages_.size() || item.job->dead) return;  // the item's tokens go back here
  const Stage& s = stages_[stage];
  if (!s.queue) {
    process(stage, std::move(item), w);
    return;
  }
  const WorkKey key = item.key();
  s.queue->push(key, std::move(item));  // a closed queue drops it, tokens and all
}

namespace {

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

}  // namespace

void Pipeline::set_busy(StageWorker& w, const WorkItem* item) {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  LaneBusy& lane = lanes_[{w.stage, w.lane}];
  if (item) {
    w.busy_since = now;
    w.job_id = item->job->id;
    w.partition = item->index;
    w.kind = item->job->kind;
    w.priority = item->job->priority;
    if (lane.active++ == 0) lane.since = now;
  } else if (w.busy) {
    w.busy_ns += ns_between(w.busy_since, now);
    w.job_id.clear();
    if (--lane.active == 0) lane.ns += ns_between(lane.since, now);
  }
  w.busy = item != nullptr;
}

double Pipeline::lane_busy_seconds(StageId stage, unsigned lane) const {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  for (size_t s = 0; s < stages_.size(); ++s) {
    if (stages_[s].id != stage) continue;
    auto it = lanes_.find({s, lane});
    if (it == lanes_.end()) return 0;
    const LaneBusy& l = it->second;
    return static_cast<double>(l.ns + (l.active > 0 ? ns_between(l.since, now) : 0)) / 1e9;
  }
  return 0;
}

double Pipeline::busy_seconds_locked(const StageWorker& w, Clock::time_point now) const {
  uint64_t ns = w.busy_ns;
  if (w.busy) ns += ns_between(w.busy_since, now);
  return static_cast<double>(ns) / 1e9;
}

std::vector<WorkerView> Pipeline::workers() const {
  std::vector<WorkerView> out;
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  for (const std::unique_ptr<StageWorker>& p : workers_) {
    const StageWorker& w = *p;
    const bool busy = w.busy;
    WorkerInfo info{w.name, busy ? "busy" : "idle", w.job_id, w.partition, busy_seconds_locked(w, now)};
    out.push_back(WorkerView{std::move(info), stages_[w.stage].id, busy, w.kind, w.priority, w.busy_gauge});
  }
  return out;
}

void Pipeline::publish_busy() const {
  for (const WorkerView& v : workers()) {
    if (v.busy_gauge) v.busy_gauge->set(v.info.busy_seconds);
  }
}

}  // namespace cuzk::engine
