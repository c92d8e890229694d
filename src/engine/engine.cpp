#include "engine/engine.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "backend/setup_backend.hpp"
#include "engine/partition_work.hpp"
#include "engine/process_stats.hpp"
#include "engine/request_decoder.hpp"
#include "filecoin/registered_proof.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup_file.hpp"
#include "util/checksum.hpp"
#include "util/log.hpp"
#include "util/quote.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kFinalizeBytes = 64 << 10;  // what a partition holds after its device stage

double ms_since(Clock::time_point t0, Clock::time_point t1 = Clock::now()) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

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

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
  return buf;
}

}  // namespace

struct Job {
  std::string id, request_id;
  uint64_t seq = 0;
  ProofKind kind = ProofKind::Generic;
  Priority priority = Priority::Normal;
  CircuitDef def;
  std::vector<PartitionPayload> payloads;  // moved into tasks at dispatch
  uint32_t partitions = 0;
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

struct PartitionTask {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  PartitionPayload payload;
};

struct ProvedTask {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  Reservation memory;
  Synthesized synth;   // prove queue
  DeviceStageOut out;  // finalize queue
  bool holds_slot = false;
};

// Thread pools: one per synthesis worker (so MatVec of one partition does not serialise behind
// another's), the provers on the process-wide pool (the MSM and NTT code's default).
class ThreadPoolSet {
 public:
  std::vector<std::unique_ptr<ThreadPool>> synth;
};

Engine::Engine(const Config& config, GpuPoolSetup gpu_setup)
    : config_(config),
      registry_(config_),
      budget_(effective_budget(config_.memory.total_budget, config_.memory.safety_margin, mem_total_bytes())),
      srs_(budget_, {config_.srs.check_subgroups, config_.memory.eviction_min_idle_s},
           [this](const CircuitDef& def) { return make_test_keys(def); }),
      pce_(budget_, {config_.pce.dir, config_.pce.verify_checksums, config_.pce.extract_on_first_use,
                     config_.memory.eviction_min_idle_s}),
      started_at_(Clock::now()),
      pools_(std::make_unique<ThreadPoolSet>()),
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
  register_metrics();
}

Engine::~Engine() {
  shutdown(false);
}

// ---- start / stop ----

void Engine::start() {
  apply_tuning();
  if (config_.prover.threads != 0) ThreadPool::set_global_threads(config_.prover.threads);
  const unsigned hw = std::max(1u, hardware_threads());
  const unsigned synth_workers = config_.synthesis.workers != 0 ? config_.synthesis.workers : 2;
  const unsigned synth_threads = config_.synthesis.threads != 0 ? config_.synthesis.threads : std::max(1u, hw / 2);
  // Auto: one slot per synthesis worker, so no worker idles while the prover could use its work
  // (at 32 GiB, 2 slots for 4 workers left the GPU idle a third of the time: 25.9 vs 20.4 s/proof).
  const unsigned lookahead = config_.synthesis.lookahead != 0 ? config_.synthesis.lookahead : synth_workers;
  gpus_ = std::make_unique<GpuPool>(config_.gpus, &ThreadPool::global(), std::move(gpu_setup_));
  {
    std::string list;
    for (int d : gpus_->devices()) list += (list.empty() ? "" : ",") + std::to_string(d);
    logging::log_event(logging::Level::info, "engine_backend",
                       {{"backend", gpus_->enabled() ? "gpu" : "cpu"}, {"devices", list}, {"reason", gpus_->reason()}});
  }
  spdlog::info(
      "engine_start budget={} synth_workers={} synth_threads={} prover_workers={} finalize_workers={} "
      "lookahead={}",
      gib(budget_.limit()), synth_workers, synth_threads, config_.prover.workers, config_.prover.finalize_workers,
      lookahead);
  if (registry_.test_keys_allowed()) {
    spdlog::warn(
        "srs_test_keys_allowed: srs.allow_test_keys = true: PoRep and PoSt circuits without official parameter files "
        "in {} "
        "get TEST-ONLY keys from a public seed; their proofs are rejected by the chain. Never set it on a "
        "production host.",
        config_.srs.param_dir);
  }
  // Under gpus.backend = "auto" whether the GPUs prove is known only now: say which knobs idle.
  if (gpus_->enabled() && config_.explicit_keys.count("prover.workers")) {
    spdlog::warn("config_ignored key=prover.workers reason=\"the GPUs prove here: gpus.workers_per_device applies\"");
  }
  if (!gpus_->enabled()) {
    for (const char* k : {"gpus.devices", "gpus.workers_per_device", "gpus.g2_msm", "gpus.msm_table_bits"}) {
      if (config_.explicit_keys.count(k)) {
        spdlog::warn("config_ignored key={} reason=\"no GPU proves here ({})\"", k, gpus_->reason());
      }
    }
  }
  const size_t scanned = pce_.scan();
  spdlog::info("pce_scan dir={} loaded={}", config_.pce.dir, scanned);
  for (const std::string& id : config_.srs.preload) {
    auto r = preload_srs(id);
    if (!r.ok()) throw std::runtime_error("preloading '" + id + "' failed: " + r.error.message);
  }
  slots_free_ = lookahead;
  auto add_worker = [&](const std::string& name) -> WorkerState& {
    workers_.push_back(std::make_unique<WorkerState>());
    workers_.back()->name = name;
    return *workers_.back();
  };
  for (unsigned i = 0; i < synth_workers; ++i) pools_->synth.push_back(std::make_unique<ThreadPool>(synth_threads));
  {
    std::lock_guard lock(mu_);
    accepting_ = true;
  }
  for (unsigned i = 0; i < 2; ++i) {
    WorkerState& w = add_worker("loader-" + std::to_string(i));
    threads_.emplace_back([this, &w] { loader_loop(w); });
  }
  for (unsigned i = 0; i < synth_workers; ++i) {
    WorkerState& w = add_worker("synth-" + std::to_string(i));
    threads_.emplace_back([this, &w, i] { synth_loop(w, i); });
  }
  if (gpus_->enabled()) {
    for (size_t slot = 0; slot < gpus_->devices().size(); ++slot) {
      for (unsigned i = 0; i < config_.gpus.workers_per_device; ++i) {
        WorkerState& w = add_worker("prover-gpu" + std::to_string(gpus_->devices()[slot]) + "-" + std::to_string(i));
        threads_.emplace_back([this, &w, slot] { prover_loop(w, slot); });
      }
    }
  } else {
    for (unsigned i = 0; i < std::max(1u, config_.prover.workers); ++i) {
      WorkerState& w = add_worker("prover-" + std::to_string(i));
      threads_.emplace_back([this, &w] { prover_loop(w, 0); });
    }
  }
  for (unsigned i = 0; i < std::max(1u, config_.prover.finalize_workers); ++i) {
    WorkerState& w = add_worker("finalize-" + std::to_string(i));
    threads_.emplace_back([this, &w] { finalize_loop(w); });
  }
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
  admit_q_.close();
  synth_q_.close();
  prove_q_.close();
  finalize_q_.close();
  {
    std::lock_guard lock(slot_mu_);
    slots_closed_ = true;
  }
  slot_cv_.notify_all();
  budget_.poke();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  pce_.wait_idle();
  std::lock_guard lock(mu_);
  stopped_ = true;
  spdlog::info("engine_stopped completed={} failed={} cancelled={}", completed_, failed_, cancelled_);
}

// ---- lookahead slots ----

bool Engine::take_slot() {
  std::unique_lock lock(slot_mu_);
  slot_cv_.wait(lock, [&] { return slots_free_ > 0 || slots_closed_; });
  if (slots_closed_) return false;
  --slots_free_;
  return true;
}

bool Engine::release_slot() {
  {
    std::lock_guard lock(slot_mu_);
    ++slots_free_;
  }
  slot_cv_.notify_one();
  return true;
}

// ---- tuning: the config's [tuning], the environment's overrides, set once for the process ----

void Engine::apply_tuning() {
  Tuning t = config_.tuning;
  const std::vector<TuningValue> env = apply_env_tuning(t);  // throws on a malformed variable
  set_tuning(t);
  const Tuning defaults;
  const bool from_config[] = {config_.tuning.msm_simd != defaults.msm_simd, config_.tuning.msm_glv != defaults.msm_glv,
                              config_.tuning.matvec_stream != defaults.matvec_stream,
                              config_.tuning.gpu_msm_reduce_threads.has_value(),
                              config_.tuning.gpu_msm_prefetch.has_value()};
  std::vector<TuningValue> all = describe_tuning(t, env, "default");
  tuning_lines_.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    TuningValue& v = all[i];
    if (v.source == "default" && i < std::size(from_config) && from_config[i]) v.source = "config";
    tuning_lines_.push_back(v.key + "=" + v.value + " (" + v.source + ")");
    spdlog::info("tuning {}={} source={}", v.key, v.value, v.source);
  }
}

// ---- keys for built-in circuits (test-only setup) ----

Result<bool> Engine::make_test_keys(const CircuitDef& def) {
  auto pce = pce_.get(def, /*wait=*/true);
  if (!pce.ok()) return make_error(pce.error());
  const uint64_t seed = checksum::xxh3_64(def.id.data(), def.id.size());
  const auto t0 = Clock::now();
  std::error_code ec;
  fs::create_directories(fs::path(def.params_path).parent_path(), ec);
  // The GPU when the daemon may use one (the same bytes as the CPU's, much sooner at 32 GiB).
  const backend::BackendKind kind = backend::parse_backend_kind(config_.gpus.backend) == backend::BackendKind::Cpu
                                        ? backend::BackendKind::Cpu
                                        : backend::BackendKind::Auto;
  std::unique_ptr<groth16::FixedBaseMultiplier> mul;
  try {
    mul = backend::make_setup_multiplier(kind, config_.gpus.devices);
  } catch (const std::exception& e) {
    spdlog::warn("srs_setup circuit={} GPU unusable for the setup ({}); using the CPU", def.id, e.what());
    mul = groth16::cpu_fixed_base_multiplier();
  }
  groth16::SetupFileOptions so;
  so.vk_path = def.vk_path;
  so.cancelled = [this] { return abort_setup_.load(); };
  auto made = groth16::setup_to_file(**pce, groth16::ToxicWaste::from_seed(seed), def.params_path, *mul, so);
  if (!made.ok()) return make_error(made.error());
  spdlog::info("srs_setup_done circuit={} seconds={:.3f} on={} bytes={} (TEST-ONLY keys from a public seed)", def.id,
               ms_since(t0) / 1000, mul->describe(), made->file_bytes);
  return true;
}

// ---- submit / await / cancel ----

Outcome<Submitted> Engine::submit(ProofRequest req) {
  using O = Outcome<Submitted>;
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

  std::lock_guard lock(mu_);
  gc_finished_locked();
  if (!accepting_) return O::failure(ErrorCode::Unavailable, "the daemon is shutting down");
  if (!req.request_id.empty()) {
    if (auto it = by_request_id_.find(req.request_id); it != by_request_id_.end()) {
      const Job& old = *jobs_.at(it->second);
      if (old.def.id != job->def.id || old.partitions != job->partitions) {
        return O::failure(ErrorCode::InvalidArgument, "request_id '" + req.request_id +
                                                          "' was used for another request (circuit '" + old.def.id +
                                                          "', " + std::to_string(old.partitions) + " partitions)");
      }
      return O::success(Submitted{old.id, 0, true});
    }
  }
  if (unfinished_ >= config_.scheduler.max_pending_jobs) {
    return O::failure(ErrorCode::ResourceExhausted,
                      std::to_string(unfinished_) + " jobs are pending (scheduler.max_pending_jobs); retry later");
  }
  job->request_id = req.request_id;
  job->id = req.request_id.empty() ? fresh_job_id() : req.request_id;
  while (jobs_.count(job->id)) job->id = fresh_job_id();
  job->seq = next_seq_++;
  job->submitted = Clock::now();
  const auto position = static_cast<uint32_t>(unfinished_);
  jobs_[job->id] = job;
  if (!job->request_id.empty()) by_request_id_[job->request_id] = job->id;
  ++unfinished_;
  admit_q_.push(job->key(0), job);
  spdlog::info("job_submitted job={} circuit={} partitions={} priority={} position={}", job->id, job->def.id,
               job->partitions, priority_name(job->priority), position);
  return O::success(Submitted{job->id, position, false});
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
  const char* kind = kind_name(job.kind);
  switch (status) {
    case JobStatus::Completed:
      ++completed_;
      metrics_.counter("cuzk_proofs_completed_total", "Proofs completed since start").inc();
      metrics_.counter("cuzk_proofs_completed", "Proofs completed, by kind", {{"proof_kind", kind}}).inc();
      metrics_
          .histogram("cuzk_proof_duration_seconds", "Submit-to-result time of completed proofs", {{"proof_kind", kind}})
          .observe(ms_since(job.submitted, job.finished) / 1000);
      break;
    case JobStatus::Failed:
      ++failed_;
      metrics_.counter("cuzk_proofs_failed_total", "Proofs failed since start").inc();
      metrics_.counter("cuzk_proofs_failed", "Proofs failed, by kind", {{"proof_kind", kind}}).inc();
      break;
    default:
      ++cancelled_;
      metrics_.counter("cuzk_proofs_cancelled", "Proofs cancelled, by kind", {{"proof_kind", kind}}).inc();
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
      if (!it->second->request_id.empty()) by_request_id_.erase(it->second->request_id);
      jobs_.erase(it);
    }
    finished_order_.pop_front();
  }
}

void Engine::purge_queued(const std::string& job_id) {
  auto mine = [&](const auto& item) { return item->job->id == job_id; };
  admit_q_.remove_if([&](const std::shared_ptr<Job>& j) { return j->id == job_id; });
  synth_q_.remove_if(mine);
  for (const auto& t : prove_q_.remove_if(mine)) {
    if (t->holds_slot) release_slot();
  }
  finalize_q_.remove_if(mine);
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

// ---- workers ----

double Engine::busy_seconds_locked(const WorkerState& w, Clock::time_point now) const {
  uint64_t ns = w.busy_ns;
  if (w.busy)
    ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - w.busy_since).count());
  return static_cast<double>(ns) / 1e9;
}

std::shared_ptr<const CircuitRuntime> Engine::runtime_of(const Job& job) const {
  std::lock_guard lock(mu_);
  return job.runtime;
}

void Engine::set_busy(WorkerState& w, bool busy, const std::string& job_id, uint32_t partition) {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  if (busy) {
    w.busy_since = now;
    w.job_id = job_id;
    w.partition = partition;
  } else if (w.busy) {
    w.busy_ns +=
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - w.busy_since).count());
    w.job_id.clear();
  }
  w.busy = busy;
}

void Engine::loader_loop(WorkerState& w) {
  while (auto item = admit_q_.pop()) {
    std::shared_ptr<Job> job = std::move(*item);
    if (job->dead) continue;
    auto cancelled = [&] { return job->dead.load(); };
    uint64_t loaded_ms = 0;
    set_busy(w, true, job->id, 0);
    auto srs = srs_.acquire(job->def, job->prio(), cancelled, &loaded_ms);
    set_busy(w, false);
    if (!srs.ok()) {
      fail_job(job, srs.error());
      continue;
    }
    PceHandle pce;
    if (!job->def.uses_zkey()) {
      auto p = pce_.get(job->def, /*wait=*/false);
      if (!p.ok()) {
        fail_job(job, p.error());
        continue;
      }
      pce = *p;
    }
    auto rt = make_runtime(job->def, *srs, pce);
    // Keys of another circuit (a misplaced or renamed .params) are refused before any work.
    if (rt->shape && rt->srs && rt->srs->pk) {
      try {
        groth16::validate_key(*rt->srs->pk, *rt->shape);
      } catch (const std::invalid_argument& e) {
        fail_job(job, "the keys of circuit '" + job->def.id + "' (" + job->def.params_path + "): " + e.what());
        continue;
      }
    }
    std::vector<PartitionPayload> payloads;
    {
      std::lock_guard lock(mu_);
      if (job->done) continue;
      job->srs_load_ms = loaded_ms;
      job->runtime = rt;
      payloads = std::move(job->payloads);
      job->payloads.clear();
    }
    // A witness of the wrong length fails here when the circuit was not loaded at submit time.
    if (auto want = witness_length(*rt); want && job->def.takes_wtns()) {
      std::string bad;
      for (size_t i = 0; i < payloads.size() && bad.empty(); ++i) {
        if (payloads[i].z.size() != *want) {
          bad = "witness " + std::to_string(i) + " has " + std::to_string(payloads[i].z.size()) +
                " values but circuit '" + job->def.id + "' needs " + std::to_string(*want);
        }
      }
      if (!bad.empty()) {
        fail_job(job, bad);
        continue;
      }
    }
    for (uint32_t i = 0; i < payloads.size(); ++i) {
      auto task = std::make_shared<PartitionTask>(PartitionTask{job, i, std::move(payloads[i])});
      synth_q_.push(job->key(i), std::move(task));
    }
  }
}

void Engine::synth_loop(WorkerState& w, unsigned index) {
  ThreadPool& pool = *pools_->synth[index];
  for (;;) {
    if (!take_slot()) return;
    auto item = synth_q_.pop();
    if (!item) {
      release_slot();
      return;
    }
    std::shared_ptr<PartitionTask> task = std::move(*item);
    std::shared_ptr<Job> job = task->job;
    std::shared_ptr<const CircuitRuntime> rt = runtime_of(*job);
    if (job->dead || !rt) {
      release_slot();
      continue;
    }
    // A built-in circuit whose PCE finished extracting after the job was admitted uses it now.
    if (!rt->pce && !rt->def.uses_zkey()) {
      if (PceHandle p = pce_.peek(rt->def.id)) {
        rt = make_runtime(rt->def, rt->srs, p);
        std::lock_guard lock(mu_);  // the job's later partitions reuse it
        if (!job->done) job->runtime = rt;
      }
    }
    const uint64_t bytes = partition_bytes(*rt, rt->def.builtin.constraints, device_stage_on_gpu(*gpus_, *rt));
    auto memory = budget_.acquire(bytes, job->prio(), [&] { return job->dead.load(); });
    if (!memory.ok()) {
      release_slot();
      if (!job->dead) fail_job(job, "partition " + std::to_string(task->index) + ": " + memory.error());
      continue;
    }
    const auto t0 = Clock::now();
    {
      std::lock_guard lock(mu_);
      job->running = true;
      if (!job->dispatched) {
        job->dispatched = t0;
        metrics_.histogram("cuzk_queue_wait_seconds", "Submit to first synthesis, per job")
            .observe(ms_since(job->submitted, t0) / 1000);
      }
    }
    set_busy(w, true, job->id, task->index);
    auto proved = std::make_shared<ProvedTask>();
    proved->job = job;
    proved->index = task->index;
    std::string error;
    try {
      // With GPUs, MatVec runs on the device from its resident PCE.
      proved->synth = synthesize(*rt, std::move(task->payload), pool, /*matvec=*/!gpus_->enabled());
    } catch (const std::exception& e) {
      error = e.what();
    }
    set_busy(w, false);
    const double synth_ms = ms_since(t0);
    if (!error.empty()) {
      release_slot();
      fail_job(job, "partition " + std::to_string(task->index) + " synthesis: " + error);
      continue;
    }
    metrics_.histogram("cuzk_stage_seconds", "Time per partition and stage", {{"stage", "synthesis"}})
        .observe(synth_ms / 1000);
    metrics_
        .counter("cuzk_partitions_synthesized_total", "Partitions synthesized, by path",
                 {{"path", proved->synth.full_synthesis ? "full_synthesis"
                           : rt->pce                    ? "pce"
                                                        : "zkey"}})
        .inc();
    {
      std::lock_guard lock(mu_);
      job->synth_ms += synth_ms;
      job->publics[task->index] = proved->synth.public_inputs;
      PartitionTiming& pt = job->timeline[task->index];
      pt.synthesis_start_ms = ms_since(job->submitted, t0);
      pt.synthesis_ms = synth_ms;
    }
    proved->memory = std::move(memory).value();
    proved->holds_slot = true;
    if (job->dead || !prove_q_.push(job->key(task->index), proved)) release_slot();
  }
}

void Engine::prover_loop(WorkerState& w, size_t gpu_slot) {
  ThreadPool& pool = ThreadPool::global();
  while (auto item = prove_q_.pop()) {
    std::shared_ptr<ProvedTask> task = std::move(*item);
    if (task->holds_slot) {
      task->holds_slot = false;
      release_slot();
    }
    std::shared_ptr<Job> job = task->job;
    std::shared_ptr<const CircuitRuntime> rt = runtime_of(*job);
    if (job->dead || !rt) continue;
    set_busy(w, true, job->id, task->index);
    const auto t0 = Clock::now();
    std::string error;
    DeviceStageReport report;
    try {
      // A partition admitted for the GPU reserves the CPU path's extra memory before falling back.
      std::optional<Reservation> cpu_extra;
      auto before_cpu = [&] {
        const uint64_t need = partition_bytes(*rt, rt->def.builtin.constraints, false);
        if (need <= task->memory.bytes()) return;
        auto r = budget_.acquire(need - task->memory.bytes(), job->prio(), [&] { return job->dead.load(); });
        if (!r.ok()) throw std::runtime_error("memory for the CPU fallback: " + r.error());
        cpu_extra.emplace(std::move(r).value());
      };
      task->out = device_stage_on(*gpus_, gpu_slot, *rt, std::move(task->synth), pool, &report, before_cpu);
    } catch (const std::exception& e) {
      error = e.what();
    }
    task->synth = {};
    if (!report.failures.empty()) {
      metrics_.counter("cuzk_device_errors_total", "Device stages that failed on a GPU (each is retried once)")
          .inc(static_cast<double>(report.failures.size()));
    }
    if (error.empty()) {
      metrics_
          .counter("cuzk_partitions_proved_total", "Device stages completed, by where they ran",
                   {{"backend", report.backend}})
          .inc();
    }
    set_busy(w, false);
    const double prove_ms = ms_since(t0);
    if (!error.empty()) {
      fail_job(job, "partition " + std::to_string(task->index) + " prover: " + error);
      continue;
    }
    // The witness, a, b, c and H are gone: hand most of the reservation back now.
    if (task->memory.bytes() > kFinalizeBytes) task->memory.release(task->memory.bytes() - kFinalizeBytes);
    metrics_.histogram("cuzk_stage_seconds", "Time per partition and stage", {{"stage", "prove"}})
        .observe(prove_ms / 1000);
    {
      std::lock_guard lock(mu_);
      job->prove_ms += prove_ms;
      PartitionTiming& pt = job->timeline[task->index];
      pt.prove_start_ms = ms_since(job->submitted, t0);
      pt.prove_ms = prove_ms;
      pt.backend = report.backend;
    }
    if (!job->dead) finalize_q_.push(job->key(task->index), task);
  }
}

void Engine::finalize_loop(WorkerState& w) {
  while (auto item = finalize_q_.pop()) {
    std::shared_ptr<ProvedTask> task = std::move(*item);
    std::shared_ptr<Job> job = task->job;
    std::shared_ptr<const CircuitRuntime> rt = runtime_of(*job);
    if (job->dead || !rt) continue;
    set_busy(w, true, job->id, task->index);
    const auto t0 = Clock::now();
    std::string proof, error;
    try {
      proof = finalize_stage(*rt, task->out, nullptr);
      // Every proof is verified before it is returned: a Filecoin kind's against the inputs a
      // verifier derives (PoRep: from C1 alone), any other against its own witness's public inputs.
      std::string publics;
      if (!job->vanilla) {
        std::lock_guard lock(mu_);
        publics = job->publics[task->index];
      }
      const std::string why = job->vanilla ? verify_vanilla_partition(*rt, *job->vanilla, task->index, proof)
                                           : verify_partition(*rt, publics, proof);
      if (!why.empty()) error = "proof verification failed: " + why;
    } catch (const std::exception& e) {
      error = e.what();
    }
    set_busy(w, false);
    task->memory.release_all();
    const double fin_ms = ms_since(t0);
    if (!error.empty()) {
      fail_job(job, "partition " + std::to_string(task->index) + " finalize: " + error);
      continue;
    }
    metrics_.histogram("cuzk_stage_seconds", "Time per partition and stage", {{"stage", "finalize"}})
        .observe(fin_ms / 1000);
    std::lock_guard lock(mu_);
    if (job->done) continue;
    job->finalize_ms += fin_ms;
    job->timeline[task->index].finalize_start_ms = ms_since(job->submitted, t0);
    job->timeline[task->index].finalize_ms = fin_ms;
    job->proofs[task->index] = std::move(proof);
    if (++job->parts_done == job->partitions) finish_job_locked(*job, JobStatus::Completed, "");
  }
}

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
  if (!def->uses_zkey()) {
    // Warm means ready to prove: the PCE too (extracted now if needed).
    auto pce = pce_.get(*def, /*wait=*/true);
    if (!pce.ok()) return Outcome<PreloadResult>::failure(ErrorCode::FailedPrecondition, pce.error());
  }
  r.load_time_ms = r.already_loaded ? 0 : static_cast<uint64_t>(ms_since(t0));
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
  s.circuits = registry_.ids();
  s.memory_used_bytes = budget_.used();
  s.memory_limit_bytes = budget_.limit();
  s.rss_bytes = process_rss_bytes();
  s.peak_rss_bytes = process_peak_rss_bytes();
  s.uptime_seconds = static_cast<uint64_t>(std::chrono::duration<double>(Clock::now() - started_at_).count());
  std::map<std::pair<std::string, int>, QueueInfo> queues;
  auto add_pending = [&](const char* stage, const std::map<int, size_t>& counts) {
    for (const auto& [prio, n] : counts) {
      QueueInfo& q = queues[{stage, prio}];
      q.stage = stage;
      q.priority = static_cast<Priority>(prio);
      q.pending += static_cast<uint32_t>(n);
    }
  };
  add_pending("scheduler", admit_q_.count_by_priority());
  add_pending("synthesis", synth_q_.count_by_priority());
  add_pending("prove", prove_q_.count_by_priority());
  add_pending("finalize", finalize_q_.count_by_priority());
  std::lock_guard lock(mu_);
  s.completed = completed_;
  s.failed = failed_;
  s.cancelled = cancelled_;
  const auto now = Clock::now();
  for (const auto& w : workers_) {
    WorkerInfo info;
    info.name = w->name;
    info.state = w->busy ? "busy" : "idle";
    info.current_job_id = w->job_id;
    info.current_partition = w->partition;
    info.busy_seconds = busy_seconds_locked(*w, now);
    s.workers.push_back(info);
    if (w->busy && !w->job_id.empty()) {
      auto it = jobs_.find(w->job_id);
      const std::string stage = w->name.substr(0, w->name.find('-'));
      const char* st = stage == "synth"      ? "synthesis"
                       : stage == "prover"   ? "prove"
                       : stage == "finalize" ? "finalize"
                                             : "scheduler";
      const int prio = it != jobs_.end() ? it->second->prio() : static_cast<int>(Priority::Normal);
      QueueInfo& q = queues[{st, prio}];
      q.stage = st;
      q.priority = static_cast<Priority>(prio);
      ++q.in_progress;
    }
  }
  for (auto& [k, q] : queues) {
    q.proof_kind = kind_name(ProofKind::Generic);
    s.queues.push_back(q);
  }
  return s;
}

void Engine::register_metrics() {
  metrics_.add_collector([this] {
    metrics_.gauge("cuzk_memory_used_bytes", "Bytes reserved from the memory budget")
        .set(static_cast<double>(budget_.used()));
    metrics_.gauge("cuzk_memory_limit_bytes", "The memory budget").set(static_cast<double>(budget_.limit()));
    metrics_.gauge("cuzk_memory_peak_bytes", "Highest reservation total so far")
        .set(static_cast<double>(budget_.peak_used()));
    metrics_.gauge("cuzk_memory_waiters", "Work waiting for memory").set(static_cast<double>(budget_.waiters()));
    metrics_.gauge("cuzk_process_rss_bytes", "Resident set size of the daemon")
        .set(static_cast<double>(process_rss_bytes()));
    metrics_.gauge("cuzk_uptime_seconds", "Seconds since the engine started")
        .set(std::chrono::duration<double>(Clock::now() - started_at_).count());
    if (gpus_) {
      std::map<int, double> resident;
      for (int d : gpus_->devices()) resident[d] = 0;
      for (const GpuResident& r : gpus_->residents()) resident[r.device] += static_cast<double>(r.bytes);
      for (const auto& [d, bytes] : resident) {
        metrics_
            .gauge("cuzk_gpu_resident_bytes", "Device memory held by resident provers (bases, PCE, buffers)",
                   {{"device", std::to_string(d)}})
            .set(bytes);
      }
    }
    auto depth = [&](const char* stage, const std::map<int, size_t>& counts) {
      for (int p = 1; p <= 4; ++p) {
        auto it = counts.find(p);
        metrics_
            .gauge("cuzk_queue_depth", "Items waiting per stage and priority",
                   {{"stage", stage}, {"priority", priority_name(static_cast<Priority>(p))}})
            .set(it == counts.end() ? 0.0 : static_cast<double>(it->second));
      }
    };
    depth("scheduler", admit_q_.count_by_priority());
    depth("synthesis", synth_q_.count_by_priority());
    depth("prove", prove_q_.count_by_priority());
    depth("finalize", finalize_q_.count_by_priority());
    std::lock_guard lock(mu_);
    metrics_.gauge("cuzk_running_jobs", "Jobs submitted and not finished").set(static_cast<double>(unfinished_));
    const auto now = Clock::now();
    for (const auto& w : workers_) {
      metrics_.gauge("cuzk_worker_busy_seconds", "Busy time per worker since start", {{"worker", w->name}})
          .set(busy_seconds_locked(*w, now));
    }
  });
}

std::string Engine::metrics_text() {
  return metrics_.render();
}

}  // namespace cuzk::engine
