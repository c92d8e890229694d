#include "server/refusal_log.hpp"

#include <string_view>

#include "server/rpc_metrics.hpp"
#include "util/log.hpp"

namespace cuzk::server {

namespace {

std::string first_line(const std::string& s) {
  constexpr size_t kMax = 300;
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > kMax) line = line.substr(0, kMax) + "...";
  return line;
}

}  // namespace

RefusalLog::Request RefusalLog::summarize(const cuzk::v1::SubmitProofRequest& request) {
  Request r;
  r.request_id = request.request_id();
  const int kind = static_cast<int>(request.proof_kind());
  r.kind = cuzk::v1::ProofKind_IsValid(kind) ? cuzk::v1::ProofKind_Name(request.proof_kind()) : std::to_string(kind);
  r.bytes = request.ByteSizeLong();
  return r;
}

void RefusalLog::record(const Request& request, const grpc::Status& status) {
  const auto code = static_cast<size_t>(status.error_code());
  by_code_[code < by_code_.size() ? code : static_cast<size_t>(grpc::StatusCode::UNKNOWN)].fetch_add(
      1, std::memory_order_relaxed);
  uint64_t held = 0;
  {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    if (written_ == 0 || now - window_start_ >= window_) {
      window_start_ = now;
      written_ = 0;
    }
    if (written_ >= burst_) {
      ++held_back_;
      ++suppressed_total_;
      return;
    }
    ++written_;
    held = held_back_;
    held_back_ = 0;
  }
  logging::log_event(logging::Level::warn, "request_refused",
                     {{"request_id", request.request_id},
                      {"kind", request.kind},
                      {"bytes", std::to_string(request.bytes)},
                      {"code", grpc_code_name(status.error_code())},
                      {"reason", first_line(status.error_message())},
                      {"suppressed_before", std::to_string(held)}});
}

uint64_t RefusalLog::suppressed_total() const {
  std::lock_guard lock(mu_);
  return suppressed_total_;
}

std::string RefusalLog::metrics_text() const {
  std::string out =
      "# HELP cuzk_requests_refused_total SubmitProof and Prove requests refused (malformed, too large, no room, "
      "shutting down, unauthenticated), by status code.\n"
      "# TYPE cuzk_requests_refused_total counter\n";
  for (size_t c = 0; c < by_code_.size(); ++c) {
    const uint64_t n = by_code_[c].load(std::memory_order_relaxed);
    if (n == 0) continue;
    out += std::string("cuzk_requests_refused_total{code=\"") + grpc_code_name(static_cast<grpc::StatusCode>(c)) +
           "\"} " + std::to_string(n) + "\n";
  }
  return out;
}

}  // namespace cuzk::server
