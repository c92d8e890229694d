#pragma once
// POREP_SEAL_COMMIT requests: the C1 output (raw SealCommitPhase1Output JSON or the Curio/cuzk
// {SectorNum, Phase1Out, SectorSize} wrapper) parsed and validated once, Merkle paths included, so
// that bad input is refused at submit naming the field rather than failing after proving.
#include "engine/engine_api.hpp"
#include "engine/request_decoder.hpp"

namespace cuzk::engine {

// Proves porep:<size>, one partition per the registered proof's partitions.
Outcome<DecodedRequest> decode_porep(ProofRequest& req, const DecodeContext& ctx);

}  // namespace cuzk::engine
