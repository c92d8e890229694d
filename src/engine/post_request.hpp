#pragma once
// WINDOW_POST_PARTITION and WINNING_POST requests: the registered PoSt proof (its Go abi id), one
// bincode FallbackPoStSectorProof per sector in vanilla_proofs, the 32-byte randomness, the miner
// (its prover id) and, for WindowPoSt, the partition's index. Every proof is parsed and validated
// at submit (post_validate.hpp: shapes, paths, the challenges recomputed), so a bad one is refused
// naming its position, its sector and the field, before any proving work.
#include "engine/engine_api.hpp"
#include "engine/request_decoder.hpp"

namespace cuzk::engine {

// Proves window-post:<size> or winning-post:<size>: one partition.
Outcome<DecodedRequest> decode_post(ProofRequest& req, const DecodeContext& ctx);

}  // namespace cuzk::engine
