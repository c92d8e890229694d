// The engine's stages as descriptors for its Pipeline: load (keys, PCE), synthesize, the device
// stage, finalize and verify; and the workers that serve them.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "engine/engine.hpp"
#include "util/thread_pool.hpp"
#include "util/thread_priority.hpp"

namespace cuzk::engine {

namespace {

constexpr uint64_t kFinalizeBytes = 64 << 10;  // what a partition holds after its device stage

}  // namespace

void Engine::build_pipeline(unsigned synth_workers) {
  using W = const StageWorker&;
  using T = Clock::time_point;
  const size_t load = pipeline_.add_stage({
      .id = StageId::Load,
      .queue = &admit_q_,
      .admit = [](WorkItem& i) { return !i.job->dead; },
      .run = [this](WorkItem& i, W) { this->load(i); },
      .done = [this](WorkItem& i, T, double) { return loaded(i); },
  });
  const size_t synth = pipeline_.add_stage({
      .id = StageId::Synthesize,
      .label = "synthesis",
      .queue = &synth_q_,
      .gate = &lookahead_,
      .gate_bypass_priority = static_cast<int>(Priority::Critical),
      .admit = [this](WorkItem& i) { return admit_synthesis(i); },
      .run =
          [this](WorkItem& i, W) {
            // This worker's thread joins the pool's parallel_for calls: it runs at the pool's priority.
            thread_local bool lowered = false;
            if (!std::exchange(lowered, true)) lower_current_thread_priority(static_cast<int>(config_.synthesis.nice));
            // The shared pool serves the most urgent partition's parallel work first.
            const CallPriority urgency(i.job->prio());
            // With GPUs, MatVec runs on the device from its resident PCE.
            i.state = synthesize(*i.rt, std::get<PartitionPayload>(std::move(i.state)), *synth_pool_,
                                 /*matvec=*/!gpus_->enabled());
          },
      .done = [this](WorkItem& i, T t0, double ms) { return synthesized(i, t0, ms); },
      .seconds = &m_.stage_seconds("synthesis"),
  });
  const size_t prove = pipeline_.add_stage({
      .id = StageId::Device,
      .label = "prover",
      .queue = &prove_q_,
      .admit = [this](WorkItem& i) { return admit_device(i); },
      .run = [this](WorkItem& i, W w) { device(i, w.lane); },
      .done = [this](WorkItem& i, T t0, double ms) { return proved(i, t0, ms); },
      .seconds = &m_.stage_seconds("prove"),
  });
  const size_t fin = pipeline_.add_stage({
      .id = StageId::Finalize,
      .label = "finalize",
      .queue = &finalize_q_,
      .admit = [this](WorkItem& i) { return admit_partition(i); },
      .run = [](WorkItem& i,
                W) { i.state = ProofBytes{finalize_stage(*i.rt, std::get<DeviceStageOut>(i.state), nullptr)}; },
      .done = [this](WorkItem& i, T t0, double ms) { return finalized(i, t0, ms); },
      .seconds = &m_.stage_seconds("finalize"),
  });
  // Verification runs on the finalize worker, right after it; users see it as part of finalize
  // (its time in finalize_ms, its errors as finalize's), the metrics as a stage of its own.
  pipeline_.add_stage({
      .id = StageId::Verify,
      .label = "finalize",
      .run = [this](WorkItem& i, W) { verify(i); },
      .done = [this](WorkItem& i, T, double ms) { return verified(i, ms); },
      .seconds = &m_.stage_seconds("verify"),
  });

  auto add = [&](size_t stage, const std::string& name, unsigned lane, int min_priority = 0) {
    pipeline_.add_worker(stage, name, lane, &m_.worker_busy(name), min_priority);
  };
  for (unsigned i = 0; i < 2; ++i) add(load, "loader-" + std::to_string(i), 0);
  for (unsigned i = 0; i < synth_workers; ++i) add(synth, "synth-" + std::to_string(i), i);
  if (gpus_->enabled()) {
    for (size_t slot = 0; slot < gpus_->devices().size(); ++slot) {
      for (unsigned i = 0; i < config_.gpus.workers_per_device; ++i) {
        add(prove, "prover-gpu" + std::to_string(gpus_->devices()[slot]) + "-" + std::to_string(i),
            static_cast<unsigned>(slot));
      }
      for (unsigned i = 0; i < config_.gpus.deadline_workers; ++i) {
        add(prove, "prover-gpu" + std::to_string(gpus_->devices()[slot]) + "-deadline-" + std::to_string(i),
            static_cast<unsigned>(slot), static_cast<int>(Priority::Critical));
      }
    }
  } else {
    for (unsigned i = 0; i < std::max(1u, config_.prover.workers); ++i) add(prove, "prover-" + std::to_string(i), 0);
  }
  for (unsigned i = 0; i < std::max(1u, config_.prover.finalize_workers); ++i) {
    add(fin, "finalize-" + std::to_string(i), 0);
  }
}

// ---- load: keys and PCE, the witnesses' length, one item per partition ----

void Engine::load(WorkItem& item) {
  Job& job = *item.job;
  uint64_t loaded_ms = 0;
  auto srs = srs_.acquire(
      job.def, job.prio(), [&] { return job.dead.load(); }, &loaded_ms);
  if (!srs.ok()) throw std::runtime_error(srs.error());
  PceHandle pce;
  if (!job.def.uses_zkey()) {
    auto p = pce_.get(job.def, /*wait=*/false);
    if (!p.ok()) throw std::runtime_error(p.error());
    pce = *p;
  }
  auto rt = make_runtime(job.def, *srs, pce);
  // Keys of another circuit (a misplaced or renamed .params) are refused before any work.
  if (rt->shape && rt->srs && rt->srs->bellperson()) {
    try {
      groth16::validate_key(rt->srs->key_sizes(), *rt->shape);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error("the keys of circuit '" + job.def.id + "' (" + job.def.params_path + "): " + e.what());
    }
  }
  std::lock_guard lock(mu_);
  job.srs_load_ms = loaded_ms;
  // Witnesses whose length submit could not check (the circuit was not loaded then) are checked now.
  if (auto want = witness_length(*rt); want && job.def.takes_wtns() && !job.witness_length_checked) {
    for (size_t i = 0; i < job.payloads.size(); ++i) {
      std::string why = witness_length_error(i, job.payloads[i].z.size(), *want, job.def.id);
      if (!why.empty()) throw std::runtime_error(why);
    }
    job.witness_length_checked = true;
  }
  item.rt = std::move(rt);
}

std::vector<WorkItem> Engine::loaded(WorkItem& item) {
  const std::shared_ptr<Job>& job = item.job;
  std::vector<PartitionPayload> payloads;
  {
    std::lock_guard lock(mu_);
    if (job->done) return {};
    job->runtime = item.rt;
    payloads = std::move(job->payloads);
    job->payloads.clear();
  }
  std::vector<WorkItem> parts(payloads.size());
  for (uint32_t i = 0; i < payloads.size(); ++i) {
    parts[i].job = job;
    parts[i].index = i;
    parts[i].state = std::move(payloads[i]);
  }
  return parts;
}

// ---- synthesis ----

bool Engine::admit_partition(WorkItem& item) {
  item.rt = runtime_of(*item.job);
  return !item.job->dead && item.rt;
}

bool Engine::admit_synthesis(WorkItem& item) {
  if (!admit_partition(item)) return false;
  Job& job = *item.job;
  // A built-in circuit whose PCE finished extracting after the job was admitted uses it now.
  if (!item.rt->pce && !item.rt->def.uses_zkey()) {
    if (PceHandle p = pce_.peek(item.rt->def.id)) {
      item.rt = make_runtime(item.rt->def, item.rt->srs, p);
      std::lock_guard lock(mu_);  // the job's later partitions reuse it
      if (!job.done) job.runtime = item.rt;
    }
  }
  const CircuitRuntime& rt = *item.rt;
  const uint64_t bytes = partition_bytes(rt, rt.def.builtin.constraints, device_stage_on_gpu(*gpus_, rt));
  auto memory = budget_.acquire(bytes, job.prio(), [&] { return job.dead.load(); });
  if (!memory.ok()) throw StageFailure("partition " + std::to_string(item.index) + ": " + memory.error());
  item.memory = std::move(memory).value();
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  job.running = true;
  ++job.parts_started;
  if (!job.dispatched) {
    job.dispatched = now;
    m_.queue_wait.observe(ms_since(job.submitted, now) / 1000);
  }
  return true;
}

std::vector<WorkItem> Engine::synthesized(WorkItem& item, Clock::time_point t0, double ms) {
  const Synthesized& s = std::get<Synthesized>(item.state);
  m_.synthesized(s.path).inc();
  Job& job = *item.job;
  std::lock_guard lock(mu_);
  job.synth_ms += ms;
  job.publics[item.index] = s.public_inputs;
  PartitionTiming& pt = job.timeline[item.index];
  pt.synthesis_start_ms = ms_since(job.submitted, t0);
  pt.synthesis_ms = ms;
  std::vector<WorkItem> next;
  next.push_back(std::move(item));
  return next;
}

// ---- the device stage ----

bool Engine::admit_device(WorkItem& item) {
  item.slot.reset();  // picked up: no longer ahead of the provers, dead or not
  return admit_partition(item);
}

void Engine::device(WorkItem& item, size_t gpu_slot) {
  const CircuitRuntime& rt = *item.rt;
  Job& job = *item.job;
  // Its host work (the witness into pinned memory; the CPU path's MSMs) shares the global pool
  // with other partitions' device stages: the more urgent goes first.
  const CallPriority urgency(job.prio());
  // A partition admitted for the GPU reserves the CPU path's extra memory before falling back.
  std::optional<Reservation> cpu_extra;
  auto before_cpu = [&] {
    const uint64_t need = partition_bytes(rt, rt.def.builtin.constraints, false);
    if (need <= item.memory.bytes()) return;
    auto r = budget_.acquire(need - item.memory.bytes(), job.prio(), [&] { return job.dead.load(); });
    if (!r.ok()) throw std::runtime_error("memory for the CPU fallback: " + r.error());
    cpu_extra.emplace(std::move(r).value());
  };
  backend::StageReport report;
  groth16::ProveTimings t;
  auto count_failures = [&] {
    m_.device_errors.inc(static_cast<double>(report.failures.size()));
    // The policy retries once after the first device error, whatever the retry's outcome.
    if (!report.failures.empty()) m_.device_retries.inc();
  };
  try {
    Synthesized& s = std::get<Synthesized>(item.state);
    DeviceStageOut out = device_stage_on(*gpus_, gpu_slot, rt, s, ThreadPool::global(), &report, before_cpu, &t);
    // The witness (4.2 GB at 32 GiB) is freed on the reclaimer's thread, its memory reserved until
    // then: not on this stage, which the GPU waits on.
    const uint64_t spare = item.memory.bytes() - std::min(item.memory.bytes(), kFinalizeBytes);
    Reservation witness_memory = item.memory.split(std::min(held_bytes(s), spare));
    reclaimer_.drop(std::move(s), std::move(witness_memory));
    item.state = std::move(out);
  } catch (...) {
    count_failures();
    throw;
  }
  count_failures();
  m_.proved(report.backend).inc();
  for (const auto& [part, seconds] :
       {std::pair{"upload", t.upload_s}, std::pair{"matvec", t.matvec_s}, std::pair{"h", t.h_poly_s},
        std::pair{"msm_g1", t.msm_h_s + t.msm_l_s + t.msm_a_s + t.msm_b_g1_s}, std::pair{"msm_g2", t.msm_b_g2_s}}) {
    if (seconds > 0) m_.device_part(part).observe(seconds);
  }
  std::lock_guard lock(mu_);
  PartitionTiming& pt = job.timeline[item.index];
  pt.backend = report.backend;
  pt.upload_ms = 1e3 * t.upload_s;
  pt.matvec_ms = 1e3 * t.matvec_s;
  pt.h_ms = 1e3 * t.h_poly_s;
  pt.msm_g1_ms = 1e3 * (t.msm_h_s + t.msm_l_s + t.msm_a_s + t.msm_b_g1_s);
  pt.msm_g2_ms = 1e3 * t.msm_b_g2_s;
  pt.device_wait_ms = 1e3 * t.device_wait_s;
}

std::vector<WorkItem> Engine::proved(WorkItem& item, Clock::time_point t0, double ms) {
  // The witness, a, b, c and H are gone: hand most of the reservation back now.
  if (item.memory.bytes() > kFinalizeBytes) item.memory.release(item.memory.bytes() - kFinalizeBytes);
  Job& job = *item.job;
  std::lock_guard lock(mu_);
  PartitionTiming& pt = job.timeline[item.index];
  // The stage's own time: its upload ran while the device finished the other witness (two on a
  // device), then it waited for those kernels: that wait is queueing, not this stage's work.
  const double wait = std::min(pt.device_wait_ms, ms);
  job.prove_ms += ms - wait;
  pt.prove_start_ms = ms_since(job.submitted, t0) + wait;
  pt.prove_ms = ms - wait;
  m_.prover_wait.observe(std::max(0.0, pt.prove_start_ms - pt.synthesis_start_ms - pt.synthesis_ms) / 1000);
  std::vector<WorkItem> next;
  next.push_back(std::move(item));
  return next;
}

// ---- finalize and verify ----

std::vector<WorkItem> Engine::finalized(WorkItem& item, Clock::time_point t0, double ms) {
  Job& job = *item.job;
  std::lock_guard lock(mu_);
  if (job.done) return {};
  job.finalize_ms += ms;
  job.timeline[item.index].finalize_start_ms = ms_since(job.submitted, t0);
  job.timeline[item.index].finalize_ms = ms;
  std::vector<WorkItem> next;
  next.push_back(std::move(item));
  return next;
}

void Engine::verify(WorkItem& item) {
  // Every proof is verified before it is returned: a Filecoin kind's against the inputs a
  // verifier derives (PoRep: from C1 alone), any other against its own witness's public inputs.
  const Job& job = *item.job;
  const std::string& proof = std::get<ProofBytes>(item.state).bytes;
  std::string why;
  if (job.vanilla) {
    why = verify_vanilla_partition(*item.rt, *job.vanilla, item.index, proof);
  } else {
    std::string publics;
    {
      std::lock_guard lock(mu_);
      publics = job.publics[item.index];
    }
    why = verify_partition(*item.rt, publics, proof);
  }
  if (!why.empty()) throw std::runtime_error("proof verification failed: " + why);
}

std::vector<WorkItem> Engine::verified(WorkItem& item, double ms) {
  item.memory.release_all();  // before the job completes: its caller may count the budget at once
  Job& job = *item.job;
  std::lock_guard lock(mu_);
  if (job.done) return {};
  job.finalize_ms += ms;
  job.timeline[item.index].finalize_ms += ms;
  job.proofs[item.index] = std::move(std::get<ProofBytes>(item.state).bytes);
  if (++job.parts_done == job.partitions) finish_job_locked(job, JobStatus::Completed, "");
  return {};
}

}  // namespace cuzk::engine
