#include "server/rpc_metrics.hpp"

#include <algorithm>
#include <cstdio>

namespace cuzk::server {

namespace {

constexpr const char* kCodeNames[RpcMetrics::kCodes] = {
    "OK",        "CANCELLED",       "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS",  "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",    "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED",
};

}  // namespace

const char* grpc_code_name(grpc::StatusCode code) {
  const int c = static_cast<int>(code);
  return c >= 0 && c < RpcMetrics::kCodes ? kCodeNames[c] : "UNKNOWN";
}

const char* rpc_name(Rpc rpc) {
  static constexpr const char* kNames[kRpcCount] = {"SubmitProof", "AwaitProof", "Prove",
                                                    "CancelProof", "GetStatus",  "GetMetrics",
                                                    "PreloadSRS",  "EvictSRS",   "GetVerifyingKey"};
  const int i = static_cast<int>(rpc);
  return i >= 0 && i < kRpcCount ? kNames[i] : "unknown";
}

void RpcMetrics::begin(Rpc rpc) {
  rpcs_[static_cast<size_t>(rpc)].in_flight.fetch_add(1, std::memory_order_relaxed);
}

void RpcMetrics::end(Rpc rpc, grpc::StatusCode code, std::chrono::nanoseconds elapsed) {
  auto& r = rpcs_[static_cast<size_t>(rpc)];
  r.in_flight.fetch_sub(1, std::memory_order_relaxed);
  const int c = static_cast<int>(code);
  r.by_code[static_cast<size_t>(c >= 0 && c < kCodes ? c : static_cast<int>(grpc::StatusCode::UNKNOWN))].fetch_add(
      1, std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(elapsed).count();
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  r.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  r.sum_ns.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, elapsed.count())), std::memory_order_relaxed);
}

std::string RpcMetrics::text() const {
  std::string out;
  char line[256];
  const auto add = [&](int n) {
    if (n > 0) out.append(line, std::min(static_cast<size_t>(n), sizeof line - 1));
  };
  out += "# HELP cuzk_grpc_requests_total gRPC requests handled, by method and status code.\n";
  out += "# TYPE cuzk_grpc_requests_total counter\n";
  for (int m = 0; m < kRpcCount; ++m) {
    for (int c = 0; c < kCodes; ++c) {
      const uint64_t n = rpcs_[static_cast<size_t>(m)].by_code[static_cast<size_t>(c)].load(std::memory_order_relaxed);
      if (n == 0) continue;
      add(std::snprintf(line, sizeof line, "cuzk_grpc_requests_total{method=\"%s\",code=\"%s\"} %llu\n",
                        rpc_name(static_cast<Rpc>(m)), kCodeNames[c], static_cast<unsigned long long>(n)));
    }
  }
  out += "# HELP cuzk_grpc_requests_in_flight gRPC requests being handled now.\n";
  out += "# TYPE cuzk_grpc_requests_in_flight gauge\n";
  for (int m = 0; m < kRpcCount; ++m) {
    add(std::snprintf(line, sizeof line, "cuzk_grpc_requests_in_flight{method=\"%s\"} %lld\n",
                      rpc_name(static_cast<Rpc>(m)),
                      static_cast<long long>(rpcs_[static_cast<size_t>(m)].in_flight.load(std::memory_order_relaxed))));
  }
  out += "# HELP cuzk_grpc_request_duration_seconds Time from receiving a gRPC request to its response.\n";
  out += "# TYPE cuzk_grpc_request_duration_seconds histogram\n";
  for (int m = 0; m < kRpcCount; ++m) {
    const auto& r = rpcs_[static_cast<size_t>(m)];
    uint64_t cumulative = 0;
    std::array<uint64_t, kBuckets.size() + 1> counts{};
    for (size_t b = 0; b < counts.size(); ++b) counts[b] = r.buckets[b].load(std::memory_order_relaxed);
    uint64_t total = 0;
    for (const uint64_t n : counts) total += n;
    if (total == 0) continue;  // keep the exposition short: methods never called are left out
    const char* name = rpc_name(static_cast<Rpc>(m));
    for (size_t b = 0; b < counts.size(); ++b) {
      cumulative += counts[b];
      if (b < kBuckets.size()) {
        add(std::snprintf(line, sizeof line,
                          "cuzk_grpc_request_duration_seconds_bucket{method=\"%s\",le=\"%g\"} %llu\n", name,
                          kBuckets[b], static_cast<unsigned long long>(cumulative)));
      } else {
        add(std::snprintf(line, sizeof line,
                          "cuzk_grpc_request_duration_seconds_bucket{method=\"%s\",le=\"+Inf\"} %llu\n", name,
                          static_cast<unsigned long long>(cumulative)));
      }
    }
    add(std::snprintf(line, sizeof line, "cuzk_grpc_request_duration_seconds_sum{method=\"%s\"} %.6f\n", name,
                      static_cast<double>(r.sum_ns.load(std::memory_order_relaxed)) * 1e-9));
    add(std::snprintf(line, sizeof line, "cuzk_grpc_request_duration_seconds_count{method=\"%s\"} %llu\n", name,
                      static_cast<unsigned long long>(cumulative)));
  }
  out +=
      "# HELP cuzk_grpc_connections_refused_total TCP connections closed before any RPC: the peer is not in "
      "daemon.allow_unauthenticated_from.\n";
  out += "# TYPE cuzk_grpc_connections_refused_total counter\n";
  add(std::snprintf(line, sizeof line, "cuzk_grpc_connections_refused_total %llu\n",
                    static_cast<unsigned long long>(refused_.load(std::memory_order_relaxed))));
  return out;
}

}  // namespace cuzk::server
