#pragma once
// Seconds between laps on the steady clock, for per-stage timings.
#include <chrono>

namespace cuzk {

class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  // Seconds since construction or the previous lap.
  double lap() {
    const auto t = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t - t0_).count();
    t0_ = t;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace cuzk
