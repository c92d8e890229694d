// cut_msm (msm_chunks.hpp).
#include "groth16/gpu/msm_chunks.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::gpu {

namespace {

// At most this many scalars per call (Msm takes fewer than 2^31).
constexpr uint64_t kMaxChunkScalars = uint64_t{1} << 30;

std::vector<MsmChunk> cut_dense(uint64_t n, uint64_t max_bases) {
  const uint64_t step = std::min(max_bases / 64 * 64, kMaxChunkScalars);
  std::vector<MsmChunk> out;
  for (uint64_t lo = 0; lo < n; lo += step) {
    const uint64_t count = std::min(step, n - lo);
    out.push_back({lo, count, lo, count, {}});
  }
  return out;
}

}  // namespace

std::vector<MsmChunk> cut_msm(uint64_t n, const std::vector<uint64_t>* density, uint64_t max_bases) {
  if (max_bases < 64)
    throw std::invalid_argument("cut_msm: a chunk holds at least 64 bases, got " + std::to_string(max_bases));
  if (!density) return cut_dense(n, max_bases);
  const uint64_t words = (n + 63) / 64;
  if (density->size() < words)
    throw std::invalid_argument("cut_msm: the density bitmap has " + std::to_string(density->size()) + " words, " +
                                std::to_string(n) + " scalars need " + std::to_string(words));
  std::vector<MsmChunk> out;
  MsmChunk cur;
  uint64_t w0 = 0, bases = 0;  // cur's first word; bases before word k
  auto close = [&](uint64_t end_word, uint64_t end_scalar) {
    cur.scalar_count = end_scalar - cur.scalar_first;
    cur.density.assign(density->begin() + static_cast<std::ptrdiff_t>(w0),
                       density->begin() + static_cast<std::ptrdiff_t>(end_word));
    out.push_back(std::move(cur));
  };
  for (uint64_t k = 0; k < words; ++k) {
    uint64_t word = (*density)[k];
    if (k == words - 1 && n % 64 != 0) word &= (uint64_t{1} << (n % 64)) - 1;
    const uint64_t pop = static_cast<uint64_t>(std::popcount(word));
    if (cur.base_count == 0) {
      // Nothing taken yet: the chunk starts here (leading words without bases are skipped).
      cur = MsmChunk{k * 64, 0, bases, 0, {}};
      w0 = k;
    } else if (cur.base_count + pop > max_bases || (k - w0 + 1) * 64 > kMaxChunkScalars) {
      close(k, k * 64);
      cur = MsmChunk{k * 64, 0, bases, 0, {}};
      w0 = k;
    }
    cur.base_count += pop;
    bases += pop;
  }
  if (cur.base_count > 0) close(words, n);
  return out;
}

}  // namespace cuzk::gpu
