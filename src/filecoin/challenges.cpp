#include "filecoin/challenges.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filecoin/blake2b.hpp"
#include "filecoin/chacha20.hpp"
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

// BLAKE2b-256 keyed with `tag` over a || b: a ChaCha20 key.
ChaChaKey prf_key(std::string_view tag, const Bytes32& a, const Bytes32& b) {
  std::vector<uint8_t> msg(a.begin(), a.end());
  msg.insert(msg.end(), b.begin(), b.end());
  const auto d = blake2b(msg, 32, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tag.data()), tag.size()));
  ChaChaKey k;
  std::copy(d.begin(), d.end(), k.begin());
  return k;
}

// storage-proofs-porep .../vanilla/challenges.rs: CHACHA20_NONCE and the two key tags.
constexpr ChaChaNonce kSynthNonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};
constexpr std::string_view kGenerationTag = "filecoin.io|PoRep|1|Synthetic|1|Generation";
constexpr std::string_view kSelectionTag = "filecoin.io|PoRep|1|Synthetic|1|Selection";

}  // namespace

SyntheticChallenges::SyntheticChallenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                         uint64_t num_synthetic)
    : nodes_(nodes),
      num_synthetic_(num_synthetic != 0 ? num_synthetic : std::min(nodes, kDefaultCount)),
      replica_id_(replica_id),
      generation_key_(prf_key(kGenerationTag, replica_id, comm_r)) {
  check_nodes(nodes);
  // Keystream positions are 32-bit block counters in the reference.
  if (num_synthetic_ >= (uint64_t{1} << 32)) throw std::invalid_argument("synthetic challenge count exceeds 2^32");
}

uint64_t SyntheticChallenges::synthetic_challenge(uint64_t i) const {
  if (i >= num_synthetic_) {
    throw std::out_of_range("synthetic challenge " + std::to_string(i) + " >= " + std::to_string(num_synthetic_));
  }
  // Each 64-byte block yields two challenges: bytes 0..31 for even i, 32..63 for odd i.
  const auto block = chacha20_block(generation_key_, static_cast<uint32_t>(i >> 1), kSynthNonce);
  Bytes32 x;
  std::copy_n(block.begin() + 32 * static_cast<std::ptrdiff_t>(i & 1), 32, x.begin());
  return challenge_from_digest(x, nodes_);
}

std::vector<uint64_t> SyntheticChallenges::partition_indices(const Bytes32& seed, uint32_t challenges_per_partition,
                                                             uint32_t partition) const {
  const ChaChaKey key = prf_key(kSelectionTag, replica_id_, seed);
  std::vector<uint64_t> out;
  out.reserve(challenges_per_partition);
  // Word j (4 bytes LE) of the selection keystream picks PoRep challenge j; 16 words a block.
  const uint64_t first = uint64_t{partition} * challenges_per_partition;
  std::array<uint8_t, 64> block{};
  uint64_t block_index = ~uint64_t{0};
  for (uint64_t j = first; j < first + challenges_per_partition; ++j) {
    if (j / 16 != block_index) {
      block_index = j / 16;
      block = chacha20_block(key, static_cast<uint32_t>(block_index), kSynthNonce);
    }
    const uint8_t* w = block.data() + 4 * (j % 16);
    const uint32_t word = uint32_t{w[0]} | uint32_t{w[1]} << 8 | uint32_t{w[2]} << 16 | uint32_t{w[3]} << 24;
    out.push_back(word % num_synthetic_);
  }
  return out;
}

std::vector<uint64_t> SyntheticChallenges::partition_challenges(const Bytes32& seed, uint32_t challenges_per_partition,
                                                                uint32_t partition) const {
  std::vector<uint64_t> out;
  for (uint64_t i : partition_indices(seed, challenges_per_partition, partition)) out.push_back(synthetic_challenge(i));
  return out;
}

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
      return SyntheticChallenges(proof.shape.nodes, replica_id, comm_r)
          .partition_challenges(seed, proof.challenges_per_partition, partition);
  }
  throw std::logic_error("porep_challenges: unknown challenge mode");
}

}  // namespace cuzk::filecoin
