#include "filecoin/chacha8.hpp"

#include <bit>

namespace cuzk::filecoin {
namespace {

void quarter(std::array<uint32_t, 16>& x, int a, int b, int c, int d) {
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

ChaCha8Rng::ChaCha8Rng(std::span<const uint8_t, 32> seed) {
  for (size_t i = 0; i < 8; ++i) {
    key_[i] = uint32_t{seed[4 * i]} | uint32_t{seed[4 * i + 1]} << 8 | uint32_t{seed[4 * i + 2]} << 16 |
              uint32_t{seed[4 * i + 3]} << 24;
  }
}

void ChaCha8Rng::refill() {
  // "expand 32-byte k", key, 64-bit counter, 64-bit stream id 0.
  std::array<uint32_t, 16> in = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (size_t i = 0; i < 8; ++i) in[4 + i] = key_[i];
  in[12] = static_cast<uint32_t>(counter_);
  in[13] = static_cast<uint32_t>(counter_ >> 32);
  std::array<uint32_t, 16> x = in;
  for (int r = 0; r < 8; r += 2) {  // 8 rounds = 4 double rounds
    quarter(x, 0, 4, 8, 12);
    quarter(x, 1, 5, 9, 13);
    quarter(x, 2, 6, 10, 14);
    quarter(x, 3, 7, 11, 15);
    quarter(x, 0, 5, 10, 15);
    quarter(x, 1, 6, 11, 12);
    quarter(x, 2, 7, 8, 13);
    quarter(x, 3, 4, 9, 14);
  }
  for (size_t i = 0; i < 16; ++i) block_[i] = x[i] + in[i];
  ++counter_;
  pos_ = 0;
}

uint32_t ChaCha8Rng::next_u32() {
  if (pos_ == 16) refill();
  return block_[pos_++];
}

uint64_t ChaCha8Rng::next_u64() {
  const uint64_t lo = next_u32();
  return lo | uint64_t{next_u32()} << 32;
}

}  // namespace cuzk::filecoin
