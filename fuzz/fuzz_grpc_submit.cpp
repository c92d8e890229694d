// A SubmitProof request as the daemon receives it: the protobuf message from the wire, the kind
// check and conversion of the service (proving_service.hpp), then the engine's decoding at submit
// (request_decoder.hpp: C1 JSON, .wtns witnesses, built-in partition inputs) against a registry of
// the built-in circuits and one circom circuit. Nothing here needs a running engine.
#include <optional>

#include "cuzk/v1/proving.pb.h"
#include "engine/circuit_registry.hpp"
#include "engine/config.hpp"
#include "engine/request_decoder.hpp"
#include "server/proving_service.hpp"

namespace {

const cuzk::engine::CircuitRegistry& registry() {
  // The paths are never opened: decoding only looks the circuit up.
  static const auto config = cuzk::engine::parse_config(R"(
[[circuits]]
id = "mul3"
r1cs = "/nonexistent/mul3.r1cs"
params = "/nonexistent/mul3.params"
)",
                                                        "fuzz.toml");
  static const cuzk::engine::CircuitRegistry r(config.value());
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cuzk::v1::SubmitProofRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  std::string message;
  if (!cuzk::server::valid_proof_kind(static_cast<int>(request.proof_kind()), message)) return 0;
  auto req = cuzk::server::to_engine_request(request);
  // mul3's witness length (tests/circom/mul3.wtns: 8 values); other circuits: not loaded yet.
  const auto witness_length = [](const cuzk::engine::CircuitDef& def) -> std::optional<uint64_t> {
    return def.id == "mul3" ? std::optional<uint64_t>(8) : std::nullopt;
  };
  const cuzk::engine::DecodeContext ctx{registry(), witness_length};
  (void)cuzk::engine::decode_request(req, ctx);
  return 0;
}
