#pragma once
// Samples GetStatus in a background thread during a batch (every 100 ms by default): the prover
// workers' busy seconds and the queue depths, from which the batch reports prover utilization.
//
// Utilization over a window [t0, t1] of the batch:
//   (sum of busy_seconds of the workers named "prover*" at b  -  the same at a) / ((t_b - t_a) * P)
// where a is the first sample at or after t0, b the last at or before t1 and P the number of
// prover workers. The daemon's busy_seconds grow while a worker is busy (not only when a job ends),
// so the estimate is good to about the sampling interval over the window.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client.hpp"

namespace cuzk::bench {

struct StatusSample {
  double t_s = 0;            // since the batch's start
  double prover_busy_s = 0;  // summed over the prover workers
  unsigned provers = 0;      // workers named "prover*"
  uint64_t queued = 0;       // summed "pending" over every queue
  uint64_t running = 0;      // summed "in_progress"
  uint64_t rss_bytes = 0;
  uint64_t peak_rss_bytes = 0;
  uint64_t memory_used_bytes = 0;  // reserved from the daemon's memory budget
  uint64_t memory_limit_bytes = 0;
  uint64_t memory_waits = 0;  // since the daemon started
};

StatusSample summarize(const v1::GetStatusResponse& status, double t_s);

class StatusSampler {
 public:
  using Clock = std::chrono::steady_clock;
  // `on_sample` (may be empty) is called from the sampler thread.
  StatusSampler(Client& client, Clock::time_point start, std::chrono::milliseconds interval,
                std::function<void(const StatusSample&)> on_sample);
  ~StatusSampler();  // stops the thread
  StatusSampler(const StatusSampler&) = delete;
  StatusSampler& operator=(const StatusSampler&) = delete;

  // One synchronous sample now (the batch takes one just before the first submission and one
  // right after the last answer). False when GetStatus failed.
  bool sample_now();
  void stop();

  std::vector<StatusSample> samples() const;
  uint64_t errors() const { return errors_.load(); }
  std::string last_error() const;

 private:
  void loop();

  Client& client_;
  Clock::time_point start_;
  std::chrono::milliseconds interval_;
  std::function<void(const StatusSample&)> on_sample_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<StatusSample> samples_;
  std::atomic<uint64_t> errors_{0};
  std::string last_error_;
  std::thread thread_;
};

// Utilization of the provers between t0 and t1 (seconds since the start), from the samples
// (sorted by time). nullopt when there are no prover workers or fewer than two samples with time
// between them in the window (at least min_window_s apart).
std::optional<double> prover_utilization(const std::vector<StatusSample>& samples, double t0, double t1,
                                         double min_window_s = 0.2);

}  // namespace cuzk::bench
