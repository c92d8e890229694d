#include "gadgets/sha256_native.hpp"

#include <stdexcept>
#include <vector>

#include "gadgets/sha256.hpp"
#include "gadgets/sha256_shani.hpp"
#include "util/cpu_features.hpp"

namespace cuzk::gadgets {
namespace {

uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

}  // namespace

Sha256State sha256_native_iv() {
  return sha256_detail::kIv;
}

void sha256_portable_compress(Sha256State& state, std::span<const uint8_t, 64> block) {
  std::array<uint32_t, 64> w{};
  for (size_t i = 0; i < 16; ++i) {
    w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) | (uint32_t{block[4 * i + 2]} << 8) |
           uint32_t{block[4 * i + 3]};
  }
  for (size_t i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (size_t i = 0; i < 64; ++i) {
    const uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const uint32_t ch = (e & f) ^ (~e & g);
    const uint32_t t1 = h + S1 + ch + sha256_detail::kRoundConstants[i] + w[i];
    const uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void sha256_native_compress(Sha256State& state, std::span<const uint8_t, 64> block) {
  sha256_native_compress_blocks(state, block);
}

void sha256_native_compress_blocks(Sha256State& state, std::span<const uint8_t> blocks) {
  if (blocks.size() % 64 != 0)
    throw std::invalid_argument("sha256_native_compress_blocks: not a whole number of blocks");
  const size_t count = blocks.size() / 64;
  if (count > 0 && cpu_has_sha_ni() && sha256_shani_compress_blocks(state.data(), blocks.data(), count)) return;
  for (size_t i = 0; i < count; ++i)
    sha256_portable_compress(state, std::span<const uint8_t, 64>(blocks.data() + 64 * i, 64));
}

Sha256Digest sha256_native(std::span<const uint8_t> message) {
  std::vector<uint8_t> padded(message.begin(), message.end());
  const uint64_t bit_len = uint64_t{message.size()} * 8;
  padded.push_back(0x80);
  while (padded.size() % 64 != 56) padded.push_back(0);
  for (int i = 7; i >= 0; --i) padded.push_back(static_cast<uint8_t>(bit_len >> (8 * i)));
  Sha256State state = sha256_native_iv();
  sha256_native_compress_blocks(state, padded);
  return sha256_native_state_bytes(state);
}

Sha256Digest sha256_native_state_bytes(const Sha256State& state) {
  Sha256Digest out{};
  for (size_t i = 0; i < 8; ++i) {
    for (size_t j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(state[i] >> (24 - 8 * j));
  }
  return out;
}

}  // namespace cuzk::gadgets
