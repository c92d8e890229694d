#pragma once
// The subset of bincode 1.x (serde, default `bincode::serialize` options) that Filecoin's vanilla
// proofs use: fixed-width little-endian integers (usize as u64), enum variants as a u32 index,
// sequences as a u64 length then the elements, fixed arrays ([u8; 32] domains) as their bytes
// with no length, structs as their fields in order. The reader is strict: it never reads past the
// end, refuses a sequence whose length could not fit in the bytes left (so a forged length cannot
// make it allocate), and `finish` refuses trailing bytes.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::filecoin {

// A malformed byte string: what is wrong, at which offset. Callers add the field's name.
class BincodeError : public std::runtime_error {
 public:
  BincodeError(size_t offset, const std::string& problem)
      : std::runtime_error(problem + " (at byte " + std::to_string(offset) + ")"), offset_(offset) {}
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};

class BincodeReader {
 public:
  explicit BincodeReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint32_t u32() { return static_cast<uint32_t>(uint_le(4)); }
  uint64_t u64() { return uint_le(8); }
  std::array<uint8_t, 32> bytes32();
  // A sequence length, checked against the bytes left given each element's smallest encoding.
  size_t seq_len(size_t min_element_bytes);
  // Throws unless every byte was read.
  void finish() const;

  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  uint64_t uint_le(size_t width);
  void need(size_t n) const;

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

class BincodeWriter {
 public:
  void u32(uint32_t v) { uint_le(v, 4); }
  void u64(uint64_t v) { uint_le(v, 8); }
  void bytes32(const std::array<uint8_t, 32>& b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void seq_len(size_t n) { u64(n); }
  std::vector<uint8_t> take() && { return std::move(out_); }

 private:
  void uint_le(uint64_t v, size_t width) {
    for (size_t i = 0; i < width; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

}  // namespace cuzk::filecoin
