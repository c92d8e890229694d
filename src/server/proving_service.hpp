#pragma once
// cuzk.v1.ProvingEngine over an EngineApi: a thin translation between the wire messages and the
// engine's plain C++ types, plus the gRPC layer's own metrics (requests by method and status
// code, latency histograms). Blocking calls (Prove, AwaitProof) wait in short slices so that a
// client's deadline, its cancellation and a server shutdown all end the wait promptly; the job
// itself keeps running unless it is cancelled through CancelProof.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine_api.hpp"
#include "server/refusal_log.hpp"
#include "server/rpc_metrics.hpp"
#include "server/wire.hpp"

namespace cuzk::server {

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
    // daemon.allow_unauthenticated_from, as GetStatus and /status report it (the listener enforces
    // it: GrpcServerOptions).
    std::vector<std::string> unauthenticated_from = {};
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
  RpcMetrics& rpc_metrics() { return metrics_; }
  const RefusalLog& refusals() const { return refusals_; }

 private:
  // Who may call and how large a request may be: runs first in every handler.
  grpc::Status admit(const grpc::ServerContext* context, Rpc rpc, const google::protobuf::MessageLite& request) const;
  grpc::Status submit(cuzk::v1::SubmitProofRequest& request, engine::Submitted& out);
  grpc::Status await_job(grpc::ServerContext* context, const std::string& job_id, std::chrono::milliseconds timeout,
                         cuzk::v1::AwaitProofResponse* response);

  engine::EngineApi& engine_;
  Options options_;
  RpcMetrics metrics_;
  RefusalLog refusals_;  // every refused SubmitProof and Prove, rate-limited
};

// True when an "authorization" metadata value is "Bearer <token>" (the scheme in any case). The
// comparison takes the same time wherever the first difference is, so response times do not leak
// the token a byte at a time.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

}  // namespace cuzk::server
