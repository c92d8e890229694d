#pragma once
// A proof request decoded and validated at submit, by its kind: which registered circuit it proves
// and each partition's input. Bad input is refused here, with a message naming the field, before
// any work is queued. Adding a proof kind means adding its decoder (porep_request.hpp is one) and
// its circuit; the engine's stages do not change.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/circuit_registry.hpp"
#include "engine/engine_api.hpp"
#include "engine/partition_work.hpp"
#include "engine/vanilla_partitions.hpp"

namespace cuzk::engine {

inline constexpr size_t kMaxPartitions = 1024;
inline constexpr size_t kMaxPartitionInputBytes = 64;

struct DecodedRequest {
  CircuitDef def;
  std::vector<PartitionPayload> payloads;
  std::shared_ptr<const VanillaPartitions> vanilla;  // Filecoin kinds: what every proof is checked against
  bool witness_length_checked = false;               // .wtns payloads: checked here (the circuit was loaded)
};

struct DecodeContext {
  const CircuitRegistry& registry;
  // The witness length a circuit expects when its key or PCE is loaded already (a .wtns of
  // another length is refused at submit; otherwise at synthesis).
  std::function<std::optional<uint64_t>(const CircuitDef&)> witness_length;
};

// INVALID_ARGUMENT with `message`: what every decoder returns for a malformed request.
inline Outcome<DecodedRequest> invalid_request(std::string message) {
  return Outcome<DecodedRequest>::failure(ErrorCode::InvalidArgument, std::move(message));
}

// The end of a Filecoin kind's decoding: the request's circuit_id, when given, must be
// `circuit_id` (which `decided_by`, e.g. "the C1 output", implies); the registered circuit; one
// payload per partition of `vanilla`. `kind` ("PoRep") is for the message.
Outcome<DecodedRequest> filecoin_request(const ProofRequest& req, const DecodeContext& ctx,
                                         const std::string& circuit_id, const std::string& decided_by,
                                         const std::string& kind, std::shared_ptr<const VanillaPartitions> vanilla);

// Takes the request's payload fields (witnesses, vanilla proofs) out of `req`: they live on in the
// result only. InvalidArgument for every malformed request.
Outcome<DecodedRequest> decode_request(ProofRequest& req, const DecodeContext& ctx);

}  // namespace cuzk::engine
