#pragma once
// Small helpers shared by test binaries: long-lived thread pools of a given size, and reading
// JSON fixtures (decimal field elements, as snarkjs writes them).
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ff/bls12_381.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {

// A pool of N threads kept for the whole test binary (thread-count independence tests).
template <unsigned N>
ThreadPool& pool() {
  static ThreadPool p(N);
  return p;
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}
inline ff::Fq fq(const nlohmann::json& j) {
  return ff::Fq::from_decimal(j.get<std::string>()).value();
}
inline ff::Fr fr(const nlohmann::json& j) {
  return ff::Fr::from_decimal(j.get<std::string>()).value();
}

}  // namespace cuzk::test
