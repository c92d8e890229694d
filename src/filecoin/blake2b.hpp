#pragma once
// BLAKE2b (RFC 7693), keyed or not, any digest length 1..64. Users: synthetic PoRep derives its
// ChaCha20 keys with BLAKE2b-256 keyed by a domain-separation tag (storage-proofs-porep
// .../vanilla/challenges.rs, blake2b_simd `Params::key`); the expander graph's Feistel round
// function hashes with unkeyed BLAKE2b-512 (storage-proofs-core src/crypto/feistel.rs,
// blake2b_simd::blake2b's default).
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace cuzk::filecoin {

// Incremental unkeyed BLAKE2b: update() with pieces of any size, then digest() once. For files
// too large to hold in memory (the parameter files' digests, `cuzk doctor --digests`).
class Blake2bStream {
 public:
  explicit Blake2bStream(size_t out_len = 64);
  void update(std::span<const uint8_t> data);
  std::vector<uint8_t> digest();  // finishes the hash; update() may not be called afterwards

 private:
  std::array<uint64_t, 8> h_{};
  std::array<uint8_t, 128> block_{};
  size_t filled_ = 0;  // bytes in block_, kept until more data shows it is not the last block
  uint64_t total_ = 0;
  size_t out_len_;
  bool done_ = false;
};

// The digest of `message` with `key` (at most 64 bytes; empty for unkeyed), `out_len` bytes long.
std::vector<uint8_t> blake2b(std::span<const uint8_t> message, size_t out_len, std::span<const uint8_t> key = {});

using Blake2b512Digest = std::array<uint8_t, 64>;

// Unkeyed BLAKE2b with a 64-byte digest.
inline Blake2b512Digest blake2b_512(std::span<const uint8_t> message) {
  const std::vector<uint8_t> d = blake2b(message, 64);
  Blake2b512Digest out;
  std::copy(d.begin(), d.end(), out.begin());
  return out;
}

}  // namespace cuzk::filecoin
