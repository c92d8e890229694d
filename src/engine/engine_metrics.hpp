#pragma once
// The engine's metrics, looked up once: the events update held handles, never a registry lookup
// by name (metrics.hpp: lookups take the registry's lock).
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/engine_api.hpp"
#include "engine/metrics.hpp"
#include "engine/partition_work.hpp"
#include "engine/pipeline.hpp"
#include "engine/request_ids.hpp"

namespace cuzk::engine {

class EngineMetrics {
 public:
  explicit EngineMetrics(Metrics& registry);

  // Made once the devices are known (start): the device-stage counters and resident gauges of
  // "cpu" and each "gpu:N".
  void add_devices(const std::vector<int>& devices);

  Histogram& queue_wait;  // submit to first synthesis, per job
  Histogram& stage_seconds(const char* stage);
  // Per partition, from the end of its synthesis to the start of its device stage: waiting for a
  // prover and, on a GPU with two witness slots, for the other witness's kernels.
  Histogram& prover_wait;
  // The device stage's parts ("upload", "matvec", "h", "msm_g1", "msm_g2"): each observed when
  // it ran (a CPU device stage has no upload).
  Histogram& device_part(const char* part) { return *device_part_.at(part); }
  Counter& synthesized(SynthesisPath path) { return *synthesized_.at(static_cast<size_t>(path)); }
  Counter& device_errors;
  Counter& device_retries;
  // Stages proved again by a smaller prover after a GPU ran short of memory mid-proof (sampled
  // from the placement by the collector: gpu_short_seen is the count already added).
  Counter& gpu_memory_short_retries;
  std::atomic<uint64_t> gpu_short_seen{0};
  // By where the device stage ran; a backend name not made by add_devices is looked up once more.
  Counter& proved(const std::string& backend);

  struct PerKind {
    Counter* completed;
    Counter* failed;
    Counter* cancelled;
    Histogram* duration;
  };
  const PerKind& kind(ProofKind k) const;
  // Requests under a known request_id: joined an equal request's job, or a new job (other content,
  // or an equal request whose job failed or was cancelled).
  Counter& request_reuse(RequestIds::Decision::What what) const;
  Counter& completed_total;
  Counter& failed_total;

  // Key loads (a .params file read, or test-only keys made) and PCE loads by source ("file": a
  // cached .pce opened; "extract": extracted from the circuit): the seconds of each that
  // succeeded, and the ones that failed.
  Histogram& srs_load;
  Counter& srs_load_failures;
  Histogram& pce_load(const char* source) { return *pce_load_.at(source); }
  Counter& pce_load_failures(const char* source) { return *pce_load_failures_.at(source); }

  // Sampled by the collector.
  Gauge& memory_used;
  Gauge& memory_limit;
  Gauge& memory_peak;
  Gauge& memory_waiters;
  Gauge& rss;
  Gauge& peak_rss;
  Gauge& uptime;
  Gauge& running_jobs;
  Gauge& queue_depth(size_t stage, Priority p) { return *depth_.at(stage).at(static_cast<size_t>(p) - 1); }
  Gauge* resident(int device) {  // null for a device add_devices was not given
    auto it = resident_.find(device);
    return it == resident_.end() ? nullptr : it->second;
  }
  Gauge& worker_busy(const std::string& worker);
  // Sampled totals published as counters (which only go up): the memory budget's waits, and the
  // seconds during which a prover lane ("gpu:N", or "cpu" without GPUs) ran at least one device
  // stage. A lane add_devices did not name is ignored.
  void publish_memory_waits(uint64_t total);
  void publish_prover_busy(const std::string& backend, double seconds);

 private:
  Metrics& registry_;
  std::map<std::string, Histogram*> stage_seconds_;
  std::array<Counter*, 3> synthesized_{};
  std::map<std::string, Counter*> proved_;  // filled at start, read-only after
  std::map<ProofKind, PerKind> kinds_;
  std::array<std::array<Gauge*, 4>, kQueuedStages.size()> depth_{};
  std::map<int, Gauge*> resident_;
  std::map<RequestIds::Decision::What, Counter*> reuse_;
  std::map<std::string, Histogram*> device_part_;
  std::map<std::string, Histogram*> pce_load_;
  std::map<std::string, Counter*> pce_load_failures_;
  std::map<std::string, Counter*> prover_busy_;  // filled at start, read-only after
  Counter& memory_waits_;
  std::mutex sampled_mu_;  // publish_*: a counter raised to a sampled total by concurrent renders
};

}  // namespace cuzk::engine
