#pragma once
// Small helpers the `cuzk` subcommands share.
#include <chrono>
#include <stdexcept>
#include <utility>

#include "util/result.hpp"

namespace cuzk::cli {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The value, or a std::runtime_error carrying the error message.
template <class T>
T must(Result<T> r) {
  if (!r) throw std::runtime_error(r.error());
  return std::move(r).value();
}

}  // namespace cuzk::cli
