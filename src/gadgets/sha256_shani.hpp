#pragma once
// SHA-256 compression with the x86 SHA extensions (SHA-NI). Call only when cpu_has_sha_ni();
// sha256_native_compress dispatches to it by itself.
#include <cstddef>
#include <cstdint>

namespace cuzk::gadgets {

// Compresses `count` consecutive 64-byte blocks into `state` (FIPS 180-4 word order: a..h).
// Returns false, doing nothing, when this build has no SHA-NI code path (non-x86-64).
bool sha256_shani_compress_blocks(uint32_t state[8], const uint8_t* blocks, size_t count);

}  // namespace cuzk::gadgets
