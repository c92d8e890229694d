#pragma once
// The iden3 binary container shared by circom's .r1cs and snarkjs's .wtns/.zkey/.ptau files:
// magic[4], u32 version, u32 nSections, then nSections x {u32 id, u64 byteLen, bytes}; all integers
// little-endian. This layer checks only the container (magic, section table inside the file, no
// duplicate ids, no trailing bytes); the file-specific readers check the version and the contents.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace cuzk::circom {

struct BinSection {
  uint32_t id = 0;
  uint64_t offset = 0;  // of the section body, from the start of the file
  uint64_t size = 0;
};

struct BinFile {
  uint32_t version = 0;
  std::vector<BinSection> sections;  // in file order
  std::span<const uint8_t> data;     // the whole file (not owned)

  const BinSection* find(uint32_t id) const;
  std::span<const uint8_t> body(const BinSection& s) const { return data.subspan(s.offset, s.size); }
};

// `magic` is the 4-character file type ("r1cs", "wtns"); `name` prefixes every error message.
Result<BinFile> parse_binfile(std::span<const uint8_t> data, std::string_view magic, std::string_view name);

// Reads a whole file into memory; the error names the path and the OS reason.
Result<std::vector<uint8_t>> read_file_bytes(const std::string& path);

// Bounds-checked little-endian cursor over a byte span: every read fails (returns false) rather than
// run past the end.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> b) : b_(b) {}
  bool u32(uint32_t& v);
  bool u64(uint64_t& v);
  bool bytes(size_t n, std::span<const uint8_t>& out);
  size_t pos() const { return pos_; }
  size_t remaining() const { return b_.size() - pos_; }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

// Reads `u32 n8` and the n8-byte little-endian prime that .r1cs and .wtns headers start with and
// checks that they are the BLS12-381 scalar field (n8 = 32); `where` names the file part in errors.
Result<uint32_t> read_bls12_381_fr_prime(ByteReader& r, const std::string& where);

// The decimal value of a little-endian unsigned integer (for messages naming a prime).
std::string le_bytes_to_decimal(std::span<const uint8_t> b);

}  // namespace cuzk::circom
