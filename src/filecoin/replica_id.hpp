#pragma once
// The replica id of a sealed sector (storage-proofs-porep .../vanilla/params.rs
// `generate_replica_id`): SHA-256 of prover_id || sector_id (u64 big-endian) || ticket || comm_d ||
// porep_id, with the top two bits of the last byte cleared so that it is a canonical Fr.
#include <cstdint>
#include <optional>

#include "filecoin/domain.hpp"
#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const PorepId& porep_id);

// The prover id of an ID address f0<actor_id>: its payload (the actor id as an unsigned LEB128
// varint) zero-padded to 32 bytes, as filecoin-ffi and curio's cuzk-bench `make_prover_id` build it.
Bytes32 prover_id_from_actor_id(uint64_t actor_id);
// Its inverse: the actor id, or none when the bytes are not exactly such a payload.
std::optional<uint64_t> actor_id_from_prover_id(const Bytes32& prover_id);

}  // namespace cuzk::filecoin
