#pragma once
// The ChaCha8 generator of rand_chacha (ChaCha8Rng::from_seed), the DRG's parent sampler
// (storage-proofs-core src/drgraph.rs): the 32-byte seed is the key, the block counter is 64 bits
// (state words 12 and 13) starting at 0, the stream id (words 14 and 15) is 0, and the output is
// the keystream's 32-bit words in order. next_u64 joins two consecutive words, the first one low
// (rand_core's BlockRng), which over a continuous word stream needs no special case at block
// boundaries.
#include <array>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

class ChaCha8Rng {
 public:
  explicit ChaCha8Rng(std::span<const uint8_t, 32> seed);
  uint32_t next_u32();
  uint64_t next_u64();

 private:
  void refill();
  std::array<uint32_t, 8> key_{};
  uint64_t counter_ = 0;
  std::array<uint32_t, 16> block_{};
  size_t pos_ = 16;
};

}  // namespace cuzk::filecoin
