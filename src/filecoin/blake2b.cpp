#include "filecoin/blake2b.hpp"

#include <algorithm>
#include <bit>

namespace cuzk::filecoin {
namespace {

// RFC 7693 section 2.6: the SHA-512 initial values.
constexpr std::array<uint64_t, 8> kIv = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                         0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                         0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
// RFC 7693 section 2.7: message word schedule (rounds 10 and 11 repeat rows 0 and 1).
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

uint64_t load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void mix(std::array<uint64_t, 16>& v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = std::rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = std::rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 63);
}

void compress(std::array<uint64_t, 8>& h, const uint8_t* block, uint64_t t, bool last) {
  std::array<uint64_t, 16> m{}, v{};
  for (int i = 0; i < 16; ++i) m[i] = load64(block + 8 * i);
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= t;  // byte counter, low word (messages here are far below 2^64 bytes)
  if (last) v[14] = ~v[14];
  for (const auto& s : kSigma) {
    mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

}  // namespace

Blake2b512Digest blake2b_512(std::span<const uint8_t> message) {
  std::array<uint64_t, 8> h = kIv;
  h[0] ^= 0x01010000 ^ 64;  // parameter block: digest length 64, no key, fanout 1, depth 1
  size_t off = 0;
  // Every full block except the last one is compressed as not-last; the final (possibly empty or
  // partial) block is zero-padded.
  while (message.size() - off > 128) {
    off += 128;
    compress(h, message.data() + off - 128, off, false);
  }
  std::array<uint8_t, 128> last{};
  std::copy(message.begin() + static_cast<std::ptrdiff_t>(off), message.end(), last.begin());
  compress(h, last.data(), message.size(), true);
  Blake2b512Digest out{};
  for (size_t i = 0; i < 64; ++i) out[i] = static_cast<uint8_t>(h[i / 8] >> (8 * (i % 8)));
  return out;
}

}  // namespace cuzk::filecoin
