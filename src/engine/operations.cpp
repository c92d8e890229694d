#include "engine/operations.hpp"

#include <cstdio>
#include <utility>

#include "util/log.hpp"

namespace cuzk::engine {

namespace {

double seconds_between(Operations::Clock::time_point a, Operations::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string fixed(double v, const char* fmt) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

Operations::Handle& Operations::Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    end();
    ops_ = std::exchange(o.ops_, nullptr);
    id_ = o.id_;
    exceptions_ = o.exceptions_;
  }
  return *this;
}

void Operations::Handle::progress(uint64_t done, uint64_t total) {
  if (ops_) ops_->update(id_, done, total);
}

void Operations::Handle::fail(const std::string& error) {
  if (ops_) ops_->set_error(id_, error);
}

void Operations::Handle::end() {
  if (ops_) std::exchange(ops_, nullptr)->finish(id_);
}

Operations::Handle Operations::start(std::string what, std::string circuit_id, std::string unit) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    Entry& e = running_[id];
    e.info.what = std::move(what);
    e.info.circuit_id = std::move(circuit_id);
    e.info.unit = std::move(unit);
    e.started = e.last_log = Clock::now();
    logging::log_event(logging::Level::info, "operation_start",
                       {{"what", e.info.what}, {"circuit", e.info.circuit_id}});
  }
  return Handle(this, id);
}

void Operations::update(uint64_t id, uint64_t done, uint64_t total) {
  OperationInfo seen;
  {
    std::lock_guard lock(mu_);
    auto it = running_.find(id);
    if (it == running_.end()) return;
    Entry& e = it->second;
    e.info.done = done;
    e.info.total = total;
    if (observer_) seen = e.info;
    maybe_log(e);
  }
  if (observer_) observer_(seen);
}

void Operations::maybe_log(Entry& e) {
  const uint64_t done = e.info.done, total = e.info.total;
  const auto now = Clock::now();
  if (now - e.last_log < log_interval_) return;
  // The rate limit is per operation, so a quick one logs no progress line at all.
  e.last_log = now;
  const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  logging::log_event(logging::Level::info, "operation_progress",
                     {{"what", e.info.what},
                      {"circuit", e.info.circuit_id},
                      {"done", std::to_string(done)},
                      {"total", std::to_string(total)},
                      {"unit", e.info.unit},
                      {"percent", fixed(100.0 * fraction, "%.1f")},
                      {"seconds", fixed(seconds_between(e.started, now), "%.1f")}});
}

void Operations::set_error(uint64_t id, const std::string& error) {
  std::lock_guard lock(mu_);
  // The first reason stays (a caller's message before the destructor's "ended by an exception").
  if (auto it = running_.find(id); it != running_.end() && it->second.error.empty()) it->second.error = error;
}

void Operations::finish(uint64_t id) {
  std::lock_guard lock(mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return;
  const Entry& e = it->second;
  const std::string seconds = fixed(seconds_between(e.started, Clock::now()), "%.3f");
  if (e.error.empty()) {
    logging::log_event(logging::Level::info, "operation_end",
                       {{"what", e.info.what}, {"circuit", e.info.circuit_id}, {"seconds", seconds}});
  } else {
    logging::log_event(
        logging::Level::warn, "operation_failed",
        {{"what", e.info.what}, {"circuit", e.info.circuit_id}, {"seconds", seconds}, {"error", e.error}});
  }
  running_.erase(it);
}

std::vector<OperationInfo> Operations::snapshot() const {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  std::vector<OperationInfo> out;
  out.reserve(running_.size());
  for (const auto& [id, e] : running_) {
    OperationInfo info = e.info;
    info.fraction = info.total ? static_cast<double>(info.done) / static_cast<double>(info.total) : 0.0;
    info.elapsed_seconds = seconds_between(e.started, now);
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace cuzk::engine
