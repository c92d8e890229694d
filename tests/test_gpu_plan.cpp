// The streamed device prover's plan and MSM chunks, without a device (label cpu):
//   - the 32 GiB PoRep partition (exact counts: docs/porep-c2.md, the 32 GiB key's sections) at
//     caps of 10, 16, 24, 40 and 80 GiB: the arrangement, its memory under the cap, the predicted
//     PCIe bytes per partition, and the smallest workable cap (fits at it, not one byte below);
//   - the formulas of each arrangement, forced modes and chunks, G2 on the CPU, two witnesses a pass;
//   - cut_msm: dense and density chunks on 64-scalar boundaries whose bases follow the popcounts;
//     the chunks' MSMs (the CPU's ec::msm, whose density semantics the GPU engine shares) sum to
//     the whole MSM.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <random>

#include "ec/msm.hpp"
#include "groth16/gpu/msm_chunks.hpp"
#include "groth16/gpu/streamed_plan.hpp"
#include "pce/pce.hpp"
#include "porep32_shape.hpp"
#include "util/rng.hpp"

namespace {

using namespace cuzk;
using gpu::StreamedMode;

using test::kGiB;
using test::porep32_key;
using test::porep32_shape;

TEST(StreamedPlan, Porep32GiBAtEachCap) {
  const auto key = porep32_key();
  const auto shape = porep32_shape();
  EXPECT_NEAR(static_cast<double>(shape.pce_bytes), 5.2e9, 0.05e9);  // the 4.85 GiB file's sections
  struct Want {
    uint64_t cap_gib;
    bool fits;
    StreamedMode mode;
  };
  for (const Want& w : {Want{10, true, StreamedMode::host2}, Want{16, true, StreamedMode::stream2},
                        Want{24, true, StreamedMode::stream2}, Want{40, true, StreamedMode::pce3},
                        Want{80, true, StreamedMode::pce3}}) {
    const gpu::StreamedPlan p = gpu::plan_streamed(key, shape, w.cap_gib * kGiB);
    std::printf("%3llu GiB: %s\n", static_cast<unsigned long long>(w.cap_gib), p.describe().c_str());
    SCOPED_TRACE(p.describe());
    EXPECT_EQ(p.fits, w.fits);
    EXPECT_EQ(p.mode, w.mode);
    EXPECT_TRUE(std::has_single_bit(p.chunk_points));
    EXPECT_EQ(p.g2_chunk_points, p.chunk_points / 2);
    if (!p.fits) continue;
    EXPECT_LE(p.memory.total(), w.cap_gib * kGiB);
    EXPECT_GE(p.chunk_points, gpu::kGoodChunk);
    // Bases (47.4 GB with G2) and z (4.2 GB) every partition; a, b, c (12.5 GB) with MatVec on the
    // host, the PCE (5.2 GB) when it is streamed.
    const double extra = p.mode == StreamedMode::host2     ? 3.0 * 130278869 * 32
                         : p.mode == StreamedMode::stream2 ? static_cast<double>(shape.pce_bytes)
                                                           : 0;
    EXPECT_EQ(p.host_pinned_bytes, p.mode == StreamedMode::host2     ? uint64_t{3} * 130278869 * 32
                                   : p.mode == StreamedMode::stream2 ? shape.pce_bytes
                                                                     : 0);
    EXPECT_NEAR(static_cast<double>(p.h2d_bytes_per_partition), 47.374e9 + 4.165e9 + extra, 0.1e9);
  }
  // The floor: two domain vectors (8 GiB at m = 2^27), the smallest chunk's buffers and engines;
  // with the twiddles as one table of m/2 elements 2 GiB more, and a 10 GiB cap does not fit.
  const gpu::StreamedPlan p10 = gpu::plan_streamed(key, shape, 10 * kGiB);
  EXPECT_GT(p10.smallest_cap, 8 * kGiB + gpu::streamed_memory(shape, StreamedMode::host2, gpu::kMinChunk).chunks);
  EXPECT_LT(p10.smallest_cap, 9 * kGiB);
  EXPECT_EQ(p10.chunk_points, gpu::kGoodChunk);
  const gpu::StreamedPlan table = gpu::plan_streamed(key, shape, 10 * kGiB, {.compact_twiddles = false});
  EXPECT_FALSE(table.fits);
  EXPECT_EQ(table.chunk_points, gpu::kMinChunk);
  EXPECT_EQ(table.smallest_cap - p10.smallest_cap, (uint64_t{1} << 26) * 32);
  EXPECT_LT(table.smallest_cap, 11 * kGiB);
  // The largest cap takes the largest chunk, and the one twiddle table (a faster H) since it fits;
  // at 16 GiB only the two small tables let stream2 fit.
  EXPECT_EQ(gpu::plan_streamed(key, shape, 80 * kGiB).chunk_points, gpu::kMaxChunk);
  EXPECT_FALSE(gpu::plan_streamed(key, shape, 80 * kGiB).compact_twiddles);
  EXPECT_GE(gpu::plan_streamed(key, shape, 80 * kGiB).memory.twiddles, (uint64_t{1} << 26) * 32);
  EXPECT_TRUE(gpu::plan_streamed(key, shape, 16 * kGiB).compact_twiddles);
  EXPECT_TRUE(p10.compact_twiddles);
}

TEST(StreamedPlan, SmallestCapIsExact) {
  const auto key = porep32_key();
  const auto shape = porep32_shape();
  for (bool g2 : {true, false}) {
    SCOPED_TRACE(g2 ? "G2 on the GPU" : "G2 on the CPU");
    const gpu::StreamedPlanOptions o{.b_g2_on_gpu = g2};
    const uint64_t s = gpu::plan_streamed(key, shape, 0, o).smallest_cap;
    EXPECT_TRUE(gpu::plan_streamed(key, shape, s, o).fits);
    EXPECT_FALSE(gpu::plan_streamed(key, shape, s - 1, o).fits);
    EXPECT_EQ(gpu::plan_streamed(key, shape, s, o).mode, StreamedMode::host2);
    std::printf("smallest workable cap, 32 GiB PoRep, %s: %s\n", g2 ? "G2 on the GPU" : "G2 on the CPU",
                gpu::format_gib(s).c_str());
  }
  // Without the G2 engine and chunks the floor is lower, and no G2 bases cross PCIe.
  const auto with = gpu::plan_streamed(key, shape, 16 * kGiB);
  const auto without = gpu::plan_streamed(key, shape, 16 * kGiB, {.b_g2_on_gpu = false});
  EXPECT_LT(without.smallest_cap, with.smallest_cap);
  EXPECT_EQ(without.g2_chunk_points, 0u);
  EXPECT_EQ(with.h2d_bytes_per_partition - without.h2d_bytes_per_partition,
            key.b_g2 * 192 + (130169893 / 64 + 1 + 328 / 64 + 1) * 12);
}

TEST(StreamedPlan, ArrangementFormulas) {
  const auto shape = porep32_shape();
  const uint64_t m = uint64_t{1} << 27, d = 32 * m, z = 32 * shape.columns();
  for (unsigned w : {1u, 2u}) {
    const gpu::StreamedPlanOptions o{.witnesses_per_pass = w};
    const auto pce3 = gpu::streamed_memory(shape, StreamedMode::pce3, 1 << 20, o);
    const auto pce2 = gpu::streamed_memory(shape, StreamedMode::pce2, 1 << 20, o);
    const auto host2 = gpu::streamed_memory(shape, StreamedMode::host2, 1 << 20, o);
    const auto stream2 = gpu::streamed_memory(shape, StreamedMode::stream2, 1 << 20, o);
    EXPECT_EQ(stream2.vectors, pce2.vectors);
    EXPECT_EQ(stream2.pce, 2 * gpu::kPceBlockBytes);  // the staging ring instead of the PCE
    EXPECT_EQ(pce3.vectors, 2 * d + w * (d + z));
    EXPECT_EQ(pce2.vectors, d + w * (d + z));
    EXPECT_EQ(host2.vectors, w * 2 * d);
    EXPECT_EQ(pce3.pce, shape.pce_bytes);
    EXPECT_EQ(host2.pce, 0u);
    EXPECT_EQ(pce2.chunks, 3 * (uint64_t{1} << 20) * 96);  // a ring of three
    EXPECT_LT(pce2.twiddles, 16u << 20);                   // compact: two small tables and the coset power tables
    EXPECT_EQ(gpu::streamed_memory(shape, StreamedMode::pce2, 1 << 20, {.compact_twiddles = false}).twiddles,
              pce2.twiddles + m / 2 * 32);
    EXPECT_EQ(pce3.msm_scratch, host2.msm_scratch);
  }
  // Two witnesses a pass: each base crosses once for both.
  const auto key = porep32_key();
  const auto one = gpu::plan_streamed(key, shape, 80 * kGiB);
  const auto two = gpu::plan_streamed(key, shape, 80 * kGiB, {.witnesses_per_pass = 2});
  ASSERT_TRUE(two.fits);
  EXPECT_LT(two.h2d_bytes_per_partition, one.h2d_bytes_per_partition - 20 * 1000000000ull);
}

TEST(StreamedPlan, ForcedModeAndChunk) {
  const auto key = porep32_key();
  const auto shape = porep32_shape();
  const auto p = gpu::plan_streamed(key, shape, 80 * kGiB, {.mode = StreamedMode::host2, .chunk_points = 4096});
  EXPECT_TRUE(p.fits);
  EXPECT_EQ(p.mode, StreamedMode::host2);
  EXPECT_EQ(p.chunk_points, 4096u);
  EXPECT_EQ(p.g2_chunk_points, 2048u);
  EXPECT_EQ(p.smallest_cap, gpu::streamed_memory(shape, StreamedMode::host2, 4096).total());
  EXPECT_FALSE(gpu::plan_streamed(key, shape, 20 * kGiB, {.mode = StreamedMode::pce3}).fits);
  // Below 128 bases a G2 chunk keeps 64 (one density word) and sets the buffers' size.
  const auto tiny = gpu::plan_streamed(key, shape, 80 * kGiB, {.mode = StreamedMode::host2, .chunk_points = 64});
  EXPECT_EQ(tiny.g2_chunk_points, 64u);
  EXPECT_EQ(tiny.memory.chunks, 3 * 64 * 192u);
  EXPECT_EQ(gpu::chunk_buffer_bytes(64, false), 64 * 96u);
  EXPECT_THROW(gpu::plan_streamed(key, shape, 80 * kGiB, {.chunk_points = 63}), std::invalid_argument);
  EXPECT_THROW(gpu::plan_streamed(key, shape, 80 * kGiB, {.buffers = 1}), std::invalid_argument);
  // A ring of four buffers holds twice the chunk bytes of two.
  const auto two = gpu::plan_streamed(key, shape, 80 * kGiB, {.chunk_points = 1 << 24, .buffers = 2});
  EXPECT_EQ(two.memory.chunks, 2 * (uint64_t{1} << 24) * 96);
  const auto four = gpu::plan_streamed(key, shape, 80 * kGiB, {.chunk_points = 1 << 24, .buffers = 4});
  EXPECT_EQ(four.memory.chunks, 4 * (uint64_t{1} << 24) * 96);
  EXPECT_EQ(four.buffers, 4u);
  EXPECT_THROW(gpu::plan_streamed(key, shape, 80 * kGiB, {.witnesses_per_pass = 0}), std::invalid_argument);
}

TEST(StreamedPlan, SmallCircuitTakesOneChunk) {
  // chain:2^12-like: every MSM fits one chunk, the chunk the next power of two of the largest.
  const groth16::KeySizes key{.ic = 2, .h = 4095, .l = 4000, .a = 3000, .b_g1 = 1000, .b_g2 = 1000};
  const gpu::StreamedShape shape{2, 4000, 4000, 1 << 20};
  const auto p = gpu::plan_streamed(key, shape, kGiB);
  EXPECT_TRUE(p.fits);
  EXPECT_EQ(p.mode, StreamedMode::pce3);
  EXPECT_EQ(p.chunk_points, 4096u);
  EXPECT_EQ(p.smallest_cap, gpu::streamed_memory(shape, StreamedMode::host2, 4096).total());
}

// The chunks of an MSM against a direct walk over the bitmap.
void check_chunks(uint64_t n, const std::vector<uint64_t>* density, uint64_t max_bases) {
  const std::vector<gpu::MsmChunk> chunks = gpu::cut_msm(n, density, max_bases);
  auto bit = [&](uint64_t i) { return density == nullptr || (((*density)[i / 64] >> (i % 64)) & 1) != 0; };
  uint64_t next_scalar = 0, next_base = 0;
  for (const gpu::MsmChunk& c : chunks) {
    EXPECT_EQ(c.scalar_first % 64, 0u);
    EXPECT_GE(c.scalar_first, next_scalar);
    EXPECT_GT(c.base_count, 0u);
    EXPECT_LE(c.base_count, max_bases);
    for (uint64_t i = next_scalar; i < c.scalar_first; ++i) EXPECT_FALSE(bit(i)) << "a skipped scalar has a base";
    uint64_t bases = 0;
    for (uint64_t i = c.scalar_first; i < c.scalar_first + c.scalar_count; ++i) bases += bit(i);
    EXPECT_EQ(c.base_first, next_base);
    EXPECT_EQ(c.base_count, bases);
    if (density) {
      ASSERT_EQ(c.density.size(), (c.scalar_count + 63) / 64);
      for (size_t k = 0; k < c.density.size(); ++k) EXPECT_EQ(c.density[k], (*density)[c.scalar_first / 64 + k]);
    } else {
      EXPECT_TRUE(c.density.empty());
    }
    next_scalar = c.scalar_first + c.scalar_count;
    next_base += bases;
  }
  for (uint64_t i = next_scalar; i < n; ++i) EXPECT_FALSE(bit(i)) << "a scalar after the last chunk has a base";
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) total += bit(i);
  EXPECT_EQ(next_base, total);
}

TEST(MsmChunks, DenseAndDensityChunksFollowThePopcounts) {
  std::mt19937_64 rng(5);
  for (uint64_t n : {0ull, 1ull, 63ull, 64ull, 65ull, 1000ull, 4096ull, 10007ull}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for (uint64_t cap : {64ull, 100ull, 128ull, 1000ull, 1ull << 20}) {
      check_chunks(n, nullptr, cap);
      // Sparse, half and full densities, with empty stretches and garbage past n in the last word.
      for (int fill : {5, 50, 100}) {
        std::vector<uint64_t> d((n + 63) / 64 + 1);
        for (uint64_t& word : d) {
          uint64_t v = 0;
          for (int b = 0; b < 64; ++b) v |= uint64_t{static_cast<int>(rng() % 100) < fill} << b;
          word = v;
        }
        if (d.size() > 3) d[1] = 0, d[2] = 0;
        check_chunks(n, &d, cap);
      }
    }
  }
  std::vector<uint64_t> short_bitmap(1);
  EXPECT_THROW(gpu::cut_msm(65, &short_bitmap, 64), std::invalid_argument);
  EXPECT_THROW(gpu::cut_msm(65, nullptr, 63), std::invalid_argument);
}

// The streamed prover sums each chunk's MSM (its bases, scalars and density slice) and adds them:
// the same as the whole MSM, with scalars 0, 1 and random, a sparse density with empty words.
TEST(MsmChunks, ChunkSumsAddUpToTheWholeMsm) {
  Xoshiro256 rng(9);
  const uint64_t n = 3000;
  std::vector<ec::Fr> scalars(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t kind = rng() % 4;
    scalars[i] = kind == 0 ? ec::Fr::zero() : kind == 1 ? ec::Fr::one() : ec::Fr::random(rng);
  }
  std::vector<uint64_t> density((n + 63) / 64);
  for (uint64_t& w : density) w = rng() & rng();  // about a quarter of the bits
  density[3] = density[4] = 0;
  uint64_t set = 0;
  for (uint64_t i = 0; i < n; ++i) set += (density[i / 64] >> (i % 64)) & 1;
  const std::vector<ec::G1Affine> bases = ec::g1_test_bases(std::max(set, n), 3);
  for (bool with_density : {false, true}) {
    const std::vector<uint64_t>* d = with_density ? &density : nullptr;
    const std::span<const ec::G1Affine> all(bases.data(), with_density ? set : n);
    const ec::G1 want = ec::msm(all, scalars, {.density = d});
    for (uint64_t cap : {64ull, 200ull, 1000ull}) {
      ec::G1 got = ec::G1::identity();
      for (const gpu::MsmChunk& c : gpu::cut_msm(n, d, cap)) {
        const std::vector<uint64_t>* cd = c.density.empty() ? nullptr : &c.density;
        got += ec::msm(all.subspan(c.base_first, c.base_count),
                       std::span<const ec::Fr>(scalars).subspan(c.scalar_first, c.scalar_count), {.density = cd});
      }
      EXPECT_EQ(got.to_affine(), want.to_affine()) << (with_density ? "density" : "dense") << ", chunks of " << cap;
    }
  }
}

}  // namespace
