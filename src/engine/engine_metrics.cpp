#include "engine/engine_metrics.hpp"

#include <stdexcept>

namespace cuzk::engine {

namespace {

constexpr const char* kStageHelp = "Time per partition and stage";

}  // namespace

EngineMetrics::EngineMetrics(Metrics& m)
    : queue_wait(m.histogram("cuzk_queue_wait_seconds", "Submit to first synthesis, per job")),
      prover_wait(m.histogram("cuzk_prover_wait_seconds",
                              "Per partition: from the end of its synthesis to the start of its device stage "
                              "(waiting for a prover, and on a GPU for the other witness's kernels)")),
      device_errors(m.counter("cuzk_device_errors_total", "Device stages that failed on a GPU (each is retried once)")),
      device_retries(m.counter("cuzk_device_retries_total",
                               "Device stages run again after a device error: on the next GPU, else on the CPU "
                               "(where they ran: cuzk_partitions_proved_total)")),
      gpu_memory_short_retries(
          m.counter("cuzk_gpu_memory_short_retries_total",
                    "Device stages proved again by a smaller prover (the next rung of the fit ladder) after a "
                    "GPU ran out of memory mid-proof")),
      completed_total(m.counter("cuzk_proofs_completed_total", "Proofs completed since start")),
      failed_total(m.counter("cuzk_proofs_failed_total", "Proofs failed since start")),
      srs_load(m.histogram("cuzk_srs_load_seconds",
                           "Keys loaded (a .params file read, or TEST-ONLY keys made): seconds per successful load")),
      srs_load_failures(m.counter("cuzk_srs_load_failures_total", "Key loads that failed or were cancelled")),
      memory_used(m.gauge("cuzk_memory_used_bytes", "Bytes reserved from the memory budget")),
      memory_limit(m.gauge("cuzk_memory_limit_bytes", "The memory budget")),
      memory_peak(m.gauge("cuzk_memory_peak_bytes", "Highest reservation total so far")),
      memory_waiters(m.gauge("cuzk_memory_waiters", "Work waiting for memory")),
      rss(m.gauge("cuzk_process_rss_bytes", "Resident set size of the daemon")),
      peak_rss(m.gauge("cuzk_process_peak_rss_bytes", "Highest resident set size of the daemon so far")),
      uptime(m.gauge("cuzk_uptime_seconds", "Seconds since the engine started")),
      running_jobs(m.gauge("cuzk_running_jobs", "Jobs submitted and not finished")),
      registry_(m),
      memory_waits_(m.counter("cuzk_memory_waits_total",
                              "Memory reservations that had to wait for room in the budget (behind others or for "
                              "eviction)")) {
  for (const char* stage : {"synthesis", "prove", "finalize", "verify"}) {
    stage_seconds_[stage] = &m.histogram("cuzk_stage_seconds", kStageHelp, {{"stage", stage}});
  }
  for (const char* part : {"upload", "matvec", "h", "msm_g1", "msm_g2"}) {
    device_part_[part] = &m.histogram("cuzk_device_part_seconds",
                                      "Per partition: the device stage's parts where they ran (upload: the witness "
                                      "to the device, host time; matvec; h; msm_g1; msm_g2, beside the G1 MSMs on a "
                                      "GPU)",
                                      {{"part", part}});
  }
  for (const char* source : {"file", "extract"}) {
    pce_load_[source] = &m.histogram("cuzk_pce_load_seconds",
                                     "PCEs loaded: a cached .pce file opened (file) or extracted from the circuit "
                                     "(extract), seconds per successful load",
                                     {{"source", source}});
    pce_load_failures_[source] =
        &m.counter("cuzk_pce_load_failures_total", "PCE loads that failed, by source", {{"source", source}});
  }
  for (SynthesisPath p : {SynthesisPath::Pce, SynthesisPath::FullSynthesis, SynthesisPath::Zkey}) {
    synthesized_.at(static_cast<size_t>(p)) =
        &m.counter("cuzk_partitions_synthesized_total", "Partitions synthesized, by path", {{"path", path_name(p)}});
  }
  for (ProofKind k : {ProofKind::Generic, ProofKind::PorepSealCommit, ProofKind::SnapDealsUpdate,
                      ProofKind::WindowPostPartition, ProofKind::WinningPost}) {
    const MetricLabels l = {{"proof_kind", kind_name(k)}};
    kinds_[k] = PerKind{&m.counter("cuzk_proofs_completed", "Proofs completed, by kind", l),
                        &m.counter("cuzk_proofs_failed", "Proofs failed, by kind", l),
                        &m.counter("cuzk_proofs_cancelled", "Proofs cancelled, by kind", l),
                        &m.histogram("cuzk_proof_duration_seconds", "Submit-to-result time of completed proofs", l)};
  }
  for (auto what : {RequestIds::Decision::Join, RequestIds::Decision::NewContent, RequestIds::Decision::Rerun}) {
    reuse_[what] = &m.counter("cuzk_request_id_reuse_total",
                              "Requests under a request_id that already named a job: joined (an equal request's "
                              "job), new_content (another proof under the same id), rerun (the equal request's job "
                              "had failed or been cancelled)",
                              {{"outcome", decision_name(what)}});
  }
  for (size_t s = 0; s < kQueuedStages.size(); ++s) {
    for (int p = 1; p <= 4; ++p) {
      depth_[s][p - 1] =
          &m.gauge("cuzk_queue_depth", "Items waiting per stage and priority",
                   {{"stage", stage_name(kQueuedStages[s])}, {"priority", priority_name(static_cast<Priority>(p))}});
    }
  }
}

void EngineMetrics::add_devices(const std::vector<int>& devices) {
  auto add = [&](const std::string& backend) {
    proved_[backend] = &registry_.counter("cuzk_partitions_proved_total", "Device stages completed, by where they ran",
                                          {{"backend", backend}});
  };
  auto add_busy = [&](const std::string& backend) {
    prover_busy_[backend] =
        &registry_.counter("cuzk_prover_busy_seconds_total",
                           "Seconds during which at least one prover worker of this GPU (without GPUs: of the CPU) "
                           "ran a device stage; its rate is the device's busy fraction",
                           {{"backend", backend}});
  };
  add("cpu");
  if (devices.empty()) add_busy("cpu");
  for (int d : devices) {
    add("gpu:" + std::to_string(d));
    add_busy("gpu:" + std::to_string(d));
    resident_[d] =
        &registry_.gauge("cuzk_gpu_resident_bytes", "Device memory held by resident provers (bases, PCE, buffers)",
                         {{"device", std::to_string(d)}});
  }
}

Counter& EngineMetrics::request_reuse(RequestIds::Decision::What what) const {
  return *reuse_.at(what);
}

Histogram& EngineMetrics::stage_seconds(const char* stage) {
  return *stage_seconds_.at(stage);
}

Counter& EngineMetrics::proved(const std::string& backend) {
  auto it = proved_.find(backend);
  if (it != proved_.end()) return *it->second;
  // A backend that names itself otherwise: correct, only slower (the registry's lookup).
  return registry_.counter("cuzk_partitions_proved_total", "Device stages completed, by where they ran",
                           {{"backend", backend}});
}

const EngineMetrics::PerKind& EngineMetrics::kind(ProofKind k) const {
  auto it = kinds_.find(k);
  if (it == kinds_.end()) throw std::logic_error(std::string("no metrics for proof kind ") + kind_name(k));
  return it->second;
}

Gauge& EngineMetrics::worker_busy(const std::string& worker) {
  return registry_.gauge("cuzk_worker_busy_seconds", "Busy time per worker since start", {{"worker", worker}});
}

namespace {

// Raises a counter to a sampled total; the caller serializes the calls.
void raise_to(Counter& c, double total) {
  if (total > c.value()) c.inc(total - c.value());
}

}  // namespace

void EngineMetrics::publish_memory_waits(uint64_t total) {
  std::lock_guard lock(sampled_mu_);
  raise_to(memory_waits_, static_cast<double>(total));
}

void EngineMetrics::publish_prover_busy(const std::string& backend, double seconds) {
  auto it = prover_busy_.find(backend);
  if (it == prover_busy_.end()) return;
  std::lock_guard lock(sampled_mu_);
  raise_to(*it->second, seconds);
}

}  // namespace cuzk::engine
