#include "filecoin/challenges.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {
namespace {

void append_u32_le(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}

void check_nodes(uint64_t nodes) {
  // The reference asserts sector_nodes > 2 and < 2^32 (it keeps the low u32 digit of the result).
  if (nodes <= 2 || nodes > (uint64_t{1} << 32)) {
    throw std::invalid_argument("challenge derivation: nodes must be in [3, 2^32], got " + std::to_string(nodes));
  }
}

template <class Prefix>
std::vector<uint64_t> derive(uint64_t nodes, uint32_t count, uint32_t partition, const Prefix& prefix) {
  check_nodes(nodes);
  std::vector<uint64_t> out;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    // u32 like the reference: partition * count + i stays far below 2^32 for every proof.
    const uint32_t j = partition * count + i;
    std::vector<uint8_t> msg = prefix();
    append_u32_le(msg, j);
    out.push_back(challenge_from_digest(gadgets::sha256_native(msg), nodes));
  }
  return out;
}

}  // namespace

uint64_t challenge_from_digest(const Bytes32& digest, uint64_t nodes) {
  check_nodes(nodes);
  const uint64_t m = nodes - 1;  // < 2^32, so r * 256 + byte fits in 64 bits
  uint64_t r = 0;
  for (size_t i = digest.size(); i-- > 0;) r = ((r << 8) | digest[i]) % m;
  return r + 1;
}

std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             uint32_t challenges_per_partition, uint32_t partition) {
  return derive(nodes, challenges_per_partition, partition, [&] {
    std::vector<uint8_t> m(replica_id.begin(), replica_id.end());
    m.insert(m.end(), seed.begin(), seed.end());
    return m;
  });
}

std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 uint32_t challenges_per_partition, uint32_t partition) {
  static constexpr std::string_view kTag = "filecoin.io|PoRep|1|NonInteractive|1";
  return derive(nodes, challenges_per_partition, partition, [&] {
    std::vector<uint8_t> m(kTag.begin(), kTag.end());
    m.insert(m.end(), replica_id.begin(), replica_id.end());
    m.insert(m.end(), comm_r.begin(), comm_r.end());
    return m;
  });
}

std::vector<uint64_t> porep_challenges(const RegisteredSealProof& proof, const Bytes32& replica_id,
                                       const Bytes32& comm_r, const Bytes32& seed, uint32_t partition) {
  if (partition >= proof.partitions) {
    throw std::invalid_argument("porep_challenges: partition " + std::to_string(partition) + " out of range for " +
                                std::string(proof.name) + " (" + std::to_string(proof.partitions) + " partitions)");
  }
  switch (proof.challenge_mode) {
    case ChallengeMode::kInteractive:
      return interactive_challenges(proof.shape.nodes, replica_id, seed, proof.challenges_per_partition, partition);
    case ChallengeMode::kNonInteractive:
      return non_interactive_challenges(proof.shape.nodes, replica_id, comm_r, proof.challenges_per_partition,
                                        partition);
    case ChallengeMode::kSynthetic:
      break;
  }
  throw std::invalid_argument("porep_challenges: synthetic PoRep challenges (" + std::string(proof.name) +
                              ") are not implemented (they need ChaCha20 and BLAKE2b)");
}

}  // namespace cuzk::filecoin
