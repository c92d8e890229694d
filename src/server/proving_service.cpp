#include "server/proving_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <utility>

#include "server/status_json.hpp"
#include "util/log.hpp"

namespace cuzk::server {
namespace v1 = cuzk::v1;
using engine::ErrorCode;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

grpc::Status error_status(const engine::EngineError& e) {
  return {to_grpc_code(e.code), e.message};
}

grpc::Status invalid(std::string message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, std::move(message)};
}

constexpr size_t kMaxStatusMessageBytes = 2048;

// Records one request in the metrics (and the debug log) however the handler leaves.
class RpcScope {
 public:
  RpcScope(RpcMetrics& metrics, Rpc rpc) : metrics_(metrics), rpc_(rpc), start_(steady_clock::now()) {
    metrics_.begin(rpc_);
  }
  ~RpcScope() {
    const auto elapsed = steady_clock::now() - start_;
    metrics_.end(rpc_, code_, elapsed);
    const auto level = code_ == grpc::StatusCode::INTERNAL || code_ == grpc::StatusCode::UNKNOWN
                           ? logging::Level::warn
                           : logging::Level::debug;
    if (spdlog::default_logger_raw()->should_log(level)) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.3f", std::chrono::duration<double, std::milli>(elapsed).count());
      logging::log_event(
          level, "rpc", {{"method", rpc_name(rpc_)}, {"code", grpc_code_name(code_)}, {"ms", ms}, {"error", message_}});
    }
  }
  RpcScope(const RpcScope&) = delete;
  RpcScope& operator=(const RpcScope&) = delete;

  // A status message travels in an HTTP/2 trailer, which a client refuses past its metadata limit
  // (8 KiB by default; the call then ends in UNKNOWN "Stream removed"): whatever produced a long
  // message, it is cut here.
  grpc::Status finish(grpc::Status status) {
    code_ = status.error_code();
    if (!status.ok()) {
      message_ = status.error_message();
      if (message_.size() > kMaxStatusMessageBytes) {
        message_ = message_.substr(0, kMaxStatusMessageBytes) + "... (" + std::to_string(message_.size()) + " bytes)";
        status = grpc::Status(code_, message_);
      }
    }
    return status;
  }

 private:
  RpcMetrics& metrics_;
  Rpc rpc_;
  steady_clock::time_point start_;
  grpc::StatusCode code_ = grpc::StatusCode::UNKNOWN;
  std::string message_;
};

// Runs a handler body unless `admitted` (ProvingService::admit: authentication, size) refused the
// call: metrics, and an exception from the engine becomes INTERNAL with its message instead of
// gRPC's opaque UNKNOWN.
template <class Body>
grpc::Status handle(RpcMetrics& metrics, Rpc rpc, grpc::Status admitted, Body&& body) {
  RpcScope scope(metrics, rpc);
  if (!admitted.ok()) return scope.finish(std::move(admitted));
  try {
    return scope.finish(body());
  } catch (const std::exception& e) {
    return scope.finish({grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()});
  } catch (...) {
    return scope.finish({grpc::StatusCode::INTERNAL, "internal error: unknown exception"});
  }
}

}  // namespace

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return false;
  }
  const std::string_view given = authorization.substr(kScheme.size());
  // Every byte of the expected token is compared, whatever the given length.
  unsigned diff = given.size() == token.size() ? 0u : 1u;
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= static_cast<unsigned>(g ^ static_cast<unsigned char>(token[i]));
  }
  return diff == 0;
}

// ---- the service ----

ProvingService::ProvingService(engine::EngineApi& engine, Options options)
    : engine_(engine), options_(std::move(options)) {
  if (options_.await_slice < milliseconds(1)) options_.await_slice = milliseconds(1);
}

grpc::Status ProvingService::admit(const grpc::ServerContext* context, Rpc rpc,
                                   const google::protobuf::MessageLite& request) const {
  if (!options_.bearer_token.empty()) {
    const auto& metadata = context->client_metadata();
    const auto it = metadata.find("authorization");
    if (it == metadata.end()) {
      return {grpc::StatusCode::UNAUTHENTICATED,
              "this daemon requires a bearer token (daemon.auth_token_file): send \"authorization: Bearer "
              "<token>\" metadata (cuzk-bench --token-file FILE)"};
    }
    if (!bearer_token_matches(std::string_view(it->second.data(), it->second.size()), options_.bearer_token)) {
      return {grpc::StatusCode::UNAUTHENTICATED,
              "the bearer token is wrong: send the token of the daemon's daemon.auth_token_file"};
    }
  }
  const bool proof_rpc = rpc == Rpc::SubmitProof || rpc == Rpc::Prove;
  const uint64_t cap = proof_rpc ? options_.max_request_bytes : options_.max_control_request_bytes;
  if (cap != 0) {
    const uint64_t size = request.ByteSizeLong();
    if (size > cap) {
      if (proof_rpc) {
        return invalid("the request is " + std::to_string(size) +
                       " bytes, more than daemon.max_message_bytes = " + std::to_string(cap) +
                       "; split the work into several requests or raise the limit in the daemon's config");
      }
      return invalid(std::string("the ") + rpc_name(rpc) + " request is " + std::to_string(size) +
                     " bytes; this call carries ids only and is limited to " + std::to_string(cap) + " bytes");
    }
  }
  return grpc::Status::OK;
}

grpc::Status ProvingService::submit(v1::SubmitProofRequest& request, engine::Submitted& out) {
  std::string message;
  if (!valid_proof_kind(static_cast<int>(request.proof_kind()), message)) return invalid(std::move(message));
  auto outcome = engine_.submit(to_engine_request(request));
  if (!outcome.ok()) return error_status(outcome.error);
  out = std::move(*outcome.value);
  return grpc::Status::OK;
}

grpc::Status ProvingService::await_job(grpc::ServerContext* context, const std::string& job_id, milliseconds timeout,
                                       v1::AwaitProofResponse* response) {
  constexpr auto kNever = steady_clock::time_point::max();
  const auto start = steady_clock::now();
  // The client's deadline, moved onto the monotonic clock once.
  auto client_end = kNever;
  if (const auto deadline = context->deadline(); deadline != std::chrono::system_clock::time_point::max()) {
    client_end =
        start + std::chrono::duration_cast<steady_clock::duration>(deadline - std::chrono::system_clock::now());
  }
  const auto request_end = timeout.count() > 0 ? start + timeout : kNever;

  for (;;) {
    if (context->IsCancelled()) {
      return {grpc::StatusCode::CANCELLED, "the call was cancelled while waiting for job '" + job_id +
                                               "'; the job keeps running (CancelProof stops it)"};
    }
    const auto now = steady_clock::now();
    if (now >= client_end) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED, "the deadline expired while waiting for job '" + job_id +
                                                       "'; the job keeps running (AwaitProof fetches its result)"};
    }
    auto slice = options_.await_slice;
    for (const auto end : {client_end, request_end}) {
      if (end != kNever) slice = std::min(slice, std::chrono::ceil<milliseconds>(end - now));
    }
    // A zero timeout would mean "wait forever" to the engine.
    slice = std::max(slice, milliseconds(1));
    auto result = engine_.await(job_id, slice);
    if (!result) {
      return {grpc::StatusCode::NOT_FOUND,
              "no job with id '" + job_id + "' (never submitted, or finished longer ago than the retention time)"};
    }
    if (result->status != engine::JobStatus::Timeout || steady_clock::now() >= request_end) {
      if (result->job_id.empty()) result->job_id = job_id;
      fill_await_response(std::move(*result), response);
      return grpc::Status::OK;
    }
  }
}

grpc::Status ProvingService::SubmitProof(grpc::ServerContext* context, const v1::SubmitProofRequest* request,
                                         v1::SubmitProofResponse* response) {
  const RefusalLog::Request summary = RefusalLog::summarize(*request);
  grpc::Status admitted = admit(context, Rpc::SubmitProof, *request);
  if (!admitted.ok()) refusals_.record(summary, admitted);
  return handle(metrics_, Rpc::SubmitProof, std::move(admitted), [&] {
    // The synchronous API hands the request over as const, but gRPC owns a mutable message that
    // it destroys after this call; moving the payload out of it saves a copy of up to
    // max_message_bytes per request.
    auto& mutable_request = const_cast<v1::SubmitProofRequest&>(*request);
    engine::Submitted submitted;
    if (auto status = submit(mutable_request, submitted); !status.ok()) {
      refusals_.record(summary, status);
      return status;
    }
    response->set_job_id(std::move(submitted.job_id));
    response->set_queue_position(submitted.queue_position);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::AwaitProof(grpc::ServerContext* context, const v1::AwaitProofRequest* request,
                                        v1::AwaitProofResponse* response) {
  return handle(metrics_, Rpc::AwaitProof, admit(context, Rpc::AwaitProof, *request), [&] {
    if (request->job_id().empty()) return invalid("job_id is empty");
    // Beyond ~30 years a timeout means "no limit" (and must not overflow the clock arithmetic).
    constexpr uint64_t kMaxTimeoutMs = 1'000'000'000'000ull;
    const uint64_t timeout_ms = request->timeout_ms() > kMaxTimeoutMs ? 0 : request->timeout_ms();
    return await_job(context, request->job_id(), milliseconds(timeout_ms), response);
  });
}

grpc::Status ProvingService::Prove(grpc::ServerContext* context, const v1::ProveRequest* request,
                                   v1::ProveResponse* response) {
  const RefusalLog::Request summary = RefusalLog::summarize(request->submit());
  grpc::Status admitted = admit(context, Rpc::Prove, *request);
  if (!admitted.ok()) refusals_.record(summary, admitted);
  return handle(metrics_, Rpc::Prove, std::move(admitted), [&] {
    if (!request->has_submit()) {
      grpc::Status missing = invalid("ProveRequest.submit is missing");
      refusals_.record(summary, missing);
      return missing;
    }
    // See SubmitProof about the const_cast.
    auto& mutable_submit = *const_cast<v1::ProveRequest&>(*request).mutable_submit();
    engine::Submitted submitted;
    if (auto status = submit(mutable_submit, submitted); !status.ok()) {
      refusals_.record(summary, status);
      return status;
    }
    return await_job(context, submitted.job_id, milliseconds(0), response->mutable_result());
  });
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext* context, const v1::CancelProofRequest* request,
                                         v1::CancelProofResponse* response) {
  return handle(metrics_, Rpc::CancelProof, admit(context, Rpc::CancelProof, *request), [&] {
    if (request->job_id().empty()) return invalid("job_id is empty");
    const auto result = engine_.cancel(request->job_id());
    response->set_found(result.found);
    response->set_was_running(result.was_running);
    response->set_cancelled(result.cancelled);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext* context, const v1::GetStatusRequest* request,
                                       v1::GetStatusResponse* response) {
  return handle(metrics_, Rpc::GetStatus, admit(context, Rpc::GetStatus, *request), [&] {
    fill_status_response(engine_.status(), options_.version, response);
    for (const auto& net : options_.unauthenticated_from) response->add_unauthenticated_from(net);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext* context, const v1::GetMetricsRequest* request,
                                        v1::GetMetricsResponse* response) {
  return handle(metrics_, Rpc::GetMetrics, admit(context, Rpc::GetMetrics, *request), [&] {
    response->set_prometheus_text(metrics_text());
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::PreloadSRS(grpc::ServerContext* context, const v1::PreloadSrsRequest* request,
                                        v1::PreloadSrsResponse* response) {
  return handle(metrics_, Rpc::PreloadSRS, admit(context, Rpc::PreloadSRS, *request), [&] {
    if (request->circuit_id().empty()) return invalid("circuit_id is empty");
    auto outcome = engine_.preload_srs(request->circuit_id());
    if (!outcome.ok()) return error_status(outcome.error);
    response->set_already_loaded(outcome.value->already_loaded);
    response->set_load_time_ms(outcome.value->load_time_ms);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::EvictSRS(grpc::ServerContext* context, const v1::EvictSrsRequest* request,
                                      v1::EvictSrsResponse* response) {
  return handle(metrics_, Rpc::EvictSRS, admit(context, Rpc::EvictSRS, *request), [&] {
    if (request->circuit_id().empty()) return invalid("circuit_id is empty");
    auto outcome = engine_.evict_srs(request->circuit_id());
    if (!outcome.ok()) return error_status(outcome.error);
    response->set_was_loaded(outcome.value->was_loaded);
    response->set_freed_bytes(outcome.value->freed_bytes);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::GetVerifyingKey(grpc::ServerContext* context, const v1::GetVerifyingKeyRequest* request,
                                             v1::GetVerifyingKeyResponse* response) {
  return handle(metrics_, Rpc::GetVerifyingKey, admit(context, Rpc::GetVerifyingKey, *request), [&] {
    if (request->circuit_id().empty()) return invalid("circuit_id is empty");
    auto outcome = engine_.verifying_key(request->circuit_id());
    if (!outcome.ok()) return error_status(outcome.error);
    response->set_vk(std::move(outcome.value->vk_bytes));
    response->set_num_public_inputs(outcome.value->num_public_inputs);
    return grpc::Status::OK;
  });
}

std::string ProvingService::status_json() {
  return engine_status_json(engine_.status(), options_.version, options_.unauthenticated_from);
}

std::string ProvingService::metrics_text() {
  std::string text = engine_.metrics_text();
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += metrics_.text();
  text += refusals_.metrics_text();
  return text;
}

}  // namespace cuzk::server
