#include "filecoin/bincode.hpp"

namespace cuzk::filecoin {

void BincodeReader::need(size_t n) const {
  if (remaining() < n) {
    throw BincodeError(pos_,
                       "truncated: " + std::to_string(n) + " bytes needed, " + std::to_string(remaining()) + " left");
  }
}

uint64_t BincodeReader::uint_le(size_t width) {
  need(width);
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= uint64_t{bytes_[pos_ + i]} << (8 * i);
  pos_ += width;
  return v;
}

std::array<uint8_t, 32> BincodeReader::bytes32() {
  need(32);
  std::array<uint8_t, 32> b;
  for (size_t i = 0; i < 32; ++i) b[i] = bytes_[pos_ + i];
  pos_ += 32;
  return b;
}

size_t BincodeReader::seq_len(size_t min_element_bytes) {
  const size_t at = pos_;
  const uint64_t n = u64();
  if (min_element_bytes != 0 && n > remaining() / min_element_bytes) {
    throw BincodeError(at, "sequence length " + std::to_string(n) + " cannot fit in the " +
                               std::to_string(remaining()) + " bytes left");
  }
  return static_cast<size_t>(n);
}

void BincodeReader::finish() const {
  if (remaining() != 0) {
    throw BincodeError(pos_, std::to_string(remaining()) + " bytes after the end of the value");
  }
}

}  // namespace cuzk::filecoin
