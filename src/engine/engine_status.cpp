// The engine's key operations (PreloadSRS, EvictSRS, the verifying key), its status and metrics.
#include <algorithm>
#include <array>
#include <map>

#include "engine/engine.hpp"
#include "engine/process_stats.hpp"
#include "groth16/params_file.hpp"
#include "util/log.hpp"

namespace cuzk::engine {

// ---- keys, status, metrics ----

Outcome<PreloadResult> Engine::preload_srs(const std::string& circuit_id) {
  auto def = registry_.find(circuit_id);
  if (!def.ok()) return Outcome<PreloadResult>::failure(ErrorCode::NotFound, def.error());
  PreloadResult r;
  r.already_loaded = srs_.is_loaded(def->id) && (def->uses_zkey() || pce_.peek(def->id) != nullptr);
  const auto t0 = Clock::now();
  uint64_t loaded_ms = 0;
  auto srs = srs_.acquire(*def, static_cast<int>(Priority::Critical), {}, &loaded_ms);
  if (!srs.ok()) return Outcome<PreloadResult>::failure(ErrorCode::FailedPrecondition, srs.error());
  PceHandle pce;
  if (!def->uses_zkey()) {
    // Warm means ready to prove: the PCE too (extracted now if needed).
    auto p = pce_.get(*def, /*wait=*/true);
    if (!p.ok()) return Outcome<PreloadResult>::failure(ErrorCode::FailedPrecondition, p.error());
    pce = *p;
  }
  // ... and the device provers built (the bases uploaded: at 32 GiB a minute, not the first
  // proof's). Best effort: a device error here shows again, with its job, at the first partition.
  if (gpus_ && gpus_->enabled()) {
    try {
      gpus_->warm(circuit_key(def->id, *srs, pce));
    } catch (const std::exception& e) {
      logging::log_event(logging::Level::warn, "gpu_prover_not_warmed", {{"circuit", def->id}, {"error", e.what()}});
    }
  }
  r.load_time_ms = r.already_loaded
                       ? 0
                       : static_cast<uint64_t>(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  return Outcome<PreloadResult>::success(r);
}

Outcome<EvictResult> Engine::evict_srs(const std::string& circuit_id) {
  auto def = registry_.find(circuit_id);
  if (!def.ok()) return Outcome<EvictResult>::failure(ErrorCode::NotFound, def.error());
  EvictResult r = srs_.evict(def->id);
  if (gpus_) gpus_->drop_unless([&](const std::string& id) { return id != def->id; });
  return Outcome<EvictResult>::success(r);
}

Outcome<VerifyingKeyInfo> Engine::verifying_key(const std::string& circuit_id) {
  auto def = registry_.find(circuit_id);
  if (!def.ok()) return Outcome<VerifyingKeyInfo>::failure(ErrorCode::NotFound, def.error());
  auto srs = srs_.acquire(*def, static_cast<int>(Priority::High), {}, nullptr);
  if (!srs.ok()) return Outcome<VerifyingKeyInfo>::failure(ErrorCode::FailedPrecondition, srs.error());
  const std::vector<uint8_t> bytes = groth16::vk_bytes((*srs)->vk());
  return Outcome<VerifyingKeyInfo>::success(
      VerifyingKeyInfo{std::string(bytes.begin(), bytes.end()), (*srs)->num_public_inputs()});
}

EngineStatus Engine::status() {
  EngineStatus s;
  s.srs = srs_.status();
  s.test_keys_allowed = registry_.test_keys_allowed();
  s.tuning = tuning_lines_;
  s.pce = pce_.status();
  s.operations = operations_.snapshot();
  s.circuits = registry_.ids();
  s.memory_used_bytes = budget_.used();
  s.memory_limit_bytes = budget_.limit();
  s.memory_waits = budget_.waits();
  s.rss_bytes = process_rss_bytes();
  s.peak_rss_bytes = std::max(s.rss_bytes, process_peak_rss_bytes());  // as collect_metrics()
  s.uptime_seconds = static_cast<uint64_t>(std::chrono::duration<double>(Clock::now() - started_at_).count());
  std::vector<WorkerView> workers = pipeline_.workers();
  s.stage_queues = queue_status({{stage_name(StageId::Load), &admit_q_},
                                 {stage_name(StageId::Synthesize), &synth_q_},
                                 {stage_name(StageId::Device), &prove_q_},
                                 {stage_name(StageId::Finalize), &finalize_q_}},
                                workers);
  for (WorkerView& w : workers) s.workers.push_back(std::move(w.info));
  std::lock_guard lock(mu_);
  s.queues = job_queues_locked();
  s.completed = completed_;
  s.failed = failed_;
  s.cancelled = cancelled_;
  return s;
}

std::vector<QueueInfo> Engine::job_queues_locked() const {
  std::map<std::pair<int, ProofKind>, QueueInfo> tally;
  for (const auto& [id, job] : jobs_) {
    if (job->done) continue;
    QueueInfo& q = tally[{job->prio(), job->kind}];
    q.proof_kind = kind_name(job->kind);
    q.priority = job->priority;
    ++(job->running ? q.in_progress : q.pending);
    const uint32_t started = std::min(job->parts_started, job->partitions);
    q.pending_partitions += job->partitions - started;
    q.in_progress_partitions += started - std::min(job->parts_done, started);
  }
  std::vector<QueueInfo> out;
  // Highest priority first, as the scheduler serves them.
  for (auto it = tally.rbegin(); it != tally.rend(); ++it) out.push_back(std::move(it->second));
  return out;
}

void Engine::collect_metrics() {
  m_.memory_used.set(static_cast<double>(budget_.used()));
  m_.memory_limit.set(static_cast<double>(budget_.limit()));
  m_.memory_peak.set(static_cast<double>(budget_.peak_used()));
  m_.memory_waiters.set(static_cast<double>(budget_.waiters()));
  // The two come from different kernel counters read one after the other (the resident count is
  // cached per CPU): the peak is at least the resident size read with it.
  const uint64_t rss = process_rss_bytes();
  m_.rss.set(static_cast<double>(rss));
  m_.peak_rss.set(static_cast<double>(std::max(rss, process_peak_rss_bytes())));
  m_.publish_memory_waits(budget_.waits());
  m_.uptime.set(std::chrono::duration<double>(Clock::now() - started_at_).count());
  if (gpus_) {
    std::map<int, double> resident;
    for (int d : gpus_->devices()) resident[d] = 0;
    for (const backend::Resident& r : gpus_->residents()) resident[r.device] += static_cast<double>(r.bytes);
    for (const auto& [d, bytes] : resident) {
      if (Gauge* g = m_.resident(d)) g->set(bytes);
    }
    const uint64_t short_retries = gpus_->memory_short_retries();
    uint64_t seen = m_.gpu_short_seen.load();
    while (short_retries > seen && !m_.gpu_short_seen.compare_exchange_weak(seen, short_retries)) {
    }
    if (short_retries > seen) m_.gpu_memory_short_retries.inc(static_cast<double>(short_retries - seen));
  }
  const std::array<const WorkQueue<WorkItem>*, kQueuedStages.size()> stage_queues = {&admit_q_, &synth_q_, &prove_q_,
                                                                                     &finalize_q_};
  for (size_t i = 0; i < stage_queues.size(); ++i) {
    const std::map<int, size_t> counts = stage_queues[i]->count_by_priority();
    for (int p = 1; p <= 4; ++p) {
      auto it = counts.find(p);
      m_.queue_depth(i, static_cast<Priority>(p)).set(it == counts.end() ? 0.0 : static_cast<double>(it->second));
    }
  }
  pipeline_.publish_busy();
  // The device stage's lanes are the GPU slots (build_pipeline), or lane 0 on the CPU.
  if (gpus_ && gpus_->enabled()) {
    const std::vector<int>& devices = gpus_->devices();
    for (size_t slot = 0; slot < devices.size(); ++slot) {
      m_.publish_prover_busy("gpu:" + std::to_string(devices[slot]),
                             pipeline_.lane_busy_seconds(StageId::Device, static_cast<unsigned>(slot)));
    }
  } else {
    m_.publish_prover_busy("cpu", pipeline_.lane_busy_seconds(StageId::Device, 0));
  }
  std::lock_guard lock(mu_);
  m_.running_jobs.set(static_cast<double>(unfinished_));
}

std::string Engine::metrics_text() {
  return metrics_.render();
}

}  // namespace cuzk::engine
