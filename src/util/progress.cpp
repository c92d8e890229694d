#include "util/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace cuzk {

Progress::Progress(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled && isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  finish();
}

void Progress::update(uint64_t done) {
  if (!enabled_) return;
  std::unique_lock lock(mu_, std::try_to_lock);  // a busy bar skips a frame rather than wait
  if (!lock.owns_lock()) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  draw(done);
}

void Progress::draw(uint64_t done) {
  const uint64_t total = total_.load(std::memory_order_relaxed);
  const double frac = total == 0 ? 0.0 : static_cast<double>(done) / static_cast<double>(total);
  const int width = 30;
  const int filled = static_cast<int>(frac * width + 0.5);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (total == 0) {  // no measure of progress: the time it has run
    std::fprintf(stderr, "\r%s ... %6.1fs", label_.c_str(), secs);
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  std::string bar(static_cast<size_t>(filled < 0 ? 0 : filled > width ? width : filled), '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r%s [%s] %5.1f%% %6.1fs", label_.c_str(), bar.c_str(), 100.0 * frac, secs);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  std::lock_guard lock(mu_);
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

ProgressTicker::ProgressTicker(Progress& bar) : bar_(bar) {
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) bar_.redraw();
  });
}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace cuzk
