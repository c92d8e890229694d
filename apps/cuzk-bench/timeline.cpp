#include "timeline.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "report.hpp"

namespace cuzk::bench {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

Result<bool> Timeline::open(Timeline& t, const std::string& path) {
  t.out_.open(path, std::ios::out | std::ios::trunc);
  if (!t.out_) return make_error("cannot write the timeline to " + path + ": " + std::strerror(errno));
  t.path_ = path;
  t.out_ << "t_ms,event,proof_index,job_id,detail\n";
  return true;
}

void Timeline::event(double t_ms, const char* event, std::optional<uint64_t> proof_index, const std::string& job_id,
                     const std::string& detail) {
  if (!out_.is_open()) return;
  char t[32];
  std::snprintf(t, sizeof t, "%.1f", t_ms);
  std::string line = std::string(t) + "," + event + "," + (proof_index ? std::to_string(*proof_index) : "") + "," +
                     csv_field(job_id) + "," + csv_field(detail) + "\n";
  std::lock_guard lock(mu_);
  out_ << line;
}

void Timeline::complete(const Completion& c, const std::string& detail) {
  event(c.t_ms, "complete", c.proof, c.job_id, detail);
  if (!keep_) return;
  std::lock_guard lock(mu_);
  completions_.push_back(c);
}

void Timeline::partition(const PartitionSpan& s) {
  event(s.start_ms, "partition", s.proof, s.job_id,
        "index=" + std::to_string(s.index) + ";synthesis_ms=" + fmt_fixed(s.synthesis_ms, 1) +
            ";prover_wait_ms=" + fmt_fixed(s.prover_wait_ms, 1) + ";prove_ms=" + fmt_fixed(s.prove_ms, 1) +
            ";upload_ms=" + fmt_fixed(s.upload_ms, 1) + ";matvec_ms=" + fmt_fixed(s.matvec_ms, 1) +
            ";h_ms=" + fmt_fixed(s.h_ms, 1) + ";msm_g1_ms=" + fmt_fixed(s.msm_g1_ms, 1) +
            ";msm_g2_ms=" + fmt_fixed(s.msm_g2_ms, 1) + ";finalize_wait_ms=" + fmt_fixed(s.finalize_wait_ms, 1) +
            ";finalize_ms=" + fmt_fixed(s.finalize_ms, 1) + ";backend=" + s.backend);
  if (!keep_) return;
  std::lock_guard lock(mu_);
  spans_.push_back(s);
}

Result<bool> Timeline::close() {
  std::lock_guard lock(mu_);
  if (!out_.is_open()) return true;
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) return make_error("writing the timeline to " + path_ + " failed (disk full?)");
  return true;
}

std::vector<PartitionSpan> Timeline::spans() const {
  std::lock_guard lock(mu_);
  return spans_;
}

std::vector<Completion> Timeline::completions() const {
  std::lock_guard lock(mu_);
  return completions_;
}

namespace {

// A partition's timing from the daemon (ms since the job's submission) on the batch's clock:
// submission (this client's) + the daemon's offset.
PartitionSpan span_of(const ProofRecord& r, const v1::PartitionTiming& p) {
  PartitionSpan s;
  s.proof = r.index;
  s.job_id = r.job_id;
  s.index = p.index();
  s.backend = p.backend();
  s.start_ms = r.submit_s * 1e3 + p.synthesis_start_ms();
  s.synthesis_ms = p.synthesis_ms();
  s.prover_wait_ms = std::max(0.0, p.prove_start_ms() - p.synthesis_start_ms() - p.synthesis_ms());
  s.prove_ms = p.prove_ms();
  s.finalize_wait_ms = std::max(0.0, p.finalize_start_ms() - p.prove_start_ms() - p.prove_ms());
  s.finalize_ms = p.finalize_ms();
  s.upload_ms = p.upload_ms();
  s.matvec_ms = p.matvec_ms();
  s.h_ms = p.h_ms();
  s.msm_g1_ms = p.msm_g1_ms();
  s.msm_g2_ms = p.msm_g2_ms();
  return s;
}

}  // namespace

void log_answer(Timeline& timeline, const ProofRecord& r) {
  if (r.cancelled) {
    timeline.event(r.done_s * 1e3, "cancelled", r.index, r.job_id, "");
  } else if (r.completed) {
    timeline.complete({r.index, r.job_id, r.done_s * 1e3},
                      "latency_ms=" + fmt_fixed(r.latency_ms, 1) + ";queue_wait_ms=" + std::to_string(r.queue_wait_ms) +
                          ";synthesis_ms=" + std::to_string(r.synthesis_ms) +
                          ";prove_ms=" + std::to_string(r.prove_ms) + ";total_ms=" + std::to_string(r.total_ms));
    for (const auto& p : r.parts) timeline.partition(span_of(r, p));
  } else {
    timeline.event(r.done_s * 1e3, "fail", r.index, r.job_id, r.error);
  }
}

}  // namespace cuzk::bench
