#pragma once
// A one-line progress bar on stderr for long steps (extract, save, load, verify). Drawn only when
// stderr is a terminal, at most ~10 times a second; update() may be called from any thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

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
  // Draws again with the last count (the elapsed time moves on).
  void redraw() { update(done_.load(std::memory_order_relaxed)); }
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

// Redraws a bar every 200 ms from a thread of its own while it lives, so that a step with no
// progress hook (recording or building a circuit: minutes at 32 GiB) still shows it runs, and for
// how long. A bar whose total is 0 shows only the elapsed time.
class ProgressTicker {
 public:
  explicit ProgressTicker(Progress& bar);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  Progress& bar_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk
