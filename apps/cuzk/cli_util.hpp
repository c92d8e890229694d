#pragma once
// Small helpers the `cuzk` subcommands share.
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "util/result.hpp"

namespace cuzk::cli {

using Clock = std::chrono::steady_clock;

// Usage problems (exit 2) and failures (exit 1) are told apart by type.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// User + system CPU seconds of the whole process (all threads) so far.
inline double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// The value, or a std::runtime_error carrying the error message.
// A whole file; a std::runtime_error naming the path when it cannot be opened.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
T must(Result<T> r) {
  if (!r) throw std::runtime_error(r.error());
  return std::move(r).value();
}

}  // namespace cuzk::cli
