#pragma once
// The ChaCha block function's core (RFC 8439 §2.1–2.3): `double_rounds` column + diagonal double
// rounds over a 16-word input state, then the input added back. ChaCha20 (10 double rounds) and
// rand_chacha's ChaCha8 (4) differ only in the count and in how the state's last four words are
// filled.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace cuzk::filecoin {

// "expand 32-byte k": the first four state words.
inline constexpr std::array<uint32_t, 4> kChaChaConstants = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

inline std::array<uint32_t, 16> chacha_block_words(const std::array<uint32_t, 16>& in, int double_rounds) {
  std::array<uint32_t, 16> x = in;
  const auto quarter = [&x](int a, int b, int c, int d) {
    x[a] += x[b];
    x[d] = std::rotl(x[d] ^ x[a], 16);
    x[c] += x[d];
    x[b] = std::rotl(x[b] ^ x[c], 12);
    x[a] += x[b];
    x[d] = std::rotl(x[d] ^ x[a], 8);
    x[c] += x[d];
    x[b] = std::rotl(x[b] ^ x[c], 7);
  };
  for (int r = 0; r < double_rounds; ++r) {
    quarter(0, 4, 8, 12);
    quarter(1, 5, 9, 13);
    quarter(2, 6, 10, 14);
    quarter(3, 7, 11, 15);
    quarter(0, 5, 10, 15);
    quarter(1, 6, 11, 12);
    quarter(2, 7, 8, 13);
    quarter(3, 4, 9, 14);
  }
  for (std::size_t i = 0; i < 16; ++i) x[i] += in[i];
  return x;
}

}  // namespace cuzk::filecoin
