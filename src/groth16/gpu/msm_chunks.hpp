#pragma once
// An MSM's scalars and bases cut into chunks for bases streamed to the device (ChunkedMsm,
// chunked_msm.hpp). Plain C++ (no CUDA): tested without a device.
//
// With a density bitmap (GpuMsmOptions::density, ec::MsmOptions::density: scalar i takes part iff
// bit i is set and then pairs with base popcount(bits < i)), chunks start on scalar indices that
// are multiples of 64, so that each chunk's density is a slice of whole words and its bases one
// contiguous range, found once here by running popcounts.
#include <cstdint>
#include <vector>

namespace cuzk::gpu {

// A piece of one MSM: scalars [scalar_first, scalar_first + scalar_count) and the bases they pair
// with, [base_first, base_first + base_count).
struct MsmChunk {
  uint64_t scalar_first = 0, scalar_count = 0;
  uint64_t base_first = 0, base_count = 0;
  std::vector<uint64_t> density;  // the chunk's words of the density bitmap (empty: dense)
};

// An MSM of n scalars (density: null when every scalar has its base) cut into chunks of at most
// max_bases bases (at least 64, one density word's worth), each starting on a multiple of 64
// scalars and at most 2^30 scalars long. Chunks without bases are left out. Throws
// std::invalid_argument when max_bases < 64 or the bitmap is shorter than n bits.
std::vector<MsmChunk> cut_msm(uint64_t n, const std::vector<uint64_t>* density, uint64_t max_bases);

}  // namespace cuzk::gpu
