#pragma once
// The ChaCha20 block function (RFC 8439 §2.3: 32-byte key, 32-bit block counter, 12-byte nonce):
// synthetic PoRep reads its challenges and their selection from ChaCha20 keystreams.
#include <array>
#include <cstdint>

namespace cuzk::filecoin {

using ChaChaKey = std::array<uint8_t, 32>;
using ChaChaNonce = std::array<uint8_t, 12>;

// The 64 keystream bytes of block `counter`.
std::array<uint8_t, 64> chacha20_block(const ChaChaKey& key, uint32_t counter, const ChaChaNonce& nonce);

}  // namespace cuzk::filecoin
