#pragma once
// The GPU MSM's sizing maths, free of CUDA: the window width it picks, its windows per pass, and
// the device bytes an engine grows to. Kept apart from msm_internal.hpp so that code with no CUDA
// (the streamed prover's plan, which the daemon and `cuzk doctor` run on any host) sizes an
// engine exactly as the engine sizes itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cuzk::gpu::msm_detail {

// Number of signed-digit windows of width c covering 256 bits (scalars < r < 2^255, so the top
// window never carries out).
#ifdef __CUDACC__
__host__ __device__
#endif
    constexpr unsigned
    num_windows(unsigned c) {
  return (256 + c - 1) / c;
}

// The window width minimizing windows * (additions into buckets + additions in the reduction).
inline unsigned choose_window_bits(size_t nontrivial) {
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= 22; ++c) {
    const double cost = num_windows(c) * (static_cast<double>(nontrivial) + static_cast<double>(1u << c));
    if (c == 2 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// Pairs sorted and accumulated in one pass when GpuMsmOptions::max_pairs_per_pass is 0: 2^29
// pairs are 8 GiB of sort keys and values. Without a window table the windows are independent
// and go through in passes of windows_per_pass of them, so the sort's keys and values (16 bytes
// per pair) stop growing with the number of windows: at 2^27 scalars 12 windows took 26 GiB of
// them at once, which left no room for the 32 GiB WindowPoSt prover's G2 MSM on an H200. (The
// bucket sets of all windows stay, for one reduction at the end.)
inline constexpr size_t kDefaultMaxPairsPerPass = size_t{1} << 29;
// Windows per pass for m scalars in W windows: passes = ceil(W / most that fit), evenly filled.
inline unsigned windows_per_pass(size_t m, unsigned W, size_t max_pairs) {
  if (max_pairs == 0) max_pairs = kDefaultMaxPairsPerPass;
  const size_t fit = m == 0 ? W : max_pairs / m;
  const unsigned most = static_cast<unsigned>(fit < 1 ? 1 : fit > W ? W : fit);
  const unsigned passes = (W + most - 1) / most;
  return (W + passes - 1) / passes;
}

// Device bytes one Msm engine grows to for n scalars (all of them other than 0 and 1: the worst
// case), `xyzz` bytes per XYZZ point (G1 192, G2 384), with window tables of width table_bits
// (0: none; then one bucket set of that width), `sms` multiprocessors at most, and passes bounded
// by max_pairs (GpuMsmOptions::max_pairs_per_pass; 0 = the default). Mirrors Msm<C>::Impl::run's
// buffers (XYZZ accumulation; the batch-affine tuning's round buffers are not counted).
inline uint64_t msm_scratch_bytes(uint64_t n, uint64_t xyzz, int sms, unsigned table_bits, size_t max_pairs = 0) {
  if (n == 0) return 0;
  const unsigned c = table_bits != 0 ? table_bits : choose_window_bits(n);
  const unsigned W = num_windows(c);
  const uint64_t B = uint64_t{1} << (c - 1);
  // Windows sorted and accumulated at once: all of them with a table, else a pass's worth.
  const uint64_t G = table_bits != 0 ? W : windows_per_pass(n, W, max_pairs);
  const uint64_t wave = static_cast<uint64_t>(std::max(sms, 1)) * 8 * 128;  // slices (at most one wave)
  uint64_t b = n * (32 + 4 + 4);                                            // nt_scal, nt_idx, one_idx
  b += 4 * G * n * 4;                                                       // keys and values, in and out
  b += (table_bits != 0 ? W : 1) * n * 8 + (uint64_t{16} << 20);            // radix sort temporary storage
  b += (table_bits != 0 ? 1 : W) * B * xyzz;                                // buckets: every window's
  b += wave * 2 * (xyzz + 8);                                               // slice heads and tails
  b += static_cast<uint64_t>(std::max(sms, 1)) * 256 * xyzz + (uint64_t{1} << 14) * xyzz;  // partials
  b += n / 8 * 2;                                                                          // density bitmap and prefix
  return b;
}

}  // namespace cuzk::gpu::msm_detail
