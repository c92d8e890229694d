#pragma once
// --timeline FILE: a CSV log of a batch, one line per event,
//   t_ms,event,proof_index,job_id,detail
// t_ms counts from the batch's start. Events: submit, complete, fail (an RPC error, a status other
// than COMPLETED, or a proof that does not verify: a proof may then have complete and fail), and
// status (a GetStatus sample; detail prover_busy=<s>;queued=<n>;running=<n>). Thread-safe; each line
// is written whole.
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>

#include "util/result.hpp"

namespace cuzk::bench {

class Timeline {
 public:
  Timeline() = default;  // disabled: every call is a no-op
  // Creates (truncates) the file and writes the header line.
  static Result<bool> open(Timeline& t, const std::string& path);

  bool enabled() const { return out_.is_open(); }
  // proof_index: nullopt for status samples.
  void event(double t_ms, const char* event, std::optional<uint64_t> proof_index, const std::string& job_id,
             const std::string& detail);
  // Flushes and reports a write error (a full disk).
  Result<bool> close();

 private:
  std::mutex mu_;
  std::ofstream out_;
  std::string path_;
};

// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);

}  // namespace cuzk::bench
