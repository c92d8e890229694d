#pragma once
// Wire <-> engine conversions of cuzk.v1.ProvingEngine (exposed for tests).
#include <grpcpp/grpcpp.h>

#include <string>

#include "cuzk/v1/proving.pb.h"
#include "engine/engine_api.hpp"

namespace cuzk::server {

grpc::StatusCode to_grpc_code(engine::ErrorCode code);
// Rejects PROOF_KIND_UNSPECIFIED and values the proto does not define, naming the valid ones.
bool valid_proof_kind(int wire_kind, std::string& message);
// Moves the (possibly hundreds of MiB of) payload out of the wire message instead of copying it.
engine::ProofRequest to_engine_request(cuzk::v1::SubmitProofRequest& in);
void fill_await_response(engine::JobResult result, cuzk::v1::AwaitProofResponse* response);
void fill_status_response(const engine::EngineStatus& status, const std::string& version,
                          cuzk::v1::GetStatusResponse* response);

}  // namespace cuzk::server
