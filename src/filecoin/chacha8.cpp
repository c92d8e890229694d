#include "filecoin/chacha8.hpp"

#include "filecoin/chacha_core.hpp"

namespace cuzk::filecoin {

ChaCha8Rng::ChaCha8Rng(std::span<const uint8_t, 32> seed) {
  for (size_t i = 0; i < 8; ++i) {
    key_[i] = uint32_t{seed[4 * i]} | uint32_t{seed[4 * i + 1]} << 8 | uint32_t{seed[4 * i + 2]} << 16 |
              uint32_t{seed[4 * i + 3]} << 24;
  }
}

void ChaCha8Rng::refill() {
  // Constants, key, 64-bit counter, 64-bit stream id 0; 8 rounds = 4 double rounds.
  std::array<uint32_t, 16> in{};
  for (size_t i = 0; i < 4; ++i) in[i] = kChaChaConstants[i];
  for (size_t i = 0; i < 8; ++i) in[4 + i] = key_[i];
  in[12] = static_cast<uint32_t>(counter_);
  in[13] = static_cast<uint32_t>(counter_ >> 32);
  block_ = chacha_block_words(in, 4);
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
