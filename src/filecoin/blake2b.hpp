#pragma once
// Unkeyed BLAKE2b with a 64-byte digest (RFC 7693), the hash of the expander graph's Feistel round
// function (storage-proofs-core src/crypto/feistel.rs uses blake2b_simd::blake2b, whose default is
// this).
#include <array>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

using Blake2b512Digest = std::array<uint8_t, 64>;

Blake2b512Digest blake2b_512(std::span<const uint8_t> message);

}  // namespace cuzk::filecoin
