#pragma once
// FIPS 180-4 SHA-256 on the CPU: the reference the SHA-256 gadget is tested against, and what
// vanilla (non-circuit) code needs to compute the same digests. Uses the x86 SHA extensions when
// the CPU has them (sha256_shani.cpp), else a portable implementation.
#include <array>
#include <cstdint>
#include <span>

namespace cuzk::gadgets {

using Sha256State = std::array<uint32_t, 8>;
using Sha256Digest = std::array<uint8_t, 32>;

// The initial hash value H(0).
Sha256State sha256_native_iv();
// One compression of a 64-byte block into `state`.
void sha256_native_compress(Sha256State& state, std::span<const uint8_t, 64> block);
// Compressions of consecutive 64-byte blocks (size a multiple of 64, else std::invalid_argument).
void sha256_native_compress_blocks(Sha256State& state, std::span<const uint8_t> blocks);
// The portable compression (no SHA extensions), whatever the CPU: tests compare the two paths.
void sha256_portable_compress(Sha256State& state, std::span<const uint8_t, 64> block);
// The digest of a whole message (padding included).
Sha256Digest sha256_native(std::span<const uint8_t> message);
// The state words as the digest's bytes (big-endian words).
Sha256Digest sha256_native_state_bytes(const Sha256State& state);

}  // namespace cuzk::gadgets
