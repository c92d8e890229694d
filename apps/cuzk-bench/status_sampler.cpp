#include "status_sampler.hpp"

#include <algorithm>

namespace cuzk::bench {

StatusSample summarize(const v1::GetStatusResponse& status, double t_s) {
  StatusSample s;
  s.t_s = t_s;
  for (const auto& w : status.workers()) {
    // The deadline workers idle unless a CRITICAL proof comes: they would halve the utilization.
    if (w.name().starts_with("prover") && w.name().find("-deadline-") == std::string::npos) {
      s.prover_busy_s += w.busy_seconds();
      ++s.provers;
    }
  }
  // Partitions per stage (queues() counts jobs).
  for (const auto& q : status.stage_queues()) {
    s.queued += q.pending();
    s.running += q.in_progress();
  }
  s.rss_bytes = status.daemon_rss_bytes();
  s.peak_rss_bytes = status.daemon_peak_rss_bytes();
  s.memory_used_bytes = status.memory_used_bytes();
  s.memory_limit_bytes = status.memory_limit_bytes();
  s.memory_waits = status.memory_waits();
  return s;
}

StatusSampler::StatusSampler(Client& client, Clock::time_point start, std::chrono::milliseconds interval,
                             std::function<void(const StatusSample&)> on_sample)
    : client_(client), start_(start), interval_(interval), on_sample_(std::move(on_sample)) {
  thread_ = std::thread([this] { loop(); });
}

StatusSampler::~StatusSampler() {
  stop();
}

void StatusSampler::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool StatusSampler::sample_now() {
  // A short deadline: a sample that comes late is worth less than a missing one.
  auto st = client_.get_status(std::max(interval_ * 10, std::chrono::milliseconds(1000)));
  const double t = std::chrono::duration<double>(Clock::now() - start_).count();
  if (!st) {
    ++errors_;
    std::lock_guard lock(mu_);
    last_error_ = st.error();
    return false;
  }
  const StatusSample s = summarize(*st, t);
  {
    std::lock_guard lock(mu_);
    // The synchronous samples and the thread's may finish out of order: insert in time order.
    const auto at = std::upper_bound(samples_.begin(), samples_.end(), s.t_s,
                                     [](double t, const StatusSample& x) { return t < x.t_s; });
    samples_.insert(at, s);
  }
  if (on_sample_) on_sample_(s);
  return true;
}

void StatusSampler::loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (cv_.wait_for(lock, interval_, [&] { return stop_; })) break;
    lock.unlock();
    sample_now();
    lock.lock();
  }
}

std::vector<StatusSample> StatusSampler::samples() const {
  std::lock_guard lock(mu_);
  return samples_;
}

std::string StatusSampler::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

std::optional<double> prover_utilization(const std::vector<StatusSample>& samples, double t0, double t1,
                                         double min_window_s) {
  const StatusSample* a = nullptr;
  const StatusSample* b = nullptr;
  for (const auto& s : samples) {
    if (s.t_s >= t0 && a == nullptr) a = &s;
    if (s.t_s <= t1) b = &s;
  }
  if (a == nullptr || b == nullptr || b->t_s - a->t_s < min_window_s) return std::nullopt;
  if (a->provers == 0 || a->provers != b->provers) return std::nullopt;
  return (b->prover_busy_s - a->prover_busy_s) / ((b->t_s - a->t_s) * a->provers);
}

}  // namespace cuzk::bench
