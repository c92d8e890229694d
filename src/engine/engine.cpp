#include "engine/engine.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "engine/partition_work.hpp"
#include "engine/process_stats.hpp"
#include "engine/request_decoder.hpp"
#include "util/atomic_file.hpp"
#include "util/log.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

namespace {

std::string fresh_job_id() {
  SystemRng rng;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "job-";
  for (int i = 0; i < 2; ++i) {
    uint64_t v = rng();
    for (int k = 0; k < 16; ++k, v >>= 4) id += kHex[v & 15];
  }
  return id;
}

// A device prover's build listed as an operation with its upload's progress.
class OperationProgress final : public backend::BuildProgress {
 public:
  explicit OperationProgress(Operations::Handle op) : op_(std::move(op)) {}
  void progress(uint64_t done, uint64_t total) override { op_.progress(done, total); }

 private:
  Operations::Handle op_;
};

// The GPUs of [gpus]: backend::Placement with the daemon's settings (and its wording of errors).
std::unique_ptr<backend::Placement> make_placement(const GpusSection& config, ThreadPool* cpu_pool,
                                                   backend::PlacementSetup setup, Operations* operations,
                                                   backend::HostReserver reserve_host) {
  // Field by field: GCC 12 warns (falsely) of an uninitialized std::function in a designated
  // initializer of these structs.
  backend::PlacementOptions options;
  options.kind = backend::parse_backend_kind(config.backend);
  options.devices = config.devices;
  options.fit.b_g2_on_gpu = config.g2_msm != "cpu";
  options.fit.msm_table_bits = config.msm_table_bits;
  options.fit.witness_slots = std::min(config.workers_per_device, 2u);
  options.fit.overlap_h = config.overlap_h;
  options.fit.pool = cpu_pool;
  options.fit.memory_limit = config.memory_limit;
  options.fit.reserve_host = std::move(reserve_host);
  options.required_by = "gpus.backend = \"gpu\"";
  for (const auto& [device, bytes] : config.memory_limit_per_device)
    options.memory_limits[static_cast<int>(device)] = bytes;
  backend::BuildWatcher watcher = [operations](const std::string& circuit) {
    return std::make_unique<OperationProgress>(operations->start("gpu_prover", circuit, "points"));
  };
  const bool test_devices = static_cast<bool>(setup.factory);
  try {
    return std::make_unique<backend::Placement>(options, std::move(setup), std::move(watcher));
  } catch (const std::runtime_error&) {
    if (options.kind != backend::BackendKind::Gpu || test_devices) throw;
    throw std::runtime_error("gpus.backend = \"gpu\" but there is no GPU to prove on: " +
                             backend::available_devices(config.devices).unavailable_reason +
                             " (set gpus.backend = \"auto\" or \"cpu\")");
  }
}

// A job's state in the request-id log lines.
const char* job_state(const Job& job) {
  if (!job.done) return job.running ? "running" : "queued";
  switch (job.status) {
    case JobStatus::Completed:
      return "completed";
    case JobStatus::Failed:
      return "failed";
    default:
      return "cancelled";
  }
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
  return buf;
}

}  // namespace

Engine::Engine(const Config& config, backend::PlacementSetup gpu_setup)
    : config_(config),
      registry_(config_),
      budget_(effective_budget(config_.memory.total_budget, config_.memory.safety_margin, mem_total_bytes())),
      srs_(budget_,
           {.check_subgroups = config_.srs.check_subgroups,
            .eviction_min_idle_s = config_.memory.eviction_min_idle_s,
            .on_load =
                [this](double seconds, bool ok) {
                  if (ok) {
                    m_.srs_load.observe(seconds);
                  } else {
                    m_.srs_load_failures.inc();
                  }
                }},
           [this](const CircuitDef& def, int priority, const std::function<bool()>& cancelled) {
             return make_test_keys(def, priority, cancelled);
           }),
      pce_(budget_, {config_.pce.dir, config_.pce.verify_checksums, config_.pce.extract_on_first_use,
                     config_.memory.eviction_min_idle_s, &operations_,
                     [this](const char* source, double seconds, bool ok) {
                       if (ok) {
                         m_.pce_load(source).observe(seconds);
                       } else {
                         m_.pce_load_failures(source).inc();
                       }
                     }}),
      started_at_(Clock::now()),
      gpu_setup_(std::move(gpu_setup)) {
  budget_.set_evictor([this](uint64_t needed) {
    uint64_t freed = srs_.evict_idle(needed);
    if (freed < needed) freed += pce_.evict_idle(needed - freed);
    if (freed < needed && gpus_) {
      // A resident device prover holds its circuit's key and PCE, which keeps them from looking
      // idle here: host memory wins, so device provers idle as long as the caches require go and
      // the caches are asked again. Busier ones stay: their keys would not be evicted anyway.
      if (gpus_->drop_idle(std::chrono::duration<double>(config_.memory.eviction_min_idle_s)) == 0) return freed;
      freed += srs_.evict_idle(needed - freed);
      if (freed < needed) freed += pce_.evict_idle(needed - freed);
    }
    return freed;
  });
  metrics_.add_collector([this] { collect_metrics(); });
}

Engine::~Engine() {
  shutdown(false);
}

// ---- start / stop ----

void Engine::start() {
  apply_tuning();
  if (config_.prover.threads != 0) ThreadPool::set_global_threads(config_.prover.threads);
  const unsigned hw = std::max(1u, hardware_threads());
  // Auto: 3/8 of the hardware threads (at least 2, at most 8). A large partition's synthesis is
  // mostly serial (a 32 GiB PoRep partition: ~5 core-s in ~6 s), so the rate comes from workers:
  // on 16 cores, 6 workers outran an H200's prover (0.91 against 0.70 partitions/s) where 4 had
  // been co-limiting (BENCHMARKS.md); the memory budget still admits each partition.
  const unsigned synth_workers =
      config_.synthesis.workers != 0 ? config_.synthesis.workers : std::clamp(hw * 3 / 8, 2u, 8u);
  // Auto: every hardware thread, shared by the workers (a 32 GiB WindowPoSt witness alone on 16
  // threads: 1.1 s against 1.6 s on the 8 that each worker used to own).
  const unsigned synth_threads = config_.synthesis.threads != 0 ? config_.synthesis.threads : hw;
  // Auto: one slot per synthesis worker, so no worker idles while the prover could use its work
  // (at 32 GiB, 2 slots for 4 workers left the GPU idle a third of the time: 25.9 vs 20.4 s/proof).
  const unsigned lookahead = config_.synthesis.lookahead != 0 ? config_.synthesis.lookahead : synth_workers;
  gpus_ = make_placement(config_.gpus, &ThreadPool::global(), std::move(gpu_setup_), &operations_,
                         [this](const std::string& id, uint64_t bytes) { return host_held_.reserve(id, bytes); });
  // GPUs read the keys' bases from their files: no host copy unless a CPU proves.
  srs_.set_host_keys(!gpus_->enabled());
  {
    std::string list;
    for (int d : gpus_->devices()) {
      if (!list.empty()) list += ',';
      list += std::to_string(d);
    }
    logging::log_event(logging::Level::info, "engine_backend",
                       {{"backend", gpus_->enabled() ? "gpu" : "cpu"}, {"devices", list}, {"reason", gpus_->reason()}});
  }
  spdlog::info(
      "engine_start budget={} synth_workers={} synth_threads={} prover_workers={} finalize_workers={} "
      "lookahead={} synth_nice={}",
      gib(budget_.limit()), synth_workers, synth_threads, config_.prover.workers, config_.prover.finalize_workers,
      lookahead, config_.synthesis.nice);
  if (registry_.test_keys_allowed()) {
    spdlog::warn(
        "srs_test_keys_allowed: srs.allow_test_keys = true: Filecoin circuits (PoRep, PoSt, SnapDeals) without "
        "official parameter files in {} get TEST-ONLY keys from a public seed (kept: srs.test_keys = \"{}\"); their "
        "proofs are rejected by the chain. Never set it on a production host.",
        config_.srs.param_dir, config_.srs.test_keys);
  }
  m_.add_devices(gpus_->devices());
  warn_ignored_keys();
  // A daemon killed mid-save left its temporary files (for a key, up to tens of GiB); never read,
  // only in the way.
  for (const std::string& dir : registry_.output_dirs()) {
    for (const std::string& path : remove_stale_temp_files(dir)) {
      logging::log_event(logging::Level::warn, "stale_temp_file_removed",
                         {{"path", path}, {"why", "left by a process that died while writing it"}});
    }
  }
  const size_t scanned = pce_.scan();
  spdlog::info("pce_scan dir={} loaded={}", config_.pce.dir, scanned);
  for (const std::string& id : config_.srs.preload) {
    auto r = preload_srs(id);
    if (!r.ok()) throw std::runtime_error("preloading '" + id + "' failed: " + r.error.message);
  }
  lookahead_.resize(lookahead);
  synth_pool_ = std::make_unique<ThreadPool>(synth_threads, static_cast<int>(config_.synthesis.nice));
  {
    std::lock_guard lock(mu_);
    accepting_ = true;
  }
  build_pipeline(synth_workers);
}

void Engine::shutdown(bool drain) {
  {
    std::unique_lock lock(mu_);
    if (stopped_) return;
    accepting_ = false;
    if (drain && !force_stop_) {
      spdlog::info("engine_drain unfinished_jobs={}", unfinished_);
      // A forced shutdown from another thread (a second signal) ends the drain.
      jobs_cv_.wait(lock, [&] { return unfinished_ == 0 || force_stop_; });
    }
    if (!drain) {
      force_stop_ = true;
      abort_setup_ = true;
      jobs_cv_.notify_all();
    }
  }
  if (!drain) {
    std::vector<std::string> ids;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, job] : jobs_)
        if (!job->done) ids.push_back(id);
    }
    for (const std::string& id : ids) cancel(id);
  }
  abort_setup_ = true;  // nothing waits for keys any more
  // The teardown runs once; a concurrent caller waits for it to finish.
  std::lock_guard teardown(teardown_mu_);
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
  }
  for (WorkQueue<WorkItem>* q : {&admit_q_, &synth_q_, &prove_q_, &finalize_q_}) q->close();
  lookahead_.close();
  budget_.poke();
  pipeline_.join();
  pce_.wait_idle();
  std::lock_guard lock(mu_);
  stopped_ = true;
  spdlog::info("engine_stopped completed={} failed={} cancelled={}", completed_, failed_, cancelled_);
}

// ---- submit / await / cancel ----

// The request's job before it is queued: decoded and validated (a WindowPoSt's vanilla proofs
// checked), its queued witnesses held in the memory budget.
Outcome<std::shared_ptr<Job>> Engine::make_job(ProofRequest& req) {
  using O = Outcome<std::shared_ptr<Job>>;
  const DecodeContext ctx{
      registry_, [this](const CircuitDef& def) {
        CircuitRuntime rt{def, srs_.peek(def.id), def.uses_zkey() ? nullptr : pce_.peek(def.id), nullptr};
        return witness_length(rt);
      }};
  auto decoded = decode_request(req, ctx);
  if (!decoded.ok()) return O::failure(decoded.error.code, decoded.error.message);
  auto job = std::make_shared<Job>();
  job->kind = req.kind;
  job->priority = effective_priority(req.kind, req.wire_priority);
  job->def = std::move(decoded.value->def);
  job->vanilla = std::move(decoded.value->vanilla);
  job->payloads = std::move(decoded.value->payloads);
  job->partitions = static_cast<uint32_t>(job->payloads.size());
  job->witness_length_checked = decoded.value->witness_length_checked;
  // Queued witnesses count against the memory budget too, so that a flood of large requests is
  // refused (the client retries) rather than exhausting memory before any of them runs.
  uint64_t payload_bytes = 0;
  for (const PartitionPayload& p : job->payloads) payload_bytes += p.z.size() * sizeof(ec::Fr);
  if (payload_bytes >= (1u << 20)) {
    auto held = budget_.try_acquire(payload_bytes);
    if (!held.ok()) {
      return O::failure(ErrorCode::ResourceExhausted, "the request's witnesses do not fit in the memory budget now (" +
                                                          held.error() + "); retry later");
    }
    job->payload_memory = std::move(held).value();
  }
  job->proofs.resize(job->partitions);
  job->publics.resize(job->partitions);
  job->timeline.resize(job->partitions);
  for (uint32_t i = 0; i < job->partitions; ++i) job->timeline[i].index = i;
  return O::success(std::move(job));
}

RequestIds::Decision Engine::reuse_locked(const std::string& request_id, const RequestDigest& digest) const {
  return request_ids_.decide(request_id, digest, [&](const std::string& id) {
    const auto it = jobs_.find(id);
    return it != jobs_.end() && (!it->second->done || it->second->status == JobStatus::Completed);
  });
}

Outcome<Submitted> Engine::joined_locked(const std::string& request_id, const RequestDigest& digest,
                                         const std::string& job_id) {
  const Job& old = *jobs_.at(job_id);
  m_.request_reuse(RequestIds::Decision::Join).inc();
  logging::log_event(
      logging::Level::info, "request_joined",
      {{"request_id", request_id}, {"job", old.id}, {"state", job_state(old)}, {"digest", digest_prefix(digest)}});
  return Outcome<Submitted>::success(Submitted{old.id, 0, true});
}

Outcome<Submitted> Engine::submit(ProofRequest req) {
  using O = Outcome<Submitted>;
  const auto received = Clock::now();  // the decode (a WindowPoSt's vanilla proofs checked) is logged
  // Its parallel checks run on the shared global pool ahead of less urgent work there.
  const CallPriority urgency(static_cast<int>(effective_priority(req.kind, req.wire_priority)));
  RequestDigest digest{};
  if (!req.request_id.empty()) {
    digest = request_digest(req);
    // A retry of a request already queued, running or proved is answered without decoding it again.
    std::lock_guard lock(mu_);
    gc_finished_locked();
    if (auto d = reuse_locked(req.request_id, digest); d.what == RequestIds::Decision::Join) {
      return joined_locked(req.request_id, digest, d.job_id);
    }
  }
  auto made = make_job(req);
  if (!made.ok()) return O::failure(made.error.code, made.error.message);
  std::shared_ptr<Job> job = std::move(*made.value);

  std::lock_guard lock(mu_);
  gc_finished_locked();
  if (!accepting_) return O::failure(ErrorCode::Unavailable, "the daemon is shutting down");
  // Decided again under the lock: an equal request may have been queued while this one decoded.
  const RequestIds::Decision reuse = reuse_locked(req.request_id, digest);
  if (reuse.what == RequestIds::Decision::Join) return joined_locked(req.request_id, digest, reuse.job_id);
  if (unfinished_ >= config_.scheduler.max_pending_jobs) {
    return O::failure(ErrorCode::ResourceExhausted,
                      std::to_string(unfinished_) + " jobs are pending (scheduler.max_pending_jobs); retry later");
  }
  job->request_id = req.request_id;
  job->digest = digest;
  job->id = req.request_id.empty()
                ? fresh_job_id()
                : RequestIds::job_id_for(req.request_id, [&](const std::string& id) { return jobs_.count(id) > 0; });
  while (jobs_.count(job->id)) job->id = fresh_job_id();
  if (reuse.what != RequestIds::Decision::Fresh) log_new_job_locked(*job, reuse);
  job->seq = next_seq_++;
  job->submitted = Clock::now();
  const auto position = static_cast<uint32_t>(unfinished_);
  jobs_[job->id] = job;
  request_ids_.add(job->request_id, job->id, digest);
  ++unfinished_;
  WorkItem item;
  item.job = job;
  admit_q_.push(job->key(0), std::move(item));
  spdlog::info("job_submitted job={} circuit={} partitions={} priority={} position={} decode_ms={:.1f}", job->id,
               job->def.id, job->partitions, priority_name(job->priority), position,
               ms_since(received, job->submitted));
  return O::success(Submitted{job->id, position, false});
}

// A new job under a request id that already names a job: which one, and why it is not joined.
void Engine::log_new_job_locked(const Job& job, const RequestIds::Decision& reuse) {
  m_.request_reuse(reuse.what).inc();
  const auto old = jobs_.find(reuse.job_id);
  std::string why = "the request differs from the earlier job's (another proof under the same request_id)";
  if (reuse.what == RequestIds::Decision::Rerun) {
    why = "an equal request's job ended without a proof; proving it again";
  }
  logging::log_event(logging::Level::info, "request_new_job",
                     {{"request_id", job.request_id},
                      {"old_job", reuse.job_id},
                      {"old_state", old == jobs_.end() ? "gone" : job_state(*old->second)},
                      {"new_job", job.id},
                      {"outcome", decision_name(reuse.what)},
                      {"why", why},
                      {"digest", digest_prefix(job.digest)}});
}

JobResult Engine::result_of_locked(const Job& job) const {
  JobResult r;
  r.job_id = job.id;
  r.status = job.status;
  r.error_message = job.error;
  r.partitions = job.partitions;
  if (job.status == JobStatus::Completed) {
    for (const std::string& p : job.proofs) r.proof += p;
    r.public_inputs = job.publics;
  }
  const auto end = job.done ? job.finished : Clock::now();
  r.timings.total_ms = static_cast<uint64_t>(ms_since(job.submitted, end));
  // Waiting for a worker, not counting the key load that happened in between.
  const double waited = job.dispatched ? ms_since(job.submitted, *job.dispatched) : ms_since(job.submitted, end);
  r.timings.queue_wait_ms = static_cast<uint64_t>(std::max(0.0, waited - static_cast<double>(job.srs_load_ms)));
  r.timings.srs_load_ms = job.srs_load_ms;
  r.timings.synthesis_ms = static_cast<uint64_t>(job.synth_ms);
  r.timings.prove_ms = static_cast<uint64_t>(job.prove_ms + job.finalize_ms);
  r.timings.finalize_ms = static_cast<uint64_t>(job.finalize_ms);
  r.timings.compute_us = static_cast<uint64_t>((job.synth_ms + job.prove_ms + job.finalize_ms) * 1000);
  r.timings.total_us = static_cast<uint64_t>(ms_since(job.submitted, end) * 1000);
  r.partition_timings = job.timeline;
  return r;
}

std::optional<JobResult> Engine::await(const std::string& job_id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return std::nullopt;
  std::shared_ptr<Job> job = it->second;
  auto done = [&] { return job->done; };
  if (timeout.count() == 0) {
    jobs_cv_.wait(lock, done);
  } else if (!jobs_cv_.wait_for(lock, timeout, done)) {
    JobResult r;
    r.job_id = job->id;
    r.status = JobStatus::Timeout;
    r.error_message = "the job is still running after " + std::to_string(timeout.count()) + " ms";
    r.partitions = job->partitions;
    return r;
  }
  return result_of_locked(*job);
}

void Engine::finish_job_locked(Job& job, JobStatus status, const std::string& message) {
  if (job.done) return;
  job.done = true;
  job.status = status;
  job.error = message;
  job.finished = Clock::now();
  job.runtime.reset();  // let the keys and the PCE go (eviction may need them)
  job.payloads.clear();
  job.payload_memory.release_all();
  --unfinished_;
  const EngineMetrics::PerKind& per = m_.kind(job.kind);
  switch (status) {
    case JobStatus::Completed:
      ++completed_;
      m_.completed_total.inc();
      per.completed->inc();
      per.duration->observe(ms_since(job.submitted, job.finished) / 1000);
      break;
    case JobStatus::Failed:
      ++failed_;
      m_.failed_total.inc();
      per.failed->inc();
      break;
    default:
      ++cancelled_;
      per.cancelled->inc();
      break;
  }
  finished_order_.emplace_back(job.finished, job.id);
  spdlog::log(status == JobStatus::Failed ? spdlog::level::warn : spdlog::level::info,
              "job_finished job={} status={} total_ms={:.0f} synth_ms={:.0f} prove_ms={:.0f}{}{}", job.id,
              status == JobStatus::Completed ? "completed"
              : status == JobStatus::Failed  ? "failed"
                                             : "cancelled",
              ms_since(job.submitted, job.finished), job.synth_ms, job.prove_ms + job.finalize_ms,
              message.empty() ? "" : " error=", message);
  jobs_cv_.notify_all();
}

void Engine::gc_finished_locked() {
  const auto now = Clock::now();
  while (!finished_order_.empty() && std::chrono::duration<double>(now - finished_order_.front().first).count() >
                                         config_.scheduler.completed_retention_s) {
    auto it = jobs_.find(finished_order_.front().second);
    if (it != jobs_.end()) {
      request_ids_.remove(it->second->request_id, it->second->id);
      jobs_.erase(it);
    }
    finished_order_.pop_front();
  }
}

void Engine::purge_queued(const std::string& job_id) {
  // The removed items go at once, and what they hold (memory, lookahead slots) with them.
  auto mine = [&](const WorkItem& item) { return item.job->id == job_id; };
  for (WorkQueue<WorkItem>* q : {&admit_q_, &synth_q_, &prove_q_, &finalize_q_}) q->remove_if(mine);
  // Waiters on the memory budget re-check their cancel predicates.
  budget_.poke();
}

CancelResult Engine::cancel(const std::string& job_id) {
  CancelResult r;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return r;
    r.found = true;
    Job& job = *it->second;
    if (job.done) return r;
    r.was_running = job.running;
    r.cancelled = true;
    job.dead = true;
    finish_job_locked(job, JobStatus::Cancelled, "cancelled");
  }
  purge_queued(job_id);
  return r;
}

void Engine::fail_job(const std::shared_ptr<Job>& job, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    job->dead = true;
    finish_job_locked(*job, JobStatus::Failed, message);
  }
  purge_queued(job->id);
}

std::shared_ptr<const CircuitRuntime> Engine::runtime_of(const Job& job) const {
  std::lock_guard lock(mu_);
  return job.runtime;
}

}  // namespace cuzk::engine
