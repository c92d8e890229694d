#pragma once
// The engine's metrics, looked up once: the events update held handles, never a registry lookup
// by name (metrics.hpp: lookups take the registry's lock).
#include <array>
#include <atomic>
#include <map>
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

  // Sampled by the collector.
  Gauge& memory_used;
  Gauge& memory_limit;
  Gauge& memory_peak;
  Gauge& memory_waiters;
  Gauge& rss;
  Gauge& uptime;
  Gauge& running_jobs;
  Gauge& queue_depth(size_t stage, Priority p) { return *depth_.at(stage).at(static_cast<size_t>(p) - 1); }
  Gauge* resident(int device) {  // null for a device add_devices was not given
    auto it = resident_.find(device);
    return it == resident_.end() ? nullptr : it->second;
  }
  Gauge& worker_busy(const std::string& worker);

 private:
  Metrics& registry_;
  std::map<std::string, Histogram*> stage_seconds_;
  std::array<Counter*, 3> synthesized_{};
  std::map<std::string, Counter*> proved_;  // filled at start, read-only after
  std::map<ProofKind, PerKind> kinds_;
  std::array<std::array<Gauge*, 4>, kQueuedStages.size()> depth_{};
  std::map<int, Gauge*> resident_;
  std::map<RequestIds::Decision::What, Counter*> reuse_;
};

}  // namespace cuzk::engine
