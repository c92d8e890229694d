#pragma once
// PoRep challenge derivation (storage-proofs-porep .../vanilla/challenges.rs). Challenge i of
// partition k has global index j = k * challenges_per_partition + i; its 32-byte digest, read as a
// little-endian integer x, gives the node (x mod (nodes - 1)) + 1, so node 0 is never challenged.
#include <array>
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

// Synthetic PoRep (V1_1_Feat_SyntheticPoRep): a sector has min(nodes, 2^18) synthetic challenges,
// synthetic challenge i being bytes [32*i, 32*i+32) of the ChaCha20 keystream (nonce
// "synth-porep\0") keyed with BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation" over
// replica_id || comm_r. The seed then selects the PoRep challenges among them: challenge j is
// synthetic challenge (u32 LE word j of the keystream keyed with BLAKE2b-256 keyed
// "...|Synthetic|1|Selection" over replica_id || seed) mod num_synthetic.
class SyntheticChallenges {
 public:
  static constexpr uint64_t kDefaultCount = uint64_t{1} << 18;

  // num_synthetic = 0 means the reference's default, min(nodes, 2^18).
  SyntheticChallenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r, uint64_t num_synthetic = 0);

  uint64_t count() const { return num_synthetic_; }
  // Synthetic challenge i < count().
  uint64_t synthetic_challenge(uint64_t i) const;
  // The indices (into the synthetic challenges) that partition k's challenges are, and the
  // challenges themselves.
  std::vector<uint64_t> partition_indices(const Bytes32& seed, uint32_t challenges_per_partition,
                                          uint32_t partition) const;
  std::vector<uint64_t> partition_challenges(const Bytes32& seed, uint32_t challenges_per_partition,
                                             uint32_t partition) const;

 private:
  uint64_t nodes_, num_synthetic_;
  Bytes32 replica_id_;
  std::array<uint8_t, 32> generation_key_;
};

// The challenges of partition `partition` for `proof`, in any of the three modes.
std::vector<uint64_t> porep_challenges(const RegisteredSealProof& proof, const Bytes32& replica_id,
                                       const Bytes32& comm_r, const Bytes32& seed, uint32_t partition);

// (x mod (nodes - 1)) + 1 for the 32-byte little-endian x; nodes must be in [3, 2^32].
uint64_t challenge_from_digest(const Bytes32& digest, uint64_t nodes);

}  // namespace cuzk::filecoin
