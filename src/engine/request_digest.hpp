#pragma once
// What makes two proof requests the same request: a SHA-256 over every field that determines the
// proof (kind, circuit, registered proof, sector/miner/partition, randomness, commitments, vanilla
// proofs, witnesses, inputs), each tagged and length-prefixed so that no two different requests
// share an encoding. Not the request_id (the name a client gives it) nor the priority (how soon,
// not what). A request_id joins an earlier job only when the digests are equal: Curio reuses ids
// across different content (every partition of a WindowPoSt deadline; a PoRep whose C1 was made
// again), and a proof of other inputs must never answer it.
#include <array>
#include <cstdint>
#include <string>

#include "engine/engine_api.hpp"

namespace cuzk::engine {

using RequestDigest = std::array<uint8_t, 32>;

RequestDigest request_digest(const ProofRequest& request);

// The first 8 bytes in hex, for logs.
std::string digest_prefix(const RequestDigest& digest);

}  // namespace cuzk::engine
