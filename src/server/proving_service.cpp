#include "server/proving_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <type_traits>
#include <utility>

#include "util/log.hpp"

namespace cuzk::server {
namespace v1 = cuzk::v1;
using engine::ErrorCode;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr const char* kCodeNames[RpcMetrics::kCodes] = {
    "OK",        "CANCELLED",       "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS",  "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",    "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED",
};

const char* code_name(grpc::StatusCode code) {
  const int c = static_cast<int>(code);
  return c >= 0 && c < RpcMetrics::kCodes ? kCodeNames[c] : "UNKNOWN";
}

constexpr const char* kExpectedKinds =
    "POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION, WINNING_POST or GENERIC";

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
      logging::log_event(level, "rpc",
                         {{"method", rpc_name(rpc_)}, {"code", code_name(code_)}, {"ms", ms}, {"error", message_}});
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

// Local rather than engine::priority_name so the wire layer depends on the engine's types only.
const char* priority_label(engine::Priority p) {
  switch (p) {
    case engine::Priority::Low:
      return "low";
    case engine::Priority::Normal:
      return "normal";
    case engine::Priority::High:
      return "high";
    case engine::Priority::Critical:
      return "critical";
    case engine::Priority::Unspecified:
      break;
  }
  return "unspecified";
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  logging::append_json_escaped(out, s);
  out += '"';
}

void append_json_key(std::string& out, std::string_view key) {
  append_json_string(out, key);
  out += ':';
}

}  // namespace

engine::ProofRequest to_engine_request(v1::SubmitProofRequest& in) {
  engine::ProofRequest out;
  out.request_id = std::move(*in.mutable_request_id());
  out.kind = static_cast<engine::ProofKind>(in.proof_kind());
  out.wire_priority = static_cast<int>(in.priority());
  out.circuit_id = std::move(*in.mutable_circuit_id());
  out.sector_size = in.sector_size();
  out.registered_proof = in.registered_proof();
  out.sector_number = in.sector_number();
  out.miner_id = in.miner_id();
  out.vanilla_proof = std::move(*in.mutable_vanilla_proof());
  out.randomness = std::move(*in.mutable_randomness());
  out.partition_index = in.partition_index();
  out.comm_r_old = std::move(*in.mutable_comm_r_old());
  out.comm_r_new = std::move(*in.mutable_comm_r_new());
  out.comm_d_new = std::move(*in.mutable_comm_d_new());
  const auto move_all = [](auto* repeated, std::vector<std::string>& dst) {
    dst.reserve(static_cast<size_t>(repeated->size()));
    for (auto& item : *repeated) dst.push_back(std::move(item));
  };
  move_all(in.mutable_vanilla_proofs(), out.vanilla_proofs);
  move_all(in.mutable_witnesses(), out.witnesses);
  move_all(in.mutable_partition_inputs(), out.partition_inputs);
  return out;
}

const char* rpc_name(Rpc rpc) {
  static constexpr const char* kNames[kRpcCount] = {"SubmitProof", "AwaitProof", "Prove",
                                                    "CancelProof", "GetStatus",  "GetMetrics",
                                                    "PreloadSRS",  "EvictSRS",   "GetVerifyingKey"};
  const int i = static_cast<int>(rpc);
  return i >= 0 && i < kRpcCount ? kNames[i] : "unknown";
}

// ---- metrics ----

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
  return out;
}

// ---- conversions ----

grpc::StatusCode to_grpc_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorCode::NotFound:
      return grpc::StatusCode::NOT_FOUND;
    case ErrorCode::FailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorCode::ResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorCode::Unavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case ErrorCode::Internal:
      return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

bool valid_proof_kind(int wire_kind, std::string& message) {
  switch (static_cast<engine::ProofKind>(wire_kind)) {
    case engine::ProofKind::PorepSealCommit:
    case engine::ProofKind::SnapDealsUpdate:
    case engine::ProofKind::WindowPostPartition:
    case engine::ProofKind::WinningPost:
    case engine::ProofKind::Generic:
      return true;
    case engine::ProofKind::Unspecified:
      message = std::string("proof_kind is PROOF_KIND_UNSPECIFIED; set it to ") + kExpectedKinds;
      return false;
  }
  message = "proof_kind " + std::to_string(wire_kind) + " is not a known proof kind (expected " + kExpectedKinds + ")";
  return false;
}

void fill_await_response(engine::JobResult result, v1::AwaitProofResponse* response) {
  response->set_job_id(std::move(result.job_id));
  const int status = static_cast<int>(result.status);
  response->set_status(v1::AwaitProofResponse_Status_IsValid(status)
                           ? static_cast<v1::AwaitProofResponse_Status>(status)
                           : v1::AwaitProofResponse::UNKNOWN);
  response->set_proof(std::move(result.proof));
  response->set_error_message(std::move(result.error_message));
  const auto& t = result.timings;
  response->set_queue_wait_ms(t.queue_wait_ms);
  response->set_srs_load_ms(t.srs_load_ms);
  response->set_synthesis_ms(t.synthesis_ms);
  response->set_gpu_compute_ms(t.prove_ms);
  response->set_total_ms(t.total_ms);
  response->set_finalize_ms(t.finalize_ms);
  response->set_compute_us(t.compute_us);
  response->set_total_us(t.total_us);
  for (const auto& pt : result.partition_timings) {
    auto* o = response->add_partition_timings();
    o->set_index(pt.index);
    o->set_synthesis_start_ms(pt.synthesis_start_ms);
    o->set_synthesis_ms(pt.synthesis_ms);
    o->set_prove_start_ms(pt.prove_start_ms);
    o->set_prove_ms(pt.prove_ms);
    o->set_finalize_start_ms(pt.finalize_start_ms);
    o->set_finalize_ms(pt.finalize_ms);
    o->set_backend(pt.backend);
    o->set_upload_ms(pt.upload_ms);
    o->set_matvec_ms(pt.matvec_ms);
    o->set_h_ms(pt.h_ms);
    o->set_msm_g1_ms(pt.msm_g1_ms);
    o->set_msm_g2_ms(pt.msm_g2_ms);
  }
  response->set_partitions(result.partitions);
  for (auto& inputs : result.public_inputs) response->add_public_inputs(std::move(inputs));
}

void fill_status_response(const engine::EngineStatus& s, const std::string& version, v1::GetStatusResponse* r) {
  for (const auto& srs : s.srs) {
    auto* out = r->add_loaded_srs();
    out->set_circuit_id(srs.circuit_id);
    out->set_tier(v1::SRSStatus_Tier_IsValid(srs.tier) ? static_cast<v1::SRSStatus_Tier>(srs.tier)
                                                       : v1::SRSStatus::COLD);
    out->set_size_bytes(srs.size_bytes);
    out->set_ref_count(srs.ref_count);
    out->set_test_only(srs.test_only);
    out->set_storage(srs.storage);
  }
  for (const auto& q : s.queues) {
    auto* out = r->add_queues();
    out->set_proof_kind(q.proof_kind);
    out->set_pending(q.pending);
    out->set_in_progress(q.in_progress);
    const int p = static_cast<int>(q.priority);
    out->set_priority(v1::Priority_IsValid(p) ? static_cast<v1::Priority>(p) : v1::PRIORITY_UNSPECIFIED);
    out->set_stage(q.stage);
  }
  for (const auto& pce : s.pce) {
    auto* out = r->add_loaded_pce();
    out->set_circuit_id(pce.circuit_id);
    out->set_size_bytes(pce.size_bytes);
    out->set_state(pce.state);
    out->set_path(pce.path);
  }
  for (const auto& w : s.workers) {
    auto* out = r->add_workers();
    out->set_name(w.name);
    out->set_state(w.state);
    out->set_current_job_id(w.current_job_id);
    out->set_current_partition(w.current_partition);
    out->set_busy_seconds(w.busy_seconds);
  }
  for (const auto& c : s.circuits) r->add_circuits(c);
  r->set_test_keys_allowed(s.test_keys_allowed);
  for (const auto& t : s.tuning) r->add_tuning(t);
  for (const auto& op : s.operations) {
    auto* out = r->add_operations();
    out->set_what(op.what);
    out->set_circuit_id(op.circuit_id);
    out->set_done(op.done);
    out->set_total(op.total);
    out->set_fraction(op.fraction);
    out->set_elapsed_seconds(op.elapsed_seconds);
    out->set_unit(op.unit);
  }
  r->set_total_proofs_completed(s.completed);
  r->set_total_proofs_failed(s.failed);
  r->set_total_proofs_cancelled(s.cancelled);
  r->set_uptime_seconds(s.uptime_seconds);
  // No pinned host memory on the CPU backend; the seed's fields stay 0.
  r->set_memory_used_bytes(s.memory_used_bytes);
  r->set_memory_limit_bytes(s.memory_limit_bytes);
  r->set_memory_waits(s.memory_waits);
  r->set_daemon_rss_bytes(s.rss_bytes);
  r->set_daemon_peak_rss_bytes(s.peak_rss_bytes);
  r->set_version(version);
}

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
  return handle(metrics_, Rpc::SubmitProof, admit(context, Rpc::SubmitProof, *request), [&] {
    // The synchronous API hands the request over as const, but gRPC owns a mutable message that
    // it destroys after this call; moving the payload out of it saves a copy of up to
    // max_message_bytes per request.
    auto& mutable_request = const_cast<v1::SubmitProofRequest&>(*request);
    engine::Submitted submitted;
    if (auto status = submit(mutable_request, submitted); !status.ok()) return status;
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
  return handle(metrics_, Rpc::Prove, admit(context, Rpc::Prove, *request), [&] {
    if (!request->has_submit()) return invalid("ProveRequest.submit is missing");
    // See SubmitProof about the const_cast.
    auto& mutable_submit = *const_cast<v1::ProveRequest&>(*request).mutable_submit();
    engine::Submitted submitted;
    if (auto status = submit(mutable_submit, submitted); !status.ok()) return status;
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

std::string ProvingService::metrics_text() {
  std::string text = engine_.metrics_text();
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += metrics_.text();
  return text;
}

std::string ProvingService::status_json() {
  const auto s = engine_.status();
  std::string out = "{";
  const auto num = [&](std::string_view key, auto value, bool comma = true) {
    append_json_key(out, key);
    if constexpr (std::is_floating_point_v<decltype(value)>) {
      char buf[32];
      const int n = std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(value));
      out.append(buf, n > 0 ? static_cast<size_t>(n) : 0);
    } else {
      out += std::to_string(value);
    }
    if (comma) out += ',';
  };
  const auto str = [&](std::string_view key, std::string_view value, bool comma = true) {
    append_json_key(out, key);
    append_json_string(out, value);
    if (comma) out += ',';
  };
  const auto boolean = [&](std::string_view key, bool value, bool comma = true) {
    append_json_key(out, key);
    out += value ? "true" : "false";
    if (comma) out += ',';
  };
  const auto array = [&](std::string_view key, const auto& items, auto&& item_fn) {
    append_json_key(out, key);
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ',';
      out += '{';
      item_fn(items[i]);
      out += '}';
    }
    out += "],";
  };
  str("version", options_.version);
  num("uptime_seconds", s.uptime_seconds);
  out += "\"memory\":{";
  num("used_bytes", s.memory_used_bytes);
  num("limit_bytes", s.memory_limit_bytes);
  num("waits", s.memory_waits);
  num("rss_bytes", s.rss_bytes);
  num("peak_rss_bytes", s.peak_rss_bytes, false);
  out += "},\"counters\":{";
  num("completed", s.completed);
  num("failed", s.failed);
  num("cancelled", s.cancelled, false);
  out += "},";
  array("queues", s.queues, [&](const engine::QueueInfo& q) {
    str("proof_kind", q.proof_kind);
    str("priority", priority_label(q.priority));
    str("stage", q.stage);
    num("pending", q.pending);
    num("in_progress", q.in_progress, false);
  });
  array("workers", s.workers, [&](const engine::WorkerInfo& w) {
    str("name", w.name);
    str("state", w.state);
    str("current_job_id", w.current_job_id);
    num("current_partition", w.current_partition);
    num("busy_seconds", w.busy_seconds, false);
  });
  array("srs", s.srs, [&](const engine::SrsInfo& x) {
    str("circuit_id", x.circuit_id);
    str("tier", x.tier == 0 ? "hot" : x.tier == 1 ? "warm" : "cold");
    num("size_bytes", x.size_bytes);
    num("ref_count", x.ref_count);
    boolean("test_only", x.test_only);
    str("storage", x.storage, false);
  });
  array("pce", s.pce, [&](const engine::PceInfoStatus& p) {
    str("circuit_id", p.circuit_id);
    str("state", p.state);
    str("path", p.path);
    num("size_bytes", p.size_bytes, false);
  });
  array("operations", s.operations, [&](const engine::OperationInfo& op) {
    str("what", op.what);
    str("circuit_id", op.circuit_id);
    str("unit", op.unit);
    num("done", op.done);
    num("total", op.total);
    num("fraction", op.fraction);
    num("elapsed_seconds", op.elapsed_seconds, false);
  });
  append_json_key(out, "circuits");
  out += '[';
  for (size_t i = 0; i < s.circuits.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, s.circuits[i]);
  }
  out += "]}";
  return out;
}

}  // namespace cuzk::server
