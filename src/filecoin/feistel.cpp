#include "filecoin/feistel.hpp"

#include <stdexcept>

#include "filecoin/blake2b.hpp"

namespace cuzk::filecoin {

Feistel::Feistel(uint64_t num_elements, const std::array<uint64_t, 4>& keys)
    : num_elements_(num_elements), keys_(keys) {
  if (num_elements == 0 || num_elements > (uint64_t{1} << 62)) {
    throw std::invalid_argument("Feistel: num_elements must be in 1..2^62");
  }
  // precompute(): the smallest power of 4 >= num_elements, at least 4.
  uint64_t next_pow4 = 4;
  unsigned log4 = 1;
  while (next_pow4 < num_elements) {
    next_pow4 *= 4;
    ++log4;
  }
  half_bits_ = log4;
  right_mask_ = (uint64_t{1} << log4) - 1;
  left_mask_ = right_mask_ << log4;
}

// BLAKE2b-512 of right (u64 BE) || key (u64 BE); the digest's first 8 bytes read BE, masked.
uint64_t Feistel::round(uint64_t right, uint64_t key) const {
  std::array<uint8_t, 16> data{};
  for (size_t i = 0; i < 8; ++i) {
    data[i] = static_cast<uint8_t>(right >> (56 - 8 * i));
    data[8 + i] = static_cast<uint8_t>(key >> (56 - 8 * i));
  }
  const Blake2b512Digest h = blake2b_512(data);
  uint64_t r = 0;
  for (size_t i = 0; i < 8; ++i) r = (r << 8) | h[i];
  return r & right_mask_;
}

uint64_t Feistel::encode(uint64_t index) const {
  uint64_t left = (index & left_mask_) >> half_bits_, right = index & right_mask_;
  for (size_t i = 0; i < kFeistelRounds; ++i) {
    const uint64_t l = right, r = left ^ round(right, keys_[i]);
    left = l;
    right = r;
  }
  return (left << half_bits_) | right;
}

uint64_t Feistel::decode(uint64_t index) const {
  uint64_t left = (index & left_mask_) >> half_bits_, right = index & right_mask_;
  for (size_t i = kFeistelRounds; i-- > 0;) {
    const uint64_t l = right ^ round(left, keys_[i]), r = left;
    left = l;
    right = r;
  }
  return (left << half_bits_) | right;
}

uint64_t Feistel::permute(uint64_t index) const {
  if (index >= num_elements_) throw std::out_of_range("Feistel::permute: index out of range");
  uint64_t u = encode(index);
  while (u >= num_elements_) u = encode(u);
  return u;
}

uint64_t Feistel::invert(uint64_t index) const {
  if (index >= num_elements_) throw std::out_of_range("Feistel::invert: index out of range");
  uint64_t u = decode(index);
  while (u >= num_elements_) u = decode(u);
  return u;
}

}  // namespace cuzk::filecoin
