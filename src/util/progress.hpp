#pragma once
// A one-line progress bar on stderr for long steps (extract, save, load, verify). Drawn only when
// stderr is a terminal, at most ~10 times a second; update() may be called from any thread.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace cuzk {

class Progress {
 public:
  // enabled = false draws nothing (e.g. --json or --quiet); a non-terminal stderr draws nothing.
  Progress(std::string label, uint64_t total, bool enabled = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(uint64_t done);
  void add(uint64_t delta) { update(done_.fetch_add(delta, std::memory_order_relaxed) + delta); }
  void set_total(uint64_t total) { total_.store(total, std::memory_order_relaxed); }
  // Erases the bar (called by the destructor too).
  void finish();
  // A callback for APIs that report (done, total).
  auto callback() {
    return [this](uint64_t done, uint64_t total) {
      set_total(total);
      update(done);
    };
  }

 private:
  void draw(uint64_t done);

  std::string label_;
  std::atomic<uint64_t> total_;
  std::atomic<uint64_t> done_{0};
  bool enabled_;
  bool drawn_ = false;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace cuzk
