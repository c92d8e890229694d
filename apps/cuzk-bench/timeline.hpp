#pragma once
// --timeline FILE: a CSV log of a batch, one line per event,
//   t_ms,event,proof_index,job_id,detail
// t_ms counts from the batch's start. Events: submit, complete, fail (an RPC error, a status other
// than COMPLETED, or a proof that does not verify: a proof may then have complete and fail),
// cancelled, partition (one per partition of a completed proof, at its synthesis start; detail:
// its stages in ms, see PartitionSpan) and status (a GetStatus sample; detail
// prover_busy=<s>;queued=<n>;running=<n>). Thread-safe; each line is written whole.
//
// With keep_spans() the partitions and completions are also kept for --timeline-svg
// (timeline_svg.hpp), with or without the CSV file.
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "batch_report.hpp"
#include "util/result.hpp"

namespace cuzk::bench {

// One partition of a completed proof as the daemon timed it, on the batch's clock.
struct PartitionSpan {
  uint64_t proof = 0;  // the proof's index in the batch
  std::string job_id;
  uint32_t index = 0;   // the partition
  std::string backend;  // where its device stage ran: "gpu:0", "cpu"
  double start_ms = 0;  // its synthesis start, ms since the batch's start
  // Consecutive from start_ms: synthesis, the wait for a prover (and, on a GPU with two witness
  // slots, for the other witness's kernels), the device stage, the wait for a finalize worker,
  // finalize.
  double synthesis_ms = 0, prover_wait_ms = 0, prove_ms = 0, finalize_wait_ms = 0, finalize_ms = 0;
  // The device stage's parts: the witness's upload (host time), MatVec, H, the G1 MSMs, the G2 MSM
  // (beside the G1 MSMs on a GPU).
  double upload_ms = 0, matvec_ms = 0, h_ms = 0, msm_g1_ms = 0, msm_g2_ms = 0;

  double end_ms() const { return start_ms + synthesis_ms + prover_wait_ms + prove_ms + finalize_wait_ms + finalize_ms; }
};

// A proof's answer, COMPLETED, on the batch's clock.
struct Completion {
  uint64_t proof = 0;
  std::string job_id;
  double t_ms = 0;
};

class Timeline {
 public:
  Timeline() = default;  // disabled: every call is a no-op
  // Creates (truncates) the file and writes the header line.
  static Result<bool> open(Timeline& t, const std::string& path);
  // Keeps the partitions and completions in memory too (for the SVG picture).
  void keep_spans() { keep_ = true; }

  bool enabled() const { return out_.is_open() || keep_; }
  // proof_index: nullopt for status samples.
  void event(double t_ms, const char* event, std::optional<uint64_t> proof_index, const std::string& job_id,
             const std::string& detail);
  // A "complete" event, kept with keep_spans().
  void complete(const Completion& c, const std::string& detail);
  // A "partition" event, kept with keep_spans().
  void partition(const PartitionSpan& s);
  // Flushes and reports a write error (a full disk).
  Result<bool> close();

  std::vector<PartitionSpan> spans() const;
  std::vector<Completion> completions() const;

 private:
  mutable std::mutex mu_;
  std::ofstream out_;
  std::string path_;
  bool keep_ = false;
  std::vector<PartitionSpan> spans_;
  std::vector<Completion> completions_;
};

// The events of one proof's answer: complete (with each partition), cancelled, or fail.
void log_answer(Timeline& timeline, const ProofRecord& r);

// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);

}  // namespace cuzk::bench
