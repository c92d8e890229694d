#pragma once
// The keyed Feistel permutation behind SDR's expander graph (storage-proofs-core
// src/crypto/feistel.rs): 3 rounds over a domain of 4^k values split into two halves of
// log4(domain) bits, BLAKE2b-512 round function, cycle-walking into [0, num_elements).
#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::filecoin {

inline constexpr size_t kFeistelRounds = 3;

class Feistel {
 public:
  // num_elements >= 1; keys are the round keys (only the first kFeistelRounds are used, as in the
  // reference, which derives four).
  Feistel(uint64_t num_elements, const std::array<uint64_t, 4>& keys);

  // The image of index (< num_elements) under the permutation.
  uint64_t permute(uint64_t index) const;
  // The preimage (decode walk).
  uint64_t invert(uint64_t index) const;

 private:
  uint64_t encode(uint64_t index) const;
  uint64_t decode(uint64_t index) const;
  uint64_t round(uint64_t right, uint64_t key) const;

  uint64_t num_elements_;
  std::array<uint64_t, 4> keys_;
  uint64_t left_mask_ = 0, right_mask_ = 0;
  unsigned half_bits_ = 0;
};

}  // namespace cuzk::filecoin
