#pragma once
// A small Prometheus registry: counters, gauges and histograms, keyed by (name, labels), rendered in
// the text exposition format 0.0.4 for HTTP GET /metrics. Updates are lock-free (atomics); only
// looking a metric up takes the registry's lock, so hot paths look theirs up once and keep the
// reference (references stay valid for the registry's lifetime).
//
// Names and label names are fixed in code, so an invalid one (or one name used with two types) is
// a programming error: those calls throw std::invalid_argument.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::engine {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  // Counters only go up: a negative v is ignored (and asserts in debug builds).
  void inc(double v = 1);
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0};
};

class Gauge {
 public:
  void set(double v) { v_.store(v, std::memory_order_relaxed); }
  void add(double v) { v_.fetch_add(v, std::memory_order_relaxed); }
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0};
};

class Histogram {
 public:
  // `bounds`: finite, strictly increasing upper bounds; +Inf is implicit (a trailing +Inf is dropped).
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);  // seconds, for latencies

  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts per bound, then the +Inf bucket (== the count): bounds().size() + 1 values.
  std::vector<uint64_t> cumulative_counts() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::vector<std::atomic<uint64_t>> buckets_;  // per bucket (not cumulative); last: above every bound
  std::atomic<double> sum_{0};
};

// 5 ms to 10 min, roughly x2.5 per step: a partition's stages span milliseconds to minutes.
std::vector<double> default_latency_buckets();

class Metrics {
 public:
  Metrics() = default;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // The same (name, labels) — label order does not matter — returns the same object; `help` is
  // taken from the family's first registration.
  Counter& counter(const std::string& name, const std::string& help, const MetricLabels& labels = {});
  Gauge& gauge(const std::string& name, const std::string& help, const MetricLabels& labels = {});
  // `bounds` are used when the series is created (default_latency_buckets() if empty).
  Histogram& histogram(const std::string& name, const std::string& help, const MetricLabels& labels = {},
                       const std::vector<double>& bounds = {});

  // Adds a function that render() calls first, without the registry's lock, to refresh values
  // that are sampled rather than counted (queue depths, memory in use). It may call counter(),
  // gauge() and histogram(), and must outlive the registry's last render().
  void add_collector(std::function<void()> fn);

  // Runs the collectors, then renders every family sorted by name and every series sorted by its
  // labels (sorted by name): Prometheus text format 0.0.4.
  std::string render() const;

 private:
  enum class Type { Counter, Gauge, Histogram };
  struct Series {
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
  };
  struct Family {
    Type type;
    std::string help;
    std::map<std::string, Series> series;  // key: the rendered label pairs, `a="x",b="y"`
  };

  // Finds or adds the series (validating names); the caller holds mu_.
  Series& series_locked(const std::string& name, const std::string& help, const MetricLabels& labels, Type type);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
  mutable std::mutex collectors_mu_;
  std::vector<std::function<void()>> collectors_;
};

}  // namespace cuzk::engine
