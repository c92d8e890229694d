#include "engine/metrics.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace cuzk::engine {

namespace {

// Prometheus values: Go's ParseFloat syntax, with +Inf/-Inf/NaN spelled as the format requires.
std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, res.ptr);
}

bool valid_metric_name(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool valid_label_name(const std::string& s) {
  if (s.empty() || s.rfind("__", 0) == 0) return false;  // "__" names are reserved by Prometheus
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

void escape_into(std::string& out, const std::string& s, bool quotes) {
  for (const char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

const char* type_name(int t) {
  static constexpr const char* kNames[] = {"counter", "gauge", "histogram"};
  return kNames[t];
}

}  // namespace

void Counter::inc(double v) {
  assert(v >= 0 && "counters only go up");
  if (!(v >= 0)) return;  // also drops NaN
  v_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
  if (!bounds_.empty() && std::isinf(bounds_.back()) && bounds_.back() > 0) bounds_.pop_back();
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && !(bounds_[i - 1] < bounds_[i]))) {
      throw std::invalid_argument("histogram bucket bounds must be finite and strictly increasing");
    }
  }
  buckets_ = std::vector<std::atomic<uint64_t>>(bounds_.size() + 1);
}

void Histogram::observe(double v) {
  if (std::isnan(v)) return;  // would poison the sum forever
  // The first bound >= v: Prometheus buckets are "less than or equal" (le).
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::cumulative_counts() const {
  std::vector<uint64_t> out(buckets_.size());
  uint64_t total = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    out[i] = total;
  }
  return out;
}

std::vector<double> default_latency_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300, 600};
}

Metrics::Series& Metrics::series_locked(const std::string& name, const std::string& help, const MetricLabels& labels,
                                        Type type) {
  if (!valid_metric_name(name)) throw std::invalid_argument("invalid Prometheus metric name '" + name + "'");
  MetricLabels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  std::string key;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& [k, v] = sorted[i];
    if (!valid_label_name(k)) throw std::invalid_argument("metric " + name + ": invalid label name '" + k + "'");
    if (i > 0 && sorted[i - 1].first == k) throw std::invalid_argument("metric " + name + ": label '" + k + "' twice");
    if (type == Type::Histogram && k == "le") {
      throw std::invalid_argument("histogram " + name + ": the label 'le' is reserved for buckets");
    }
    if (i > 0) key += ',';
    key += k;
    key += "=\"";
    escape_into(key, v, /*quotes=*/true);
    key += '"';
  }

  auto [fit, inserted] = families_.try_emplace(name, Family{type, help, {}});
  Family& family = fit->second;
  if (!inserted && family.type != type) {
    throw std::invalid_argument("metric " + name + " is already registered as a " +
                                type_name(static_cast<int>(family.type)) + ", not a " +
                                type_name(static_cast<int>(type)));
  }
  return family.series[key];
}

Counter& Metrics::counter(const std::string& name, const std::string& help, const MetricLabels& labels) {
  std::lock_guard lk(mu_);
  Series& s = series_locked(name, help, labels, Type::Counter);
  if (!s.counter) s.counter = std::make_unique<Counter>();
  return *s.counter;
}

Gauge& Metrics::gauge(const std::string& name, const std::string& help, const MetricLabels& labels) {
  std::lock_guard lk(mu_);
  Series& s = series_locked(name, help, labels, Type::Gauge);
  if (!s.gauge) s.gauge = std::make_unique<Gauge>();
  return *s.gauge;
}

Histogram& Metrics::histogram(const std::string& name, const std::string& help, const MetricLabels& labels,
                              const std::vector<double>& bounds) {
  // Built before taking the lock: the constructor validates (and may throw on) the bounds.
  auto fresh = std::make_unique<Histogram>(bounds.empty() ? default_latency_buckets() : bounds);
  std::lock_guard lk(mu_);
  Series& s = series_locked(name, help, labels, Type::Histogram);
  if (!s.histogram) s.histogram = std::move(fresh);
  return *s.histogram;
}

void Metrics::add_collector(std::function<void()> fn) {
  std::lock_guard lk(collectors_mu_);
  collectors_.push_back(std::move(fn));
}

std::string Metrics::render() const {
  std::vector<std::function<void()>> collectors;
  {
    std::lock_guard lk(collectors_mu_);
    collectors = collectors_;
  }
  // Without the registry lock: collectors look metrics up.
  for (const auto& fn : collectors) fn();

  std::string out;
  std::lock_guard lk(mu_);
  for (const auto& [name, family] : families_) {
    out += "# HELP " + name + ' ';
    escape_into(out, family.help, /*quotes=*/false);
    out += "\n# TYPE " + name + ' ' + type_name(static_cast<int>(family.type)) + '\n';
    for (const auto& [labels, s] : family.series) {
      const std::string braced = labels.empty() ? "" : '{' + labels + '}';
      if (s.counter) {
        out += name + braced + ' ' + format_value(s.counter->value()) + '\n';
      } else if (s.gauge) {
        out += name + braced + ' ' + format_value(s.gauge->value()) + '\n';
      } else if (s.histogram) {
        const auto& bounds = s.histogram->bounds();
        const auto counts = s.histogram->cumulative_counts();
        const std::string prefix = name + "_bucket{" + labels + (labels.empty() ? "" : ",") + "le=\"";
        for (size_t i = 0; i < counts.size(); ++i) {
          const std::string le = i < bounds.size() ? format_value(bounds[i]) : "+Inf";
          out += prefix + le + "\"} " + std::to_string(counts[i]) + '\n';
        }
        out += name + "_sum" + braced + ' ' + format_value(s.histogram->sum()) + '\n';
        // The +Inf bucket, so that _count always equals it even while observe() races with us.
        out += name + "_count" + braced + ' ' + std::to_string(counts.back()) + '\n';
      }
    }
  }
  return out;
}

}  // namespace cuzk::engine
