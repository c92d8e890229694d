#include "filecoin/chacha20.hpp"

#include "filecoin/chacha_core.hpp"

namespace cuzk::filecoin {
namespace {

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

std::array<uint8_t, 64> chacha20_block(const ChaChaKey& key, uint32_t counter, const ChaChaNonce& nonce) {
  // Constants, the key, the 32-bit counter, the 96-bit nonce (RFC 8439 §2.3).
  std::array<uint32_t, 16> s{};
  for (int i = 0; i < 4; ++i) s[i] = kChaChaConstants[i];
  for (int i = 0; i < 8; ++i) s[4 + i] = load_le32(key.data() + 4 * i);
  s[12] = counter;
  for (int i = 0; i < 3; ++i) s[13 + i] = load_le32(nonce.data() + 4 * i);
  const std::array<uint32_t, 16> x = chacha_block_words(s, 10);  // 20 rounds
  std::array<uint8_t, 64> out{};
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(x[i] >> (8 * j));
  return out;
}

}  // namespace cuzk::filecoin
