#include "filecoin/post_challenges.hpp"

#include <stdexcept>
#include <string>

#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {
namespace {

void append_u64_le(std::vector<uint8_t>& v, uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}

uint64_t digest_u64(const std::vector<uint8_t>& msg) {
  const auto d = gadgets::sha256_native(msg);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{d[i]} << (8 * i);
  return v;
}

}  // namespace

uint64_t post_challenge_index(const ApiVersion& api, uint64_t sector_index, uint64_t challenges_per_sector,
                              uint64_t n) {
  if (api == ApiVersion::V1_2_0) return n;
  return sector_index * challenges_per_sector + n;
}

uint64_t post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t challenge_index, uint64_t nodes) {
  if (nodes == 0) throw std::invalid_argument("PoSt challenge: a sector of 0 nodes");
  std::vector<uint8_t> msg(randomness.begin(), randomness.end());
  append_u64_le(msg, sector_id);
  append_u64_le(msg, challenge_index);
  return digest_u64(msg) % nodes;
}

std::vector<uint64_t> post_leaf_challenges(const ApiVersion& api, const Bytes32& randomness, uint64_t sector_id,
                                           uint64_t sector_index, uint32_t count, uint64_t nodes) {
  std::vector<uint64_t> out;
  out.reserve(count);
  for (uint32_t n = 0; n < count; ++n) {
    out.push_back(post_leaf_challenge(randomness, sector_id, post_challenge_index(api, sector_index, count, n), nodes));
  }
  return out;
}

uint64_t winning_post_sector_challenge(const Bytes32& randomness, const Bytes32& prover_id, uint64_t n,
                                       uint64_t sector_set_len) {
  if (sector_set_len == 0) throw std::invalid_argument("WinningPoSt sector challenge: an empty sector set");
  std::vector<uint8_t> msg(prover_id.begin(), prover_id.end());
  msg.insert(msg.end(), randomness.begin(), randomness.end());
  append_u64_le(msg, n);
  return digest_u64(msg) % sector_set_len;
}

}  // namespace cuzk::filecoin
