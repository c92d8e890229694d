#include "filecoin/blake2b.hpp"

#include <array>
#include <bit>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

// RFC 7693 §2.6 (the SHA-512 IV) and §2.7 (the message schedule).
constexpr std::array<uint64_t, 8> kIv = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                         0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                         0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

void mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = std::rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = std::rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 63);
}

// Compression F of one 128-byte block; `t` counts the bytes hashed so far (< 2^64 here).
void compress(std::array<uint64_t, 8>& h, const uint8_t* block, uint64_t t, bool last) {
  uint64_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = 0;
    for (int j = 0; j < 8; ++j) m[i] |= uint64_t{block[8 * i + j]} << (8 * j);
  }
  uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= t;
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

std::vector<uint8_t> digest_bytes(const std::array<uint64_t, 8>& h, size_t out_len) {
  std::vector<uint8_t> out(out_len);
  for (size_t i = 0; i < out_len; ++i) out[i] = static_cast<uint8_t>(h[i / 8] >> (8 * (i % 8)));
  return out;
}

}  // namespace

Blake2bStream::Blake2bStream(size_t out_len) : h_(kIv), out_len_(out_len) {
  if (out_len == 0 || out_len > 64) throw std::invalid_argument("blake2b: digest length must be 1..64");
  h_[0] ^= 0x01010000 ^ out_len;  // parameter block: fanout 1, depth 1, no key
}

void Blake2bStream::update(std::span<const uint8_t> data) {
  if (done_) throw std::logic_error("Blake2bStream: update after digest");
  size_t off = 0;
  while (off < data.size()) {
    // A full block is compressed only once more data follows: the last block is compressed as final.
    if (filled_ == block_.size()) {
      total_ += block_.size();
      compress(h_, block_.data(), total_, false);
      filled_ = 0;
    }
    const size_t take = std::min(block_.size() - filled_, data.size() - off);
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(off), take,
                block_.begin() + static_cast<std::ptrdiff_t>(filled_));
    filled_ += take;
    off += take;
  }
}

std::vector<uint8_t> Blake2bStream::digest() {
  if (done_) throw std::logic_error("Blake2bStream: digest called twice");
  done_ = true;
  std::fill(block_.begin() + static_cast<std::ptrdiff_t>(filled_), block_.end(), uint8_t{0});
  total_ += filled_;
  compress(h_, block_.data(), total_, true);
  return digest_bytes(h_, out_len_);
}

std::vector<uint8_t> blake2b(std::span<const uint8_t> message, size_t out_len, std::span<const uint8_t> key) {
  if (out_len == 0 || out_len > 64) throw std::invalid_argument("blake2b: digest length must be 1..64");
  if (key.size() > 64) throw std::invalid_argument("blake2b: key longer than 64 bytes");
  std::array<uint64_t, 8> h = kIv;
  h[0] ^= 0x01010000 ^ (uint64_t{key.size()} << 8) ^ out_len;  // parameter block: fanout 1, depth 1

  // A key is hashed as a first, zero-padded block of its own.
  std::vector<uint8_t> data;
  if (!key.empty()) {
    data.assign(128, 0);
    std::copy(key.begin(), key.end(), data.begin());
  }
  data.insert(data.end(), message.begin(), message.end());

  uint64_t t = 0;
  size_t off = 0;
  // Every full block but the last is compressed as non-final; the final block may be partial.
  while (data.size() - off > 128) {
    t += 128;
    compress(h, data.data() + off, t, false);
    off += 128;
  }
  uint8_t last[128] = {};
  const size_t rest = data.size() - off;
  std::copy(data.begin() + static_cast<std::ptrdiff_t>(off), data.end(), last);
  t += rest;
  compress(h, last, t, true);

  return digest_bytes(h, out_len);
}

}  // namespace cuzk::filecoin
