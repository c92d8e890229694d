#pragma once
// cuzk.v1.ProvingEngine over an EngineApi: a thin translation between the wire messages and the
// engine's plain C++ types, plus the gRPC layer's own metrics (requests by method and status
// code, latency histograms). Blocking calls (Prove, AwaitProof) wait in short slices so that a
// client's deadline, its cancellation and a server shutdown all end the wait promptly; the job
// itself keeps running unless it is cancelled through CancelProof.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine_api.hpp"

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
  // Prometheus text: cuzk_grpc_requests_total{method,code}, cuzk_grpc_requests_in_flight{method},
  // cuzk_grpc_request_duration_seconds{method} (histogram).
  std::string text() const;

 private:
  struct PerRpc {
    std::array<std::atomic<uint64_t>, kCodes> by_code{};
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};
    std::atomic<uint64_t> sum_ns{0};
    std::atomic<int64_t> in_flight{0};
  };
  std::array<PerRpc, kRpcCount> rpcs_{};
};

class ProvingService final : public cuzk::v1::ProvingEngine::Service {
 public:
  struct Options {
    std::string version;  // reported by GetStatus
    // Longest single engine wait inside Prove/AwaitProof: bounds how late a client cancellation
    // or a server shutdown is noticed.
    std::chrono::milliseconds await_slice{100};
    // Proof requests (SubmitProof, Prove) larger than this are refused with INVALID_ARGUMENT
    // naming the limit, before the engine parses or allocates anything for them (0: no check).
    // The transport's own limit sits above it (GrpcServerOptions) so that a request a little too
    // large gets this clear answer rather than gRPC's RESOURCE_EXHAUSTED.
    uint64_t max_request_bytes = 0;
    // Every other RPC carries ids only; a larger request is refused the same way (0: no check).
    uint64_t max_control_request_bytes = 64 << 10;
    // Non-empty: every call must carry "authorization: Bearer <token>" metadata, else
    // UNAUTHENTICATED before anything else is looked at (daemon.auth_token_file).
    std::string bearer_token = {};
  };

  // `engine` must outlive the service (and the server that runs it).
  ProvingService(engine::EngineApi& engine, Options options);

  grpc::Status SubmitProof(grpc::ServerContext* context, const cuzk::v1::SubmitProofRequest* request,
                           cuzk::v1::SubmitProofResponse* response) override;
  grpc::Status AwaitProof(grpc::ServerContext* context, const cuzk::v1::AwaitProofRequest* request,
                          cuzk::v1::AwaitProofResponse* response) override;
  grpc::Status Prove(grpc::ServerContext* context, const cuzk::v1::ProveRequest* request,
                     cuzk::v1::ProveResponse* response) override;
  grpc::Status CancelProof(grpc::ServerContext* context, const cuzk::v1::CancelProofRequest* request,
                           cuzk::v1::CancelProofResponse* response) override;
  grpc::Status GetStatus(grpc::ServerContext* context, const cuzk::v1::GetStatusRequest* request,
                         cuzk::v1::GetStatusResponse* response) override;
  grpc::Status GetMetrics(grpc::ServerContext* context, const cuzk::v1::GetMetricsRequest* request,
                          cuzk::v1::GetMetricsResponse* response) override;
  grpc::Status PreloadSRS(grpc::ServerContext* context, const cuzk::v1::PreloadSrsRequest* request,
                          cuzk::v1::PreloadSrsResponse* response) override;
  grpc::Status EvictSRS(grpc::ServerContext* context, const cuzk::v1::EvictSrsRequest* request,
                        cuzk::v1::EvictSrsResponse* response) override;
  grpc::Status GetVerifyingKey(grpc::ServerContext* context, const cuzk::v1::GetVerifyingKeyRequest* request,
                               cuzk::v1::GetVerifyingKeyResponse* response) override;

  // The engine's metrics followed by the gRPC layer's (what GetMetrics and HTTP /metrics serve).
  std::string metrics_text();
  // The engine status as one JSON object (HTTP /status).
  std::string status_json();

  const RpcMetrics& rpc_metrics() const { return metrics_; }

 private:
  // Who may call and how large a request may be: runs first in every handler.
  grpc::Status admit(const grpc::ServerContext* context, Rpc rpc, const google::protobuf::MessageLite& request) const;
  grpc::Status submit(cuzk::v1::SubmitProofRequest& request, engine::Submitted& out);
  grpc::Status await_job(grpc::ServerContext* context, const std::string& job_id, std::chrono::milliseconds timeout,
                         cuzk::v1::AwaitProofResponse* response);

  engine::EngineApi& engine_;
  Options options_;
  RpcMetrics metrics_;
};

// True when an "authorization" metadata value is "Bearer <token>" (the scheme in any case). The
// comparison takes the same time wherever the first difference is, so response times do not leak
// the token a byte at a time.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

// Wire <-> engine conversions (exposed for tests).
grpc::StatusCode to_grpc_code(engine::ErrorCode code);
// Rejects PROOF_KIND_UNSPECIFIED and values the proto does not define, naming the valid ones.
bool valid_proof_kind(int wire_kind, std::string& message);
// Moves the (possibly hundreds of MiB of) payload out of the wire message instead of copying it.
engine::ProofRequest to_engine_request(cuzk::v1::SubmitProofRequest& in);
void fill_await_response(engine::JobResult result, cuzk::v1::AwaitProofResponse* response);
void fill_status_response(const engine::EngineStatus& status, const std::string& version,
                          cuzk::v1::GetStatusResponse* response);

}  // namespace cuzk::server
