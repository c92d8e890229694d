#pragma once
// The gRPC layer's own metrics: requests by method and status code, requests in flight, latency
// histograms (Prometheus text).
#include <grpcpp/grpcpp.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace cuzk::server {

// The gRPC methods, for metrics.
enum class Rpc : int {
  SubmitProof,
  AwaitProof,
  Prove,
  CancelProof,
  GetStatus,
  GetMetrics,
  PreloadSRS,
  EvictSRS,
  GetVerifyingKey,
};
inline constexpr int kRpcCount = 9;
const char* rpc_name(Rpc rpc);

// Lock-free counters: a handful of relaxed atomic increments per request.
class RpcMetrics {
 public:
  static constexpr int kCodes = 17;  // grpc::StatusCode 0..16
  // Upper bounds in seconds; a last +Inf bucket follows.
  static constexpr std::array<double, 14> kBuckets = {0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5,
                                                      1,      5,     10,    30,   60,   300, 1800};

  void begin(Rpc rpc);
  void end(Rpc rpc, grpc::StatusCode code, std::chrono::nanoseconds elapsed);
  // A TCP connection closed by the allowlist before any RPC (daemon.allow_unauthenticated_from).
  void connection_refused() { refused_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t connections_refused() const { return refused_.load(std::memory_order_relaxed); }
  // Prometheus text: cuzk_grpc_requests_total{method,code}, cuzk_grpc_requests_in_flight{method},
  // cuzk_grpc_request_duration_seconds{method} (histogram), cuzk_grpc_connections_refused_total.
  std::string text() const;

 private:
  struct PerRpc {
    std::array<std::atomic<uint64_t>, kCodes> by_code{};
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};
    std::atomic<uint64_t> sum_ns{0};
    std::atomic<int64_t> in_flight{0};
  };
  std::array<PerRpc, kRpcCount> rpcs_{};
  std::atomic<uint64_t> refused_{0};
};

// "OK", "INVALID_ARGUMENT", ...: the status code's name, "UNKNOWN" for a value gRPC does not define.
const char* grpc_code_name(grpc::StatusCode code);

}  // namespace cuzk::server
