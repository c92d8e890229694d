#pragma once
// One log line per refused proof request (SubmitProof, Prove): its request id, kind, size, the
// status code and the first line of the reason, so an operator can tell from the daemon's log why
// a client's proofs are not being made. Rate-limited: a client retrying a malformed request in a
// loop (Curio retries failed tasks) must not flood the log; what was held back is counted in the
// next line that is written.
#include <grpcpp/grpcpp.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "cuzk/v1/proving.pb.h"
#include "server/rpc_metrics.hpp"

namespace cuzk::server {

class RefusalLog {
 public:
  struct Request {
    std::string request_id;
    std::string kind;  // the ProofKind's wire name, or its number when unknown
    uint64_t bytes = 0;
  };
  // What to log of a request; taken before the handler moves its payload out.
  static Request summarize(const cuzk::v1::SubmitProofRequest& request);

  // At most `burst` lines per `window`; the rest are counted.
  explicit RefusalLog(unsigned burst = 20, std::chrono::seconds window = std::chrono::seconds(60))
      : burst_(burst), window_(window) {}

  // Counts the refusal by status code, then logs it unless the window's lines are spent.
  void record(const Request& request, const grpc::Status& status);
  uint64_t suppressed_total() const;
  // Prometheus text: cuzk_requests_refused_total{code}, every refusal counted (logged or not).
  std::string metrics_text() const;

 private:
  using Clock = std::chrono::steady_clock;
  const unsigned burst_;
  const std::chrono::seconds window_;
  mutable std::mutex mu_;
  Clock::time_point window_start_{};
  unsigned written_ = 0;
  uint64_t held_back_ = 0;  // since the last line written
  uint64_t suppressed_total_ = 0;
  std::array<std::atomic<uint64_t>, RpcMetrics::kCodes> by_code_{};  // by grpc::StatusCode
};

}  // namespace cuzk::server
