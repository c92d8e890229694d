#include "server/wire.hpp"

#include <utility>
#include <vector>

namespace cuzk::server {
namespace v1 = cuzk::v1;
using engine::ErrorCode;

namespace {

constexpr const char* kExpectedKinds =
    "POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION, WINNING_POST or GENERIC";

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
  const auto fill_queue = [](const engine::QueueInfo& q, v1::QueueStatus* out) {
    out->set_proof_kind(q.proof_kind);
    out->set_pending(q.pending);
    out->set_in_progress(q.in_progress);
    const int p = static_cast<int>(q.priority);
    out->set_priority(v1::Priority_IsValid(p) ? static_cast<v1::Priority>(p) : v1::PRIORITY_UNSPECIFIED);
    out->set_stage(q.stage);
    out->set_pending_partitions(q.pending_partitions);
    out->set_in_progress_partitions(q.in_progress_partitions);
  };
  for (const auto& q : s.queues) fill_queue(q, r->add_queues());
  for (const auto& q : s.stage_queues) fill_queue(q, r->add_stage_queues());
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

}  // namespace cuzk::server
