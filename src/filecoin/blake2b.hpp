#pragma once
// BLAKE2b (RFC 7693), keyed or not, any digest length 1..64: synthetic PoRep derives its ChaCha20
// keys with BLAKE2b-256 keyed by a domain-separation tag (storage-proofs-porep
// .../vanilla/challenges.rs, blake2b_simd `Params::key`).
#include <cstdint>
#include <span>
#include <vector>

namespace cuzk::filecoin {

// The digest of `message` with `key` (at most 64 bytes; empty for unkeyed), `out_len` bytes long.
std::vector<uint8_t> blake2b(std::span<const uint8_t> message, size_t out_len, std::span<const uint8_t> key = {});

}  // namespace cuzk::filecoin
