#pragma once
// Small helpers shared by test binaries: long-lived thread pools of a given size, reading JSON
// fixtures (decimal field elements, as snarkjs writes them), and private temporary directories.
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>

#include "ff/bls12_381.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {

// Lower-case hex of a byte string (digests in known-answer tests).
inline std::string hex(std::span<const uint8_t> b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s += kDigits[x >> 4];
    s += kDigits[x & 15];
  }
  return s;
}

// A private directory under the system's temp directory (mkdtemp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "cuzk-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // Writes `text` to path()/name (creating subdirectories) and returns the file's path.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

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
