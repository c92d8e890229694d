#include "gadgets/sha256_shani.hpp"

#include "gadgets/sha256.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cuzk::gadgets {

#if defined(__x86_64__)

// The SHA-NI flow of Intel's "New Instructions Supporting the Secure Hash Algorithm on Intel
// Architecture Processors" (2013): the state lives as ABEF and CDGH in two registers; each
// sha256rnds2 performs two rounds; sha256msg1/msg2 extend the message schedule four words at a
// time. Compiled for the SHA extension only here, so the rest of the binary runs on any x86-64.
__attribute__((target("sha,sse4.1,ssse3"))) bool sha256_shani_compress_blocks(uint32_t state[8], const uint8_t* blocks,
                                                                              size_t count) {
  const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  const auto* k = sha256_detail::kRoundConstants.data();

  for (size_t b = 0; b < count; ++b, blocks += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];
    for (int g = 0; g < 16; ++g) {
      __m128i& cur = w[g & 3];
      if (g < 4) {
        cur = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * g)), byteswap);
      } else {
        // W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]) for the four words of group g.
        __m128i t = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
        t = _mm_add_epi32(t, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
        cur = _mm_sha256msg2_epu32(t, w[(g + 3) & 3]);
      }
      const __m128i msg = _mm_add_epi32(cur, _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }

  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), hgfe);
  return true;
}

#else

bool sha256_shani_compress_blocks(uint32_t*, const uint8_t*, size_t) {
  return false;
}

#endif

}  // namespace cuzk::gadgets
