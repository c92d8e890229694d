#pragma once
// PoRep challenge derivation (storage-proofs-porep .../vanilla/challenges.rs). Challenge i of
// partition k has global index j = k * challenges_per_partition + i; its 32-byte digest, read as a
// little-endian integer x, gives the node (x mod (nodes - 1)) + 1, so node 0 is never challenged.
#include <cstdint>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

// Interactive PoRep (V1, V1_1): digest = SHA-256(replica_id || seed || j as u32 LE).
std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             uint32_t challenges_per_partition, uint32_t partition);

// Non-interactive PoRep (V1_2): digest = SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ||
// replica_id || comm_r || j as u32 LE); there is no seed.
std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 uint32_t challenges_per_partition, uint32_t partition);

// The challenges of partition `partition` for `proof`. Synthetic PoRep (ChaCha20 and BLAKE2b
// over 2^18 synthetic challenges) is not implemented: it throws std::invalid_argument.
std::vector<uint64_t> porep_challenges(const RegisteredSealProof& proof, const Bytes32& replica_id,
                                       const Bytes32& comm_r, const Bytes32& seed, uint32_t partition);

// (x mod (nodes - 1)) + 1 for the 32-byte little-endian x; nodes must be in [3, 2^32].
uint64_t challenge_from_digest(const Bytes32& digest, uint64_t nodes);

}  // namespace cuzk::filecoin
