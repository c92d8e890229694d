#pragma once
// The checksums of the .pce format (docs/pce-format.md, "Checksums"): XXH3-64 (seed 0, default
// secret) and the chunked tree hash built on it, which lets a multi-GiB section be hashed in
// parallel, chunk by chunk, while it is being read or written.
//
// xxHash is included header-only (XXH_INLINE_ALL), so binaries do not depend on libxxhash. Without
// -mavx2 xxHash compiles its SSE2 kernel (~20 GB/s per core); on x86-64 the AVX2 kernel (~45 GB/s)
// is compiled too and chosen at run time. Both give the same hash: XXH3 is defined bit-exactly.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>  // the AVX2 kernels below need the intrinsics declared first
#define CUZK_XXH3_AVX2 1
#define XXH_DISPATCH_AVX2 1
#define XXH_ACC_ALIGN 64  // the AVX2 (and, with -mavx512f, AVX-512) kernels load their accumulators aligned
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cuzk::checksum {

static_assert(std::endian::native == std::endian::little, "the .pce format is little-endian; so is this code");

// Sections are hashed in chunks of this many bytes (part of the file format).
inline constexpr uint64_t kChunkBytes = uint64_t{1} << 20;

#ifdef CUZK_XXH3_AVX2
namespace detail {
// XXH3_64bits' long-input path with the AVX2 kernels (what xxHash's own xxh_x86dispatch.c does).
__attribute__((__target__("avx2"))) inline uint64_t xxh3_long_avx2(const void* data, size_t len) {
  return XXH3_hashLong_64b_internal(data, len, XXH3_kSecret, sizeof(XXH3_kSecret), XXH3_accumulate_512_avx2,
                                    XXH3_scrambleAcc_avx2);
}
inline bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
}  // namespace detail
#endif

// XXH3-64 of `len` bytes, seed 0.
inline uint64_t xxh3_64(const void* data, size_t len) {
#ifdef CUZK_XXH3_AVX2
  if (len > XXH3_MIDSIZE_MAX && detail::have_avx2()) return detail::xxh3_long_avx2(data, len);
#endif
  return XXH3_64bits(data, len);
}

inline uint64_t num_chunks(uint64_t len) {
  return (len + kChunkBytes - 1) / kChunkBytes;
}

// The digests d_0..d_{n-1} of a section's chunks combined into its checksum: XXH3-64 over the
// digests as consecutive little-endian u64 (for an empty section n = 0: XXH3-64 of no bytes).
inline uint64_t combine(std::span<const uint64_t> digests) {
  return xxh3_64(digests.data(), digests.size() * 8);
}

// The checksum of `bytes`, computed serially (the loaders and the writer compute the same value
// with the chunks spread over threads).
inline uint64_t chunked(std::span<const std::byte> bytes) {
  std::vector<uint64_t> d(num_chunks(bytes.size()));
  for (size_t i = 0; i < d.size(); ++i) {
    const size_t begin = i * kChunkBytes;
    d[i] = xxh3_64(bytes.data() + begin, std::min<size_t>(kChunkBytes, bytes.size() - begin));
  }
  return combine(d);
}

}  // namespace cuzk::checksum
