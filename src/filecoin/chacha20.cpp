#include "filecoin/chacha20.hpp"

#include <bit>

namespace cuzk::filecoin {
namespace {

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void quarter_round(uint32_t* x, int a, int b, int c, int d) {
  x[a] += x[b];
  x[d] = std::rotl(x[d] ^ x[a], 16);
  x[c] += x[d];
  x[b] = std::rotl(x[b] ^ x[c], 12);
  x[a] += x[b];
  x[d] = std::rotl(x[d] ^ x[a], 8);
  x[c] += x[d];
  x[b] = std::rotl(x[b] ^ x[c], 7);
}

}  // namespace

std::array<uint8_t, 64> chacha20_block(const ChaChaKey& key, uint32_t counter, const ChaChaNonce& nonce) {
  // "expand 32-byte k", the key, the counter, the nonce (RFC 8439 §2.3).
  uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; ++i) s[4 + i] = load_le32(key.data() + 4 * i);
  s[12] = counter;
  for (int i = 0; i < 3; ++i) s[13 + i] = load_le32(nonce.data() + 4 * i);
  uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = s[i];
  for (int round = 0; round < 10; ++round) {  // 20 rounds: 10 column + 10 diagonal
    quarter_round(x, 0, 4, 8, 12);
    quarter_round(x, 1, 5, 9, 13);
    quarter_round(x, 2, 6, 10, 14);
    quarter_round(x, 3, 7, 11, 15);
    quarter_round(x, 0, 5, 10, 15);
    quarter_round(x, 1, 6, 11, 12);
    quarter_round(x, 2, 7, 8, 13);
    quarter_round(x, 3, 4, 9, 14);
  }
  std::array<uint8_t, 64> out{};
  for (int i = 0; i < 16; ++i) {
    const uint32_t w = x[i] + s[i];
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(w >> (8 * j));
  }
  return out;
}

}  // namespace cuzk::filecoin
