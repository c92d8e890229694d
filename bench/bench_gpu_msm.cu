// GPU MSM benchmark (plain main): device-resident bases, random scalars (no 0 or 1), median of
// several runs. Columns:
//   msm_ms   CUDA-event time from the scalars being on the device to the window sums on the host
//   e2e_ms   the same plus the scalar upload from pinned host memory (CUDA events)
//   wall_ms  host wall time of Msm::run (includes the CPU window combination)
//   Madd/s   mixed additions into buckets per second (W*n / msm time): the work floor is these
//            W*n additions (~11 Fq multiplications each) plus 2*W*2^(c-1) in the bucket reduction.
//   prep_ms / accum_ms / reduce_ms: msm_ms in phases (classify+recode+sort, bucket accumulation,
//            bucket and window reduction)
// Usage: bench_gpu_msm [max_log_g1 (default 26; 27 tries 2^27)] [max_log_g2 (default 24)] [runs (5)]
//                      [variants: comma-separated pXrZ[mL[aA[nN]]], e.g. p1r1024,p0r256m40,p1r256m0a1n3:
//                       prefetch X, Z reduction threads per SM, at most 2^L pairs per pass
//                       (GpuMsmOptions::max_pairs_per_pass; 0 or absent: the default), A = 1:
//                       batch-affine accumulation (gpu_msm_affine) with N rounds (0 or absent:
//                       auto); default: the engine's own choice, "" for it explicitly]
//   R (last column): batch-affine rounds (0: XYZZ accumulation)
//                      [table bits: then precompute a window table of that width and run again]
//                      [scalar orders, comma-separated (default random): random, or sorted: every
//                       window's digit grows with the scalar's index (1 + i * 2^(c-1) / n, the top
//                       window's within r), so the buckets are as full as with random scalars but the
//                       sorted pairs are in the bases' order and the accumulation reads the bases one
//                       after the other instead of at random; the accum_ms difference is what the
//                       random reads of the bases cost (#18 item 6: all that sharing them could save)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ec/msm.hpp"
#include "gpu/device.hpp"
#include "gpu/msm.hpp"
#include "util/thread_pool.hpp"
#include "util/tuning.hpp"

using namespace cuzk;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Uniform-ish random Montgomery scalars below r without a field multiplication per scalar:
// raw limbs with the top limb masked below r's top limb (any raw value < r is a valid element).
void fill_scalars(std::span<ff::Fr> out, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (auto& x : out) {
    ff::Limbs<4> l{rng(), rng(), rng(), rng() & 0x3fffffffffffffffull};
    x = ff::Fr::from_raw(l);
  }
}

// Scalars whose every window's signed digit is 1 + i * 2^(c-1) / n for index i (the top window,
// bits [c(W-1), 255), at most half its range, so that the value stays below r): no digit needs a
// borrow, each window's buckets hold n / 2^(c-1) pairs, and the stable sort leaves them in index
// order. Canonical values, converted to Montgomery form on the thread pool.
void fill_sorted_scalars(std::span<ff::Fr> out, unsigned c) {
  const size_t n = out.size();
  const unsigned windows = (256 + c - 1) / c, top_bits = 255 - c * (windows - 1) - 1;
  ThreadPool::global().parallel_chunks(n, size_t{1} << 16, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      ff::Limbs<4> l{};
      for (unsigned w = 0; w < windows; ++w) {
        const unsigned bits = w + 1 < windows ? c - 1 : top_bits;
        const uint64_t d = 1 + static_cast<uint64_t>((static_cast<unsigned __int128>(i) << bits) / n);
        const unsigned at = w * c;  // d < 2^22 fits in two limbs from any offset
        l[at / 64] |= d << (at % 64);
        if (at % 64 != 0 && at / 64 + 1 < 4) l[at / 64 + 1] |= d >> (64 - at % 64);
      }
      out[i] = ff::Fr::from_canonical(l);
    }
  });
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {""}.
std::vector<std::string> split_commas(const std::string& v) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos <= v.size();) {
    const size_t comma = std::min(v.find(',', pos), v.size());
    out.push_back(v.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

// Tuning variants to run ("" = the defaults), from argv[4]: a comma-separated list of pXrZ
// (prefetch 0/1, Z reduction threads per SM).
std::vector<std::string> g_variants{""};
// The variant's max_pairs_per_pass (0: the engine's default).
size_t g_max_pairs = 0;
// The variant's GpuMsmOptions::affine_rounds (0: auto).
unsigned g_affine_rounds = 0;
// argv[5]: after the variants, precompute a window table of this width and run again (0: no table).
unsigned g_table_bits = 0;
// argv[6]: the scalar orders to run (random, sorted).
std::vector<std::string> g_orders{"random"};

template <class C>
void bench_engine(const char* name, const gpu::DeviceBases<C>& bases, gpu::PinnedBuffer<ff::Fr>& scalars,
                  unsigned min_log, unsigned max_log, int runs, bool sorted);

template <class C>
void bench_group(const char* name, unsigned min_log, unsigned max_log, int runs) {
  const size_t max_n = size_t{1} << max_log;
  std::printf("# %s: generating 2^%u bases on the CPU...\n", name, max_log);
  std::fflush(stdout);
  std::unique_ptr<gpu::DeviceBases<C>> db;
  try {
    std::vector<ec::Affine<C>> host;
    if constexpr (std::is_same_v<C, ec::G1Config>)
      host = ec::g1_test_bases(max_n, 1);
    else
      host = ec::g2_test_bases(max_n, 1);
    const auto t0 = std::chrono::steady_clock::now();
    db = std::make_unique<gpu::DeviceBases<C>>(host);
    const double up = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("# %s: bases on the device: %.2f GB, upload %.0f ms\n", name, db->bytes() / 1e9, up);
  } catch (const std::exception& e) {
    std::printf("# %s: 2^%u bases do not fit or failed: %s\n", name, max_log, e.what());
    return;
  }
  gpu::PinnedBuffer<ff::Fr> scalars(max_n);
  fill_scalars(scalars.span(), 2);
  auto run_variants = [&] {
    for (const std::string& variant : g_variants) {
      if (!variant.empty()) {
        unsigned p = 1, r = 256, m = 0, a = 0, rounds = 0;
        std::sscanf(variant.c_str(), "p%ur%um%ua%un%u", &p, &r, &m, &a, &rounds);
        g_max_pairs = m == 0 ? 0 : size_t{1} << m;
        g_affine_rounds = rounds;
        Tuning t = tuning();
        t.gpu_msm_prefetch = p != 0;
        t.gpu_msm_reduce_threads = r;
        t.gpu_msm_affine = a != 0;
        set_tuning(t);
        std::printf("# %s variant %s: prefetch %u, reduction %u threads/SM, max pairs per pass %zu, %s accumulation\n",
                    name, variant.c_str(), p, r, g_max_pairs, a ? "batch-affine" : "XYZZ");
      }
      for (const std::string& order : g_orders) {
        if (order == "random") fill_scalars(scalars.span(), 2);
        std::printf("# %s scalars: %s\n", name, order.c_str());
        bench_engine<C>(name, *db, scalars, min_log, max_log, runs, order == "sorted");
      }
    }
  };
  run_variants();
  if (g_table_bits != 0) {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      db->precompute(g_table_bits);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("# %s: precomputed window table, c = %u: %.2f GB, built in %.0f ms\n", name, g_table_bits,
                  db->table_bytes() / 1e9, ms);
    } catch (const std::exception& e) {
      std::printf("# %s: window table c = %u failed: %s\n", name, g_table_bits, e.what());
      return;
    }
    run_variants();
  }
}

template <class C>
void bench_engine(const char* name, const gpu::DeviceBases<C>& bases, gpu::PinnedBuffer<ff::Fr>& scalars,
                  unsigned min_log, unsigned max_log, int runs, bool sorted) {
  const auto* db = &bases;
  gpu::Msm<C> engine;
  std::printf("%-3s %5s %11s %3s %3s %3s %9s %9s %9s %9s %8s %9s %9s %9s %2s\n", "grp", "log2n", "n", "c", "W", "P",
              "msm_ms", "e2e_ms", "wall_ms", "upload_ms", "Madd/s", "prep_ms", "accum_ms", "reduce_ms", "R");
  gpu::GpuMsmOptions opt;
  opt.max_pairs_per_pass = g_max_pairs;
  opt.affine_rounds = g_affine_rounds;
  std::vector<unsigned> logs;
  for (unsigned lg = min_log; lg <= max_log; lg += 2) logs.push_back(lg);
  if (logs.empty() || logs.back() != max_log) logs.push_back(max_log);
  for (unsigned lg : logs) {
    const size_t n = size_t{1} << lg;
    std::vector<double> msm, e2e, wall, upload, prep, accum, reduce;
    try {
      const std::span<const ff::Fr> k(scalars.data(), n);
      engine.run(db->view(0, n), k, opt);  // warm-up: scratch allocation (and, sorted, the width c)
      if (sorted) {
        fill_sorted_scalars(std::span<ff::Fr>(scalars.data(), n), engine.stats().window_bits);
        engine.run(db->view(0, n), k, opt);
      }
      for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        engine.run(db->view(0, n), k, opt);
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        const auto& st = engine.stats();
        msm.push_back(st.compute_ms);
        upload.push_back(st.upload_ms);
        e2e.push_back(st.compute_ms + st.upload_ms);
        prep.push_back(st.prepare_ms);
        accum.push_back(st.accumulate_ms);
        reduce.push_back(st.reduce_ms);
      }
    } catch (const std::exception& e) {
      std::printf("%-3s %5u %11zu  failed: %s\n", name, lg, n, e.what());
      continue;
    }
    const auto& st = engine.stats();
    const double madds = double(st.windows) * double(st.nontrivial) / (median(msm) * 1e-3) / 1e6;
    std::printf("%-3s %5u %11zu %3u %3u %3u %9.2f %9.2f %9.2f %9.2f %8.0f %9.2f %9.2f %9.2f %2u\n", name, lg, n,
                st.window_bits, st.windows, st.passes, median(msm), median(e2e), median(wall), median(upload), madds,
                median(prep), median(accum), median(reduce), st.affine_rounds);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned max_g1 = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 26;
  const unsigned max_g2 = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 24;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  if (argc > 4 && argv[4][0] != 0) {
    g_variants = split_commas(argv[4]);
    for (const std::string& one : g_variants) {
      unsigned p = 0, r = 0, m = 0, a = 0, rounds = 0;
      if (std::sscanf(one.c_str(), "p%ur%um%ua%un%u", &p, &r, &m, &a, &rounds) < 2 || m > 40 || a > 1 || rounds > 8) {
        std::fprintf(stderr,
                     "bench_gpu_msm: variant '%s' is not pXrZ[mL[aA[nN]]], L <= 40, A 0|1, N <= 8 (e.g. p1r1024m29, "
                     "p1r256m0a1n3)\n",
                     one.c_str());
        return 2;
      }
    }
  }
  if (argc > 5) g_table_bits = static_cast<unsigned>(std::atoi(argv[5]));
  if (argc > 6) {
    g_orders = split_commas(argv[6]);
    for (const std::string& one : g_orders) {
      if (one != "random" && one != "sorted") {
        std::fprintf(stderr, "bench_gpu_msm: scalar order '%s' is not random or sorted\n", one.c_str());
        return 2;
      }
    }
  }
  const auto scan = gpu::scan_devices();
  if (scan.devices.empty()) {
    std::printf("no CUDA device: %s\n", scan.unavailable_reason.c_str());
    return 0;
  }
  std::printf(
      "# bench_gpu_msm: %d runs per size, median; peer (sppark, same H200): G1 2^20 20.7 ms, 2^24 155 ms, "
      "2^26 559 ms; target G1 2^26 <= 350 ms\n",
      runs);
  if (max_g1 >= 20) bench_group<ec::G1Config>("G1", 20, max_g1, runs);
  if (max_g2 >= 20) bench_group<ec::G2Config>("G2", 20, max_g2, runs);
  return 0;
}
