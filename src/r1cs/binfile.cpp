#include "r1cs/binfile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "ff/bls12_381.hpp"

namespace cuzk::circom {

namespace {

uint32_t load_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

std::string printable_magic(std::span<const uint8_t> m) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s = "\"";
  for (uint8_t c : m) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      s.push_back(static_cast<char>(c));
    } else {
      s += "\\x";
      s.push_back(hex[c >> 4]);
      s.push_back(hex[c & 15]);
    }
  }
  return s + "\"";
}

}  // namespace

bool ByteReader::u32(uint32_t& v) {
  if (remaining() < 4) return false;
  v = load_u32(b_.data() + pos_);
  pos_ += 4;
  return true;
}

bool ByteReader::u64(uint64_t& v) {
  if (remaining() < 8) return false;
  v = load_u64(b_.data() + pos_);
  pos_ += 8;
  return true;
}

bool ByteReader::bytes(size_t n, std::span<const uint8_t>& out) {
  if (remaining() < n) return false;
  out = b_.subspan(pos_, n);
  pos_ += n;
  return true;
}

const BinSection* BinFile::find(uint32_t id) const {
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

Result<BinFile> parse_binfile(std::span<const uint8_t> data, std::string_view magic, std::string_view name) {
  const std::string pre(name);
  if (data.size() < 12) {
    return make_error(pre + ": file header: file is " + std::to_string(data.size()) +
                      " bytes, shorter than the 12-byte header (magic, version, section count)");
  }
  if (magic.size() != 4 || !std::equal(magic.begin(), magic.end(), data.begin())) {
    return make_error(pre + ": file header: magic is " + printable_magic(data.first(4)) + ", expected \"" +
                      std::string(magic) + "\" (not a ." + std::string(magic) + " file?)");
  }
  BinFile f;
  f.data = data;
  f.version = load_u32(data.data() + 4);
  const uint32_t n_sections = load_u32(data.data() + 8);
  size_t pos = 12;
  std::unordered_set<uint32_t> seen;  // not BinFile::find: a table can hold millions of entries
  for (uint32_t i = 0; i < n_sections; ++i) {
    auto where = [&] {
      return pre + ": section table: entry " + std::to_string(i) + " of " + std::to_string(n_sections);
    };
    if (data.size() - pos < 12) {
      return make_error(where() + " at offset " + std::to_string(pos) + ": truncated (needs 12 bytes, " +
                        std::to_string(data.size() - pos) + " left)");
    }
    BinSection s;
    s.id = load_u32(data.data() + pos);
    s.size = load_u64(data.data() + pos + 4);
    pos += 12;
    const uint64_t left = data.size() - pos;
    if (s.size > left) {
      return make_error(where() + " (section id " + std::to_string(s.id) + "): length " + std::to_string(s.size) +
                        " exceeds the " + std::to_string(left) + " bytes left in the file (truncated or corrupt)");
    }
    if (!seen.insert(s.id).second) {
      return make_error(where() + ": duplicate section id " + std::to_string(s.id));
    }
    s.offset = pos;
    pos += static_cast<size_t>(s.size);
    f.sections.push_back(s);
  }
  if (pos != data.size()) {
    return make_error(pre + ": " + std::to_string(data.size() - pos) + " trailing bytes after the last of the " +
                      std::to_string(n_sections) + " sections (offset " + std::to_string(pos) + ")");
  }
  return f;
}

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return make_error(path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(path + ": not a regular file");
  }
  std::vector<uint8_t> buf(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return make_error(path + ": read failed: " + std::strerror(e));
    }
    if (n == 0) break;  // the file shrank while being read
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got != buf.size()) {
    return make_error(path + ": file changed while being read (" + std::to_string(got) + " of " +
                      std::to_string(buf.size()) + " bytes)");
  }
  return buf;
}

Result<uint32_t> read_bls12_381_fr_prime(ByteReader& r, const std::string& where) {
  using Fr = ff::Fr;
  uint32_t n8 = 0;
  if (!r.u32(n8)) return make_error(where + ": truncated before the field size n8");
  if (n8 > r.remaining()) {
    return make_error(where + ": field size n8 = " + std::to_string(n8) + " exceeds the " +
                      std::to_string(r.remaining()) + " bytes left in the section");
  }
  std::span<const uint8_t> prime;
  (void)r.bytes(n8, prime);
  uint8_t fr_le[Fr::NUM_BYTES];
  for (size_t i = 0; i < Fr::NUM_BYTES; ++i) fr_le[i] = static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8)));
  if (n8 == Fr::NUM_BYTES && std::equal(prime.begin(), prime.end(), fr_le)) return n8;
  static const std::string kFr = le_bytes_to_decimal(fr_le);
  static constexpr std::string_view kBn254 =
      "21888242871839275222246405745257275088548364400416034343698204186575808495617";
  const std::string found = n8 <= 64 ? le_bytes_to_decimal(prime) : "a " + std::to_string(n8) + "-byte value";
  std::string msg = where + ": unsupported prime " + found + " (n8 = " + std::to_string(n8) +
                    "); only the BLS12-381 scalar field r = " + kFr +
                    " (n8 = 32, circom --prime bls12381) is supported";
  if (found == kBn254) msg += "; the file is for BN254 (circom's default --prime bn128)";
  return make_error(msg);
}

std::string le_bytes_to_decimal(std::span<const uint8_t> b) {
  // Repeated division by 10 of a big-endian copy.
  std::vector<uint8_t> be(b.rbegin(), b.rend());
  std::string digits;
  for (;;) {
    bool nonzero = false;
    unsigned rem = 0;
    for (auto& d : be) {
      const unsigned cur = rem << 8 | d;
      d = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
      nonzero = nonzero || d != 0;
    }
    digits.push_back(static_cast<char>('0' + rem));
    if (!nonzero) break;
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace cuzk::circom
