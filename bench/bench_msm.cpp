// MSM benchmarks: G1 2^16 / 2^20 / 2^22 and G2 2^16 / 2^18, random scalars, one thread and the
// whole machine; and small MSMs, 2^0 to 2^12 (a small circuit's proof: chain:2^8 runs five of 2^8,
// where per-window bucket reductions used to be most of the work). Bases come from
// g1_test_bases/g2_test_bases (cheap to build) and are cached between benchmarks. Environment knobs
// for tuning: CUZK_MSM_PATH=jobs|shared (msm.hpp MsmPath), CUZK_MSM_C (window bits),
// CUZK_MSM_SPLITS, CUZK_MSM_BATCH, CUZK_MSM_JACOBIAN=1, CUZK_MSM_SIMD=0 (scalar Fq bucket additions
// instead of the AVX-512 IFMA kernel, ec/fq_ifma.hpp), CUZK_MSM_GLV=0 (no endomorphism split) or =1
// (split at every size; default: automatic, small MSMs only).
//
//   bench_msm --benchmark_filter='G1/20/threads:1'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ec/fq_ifma.hpp"
#include "ec/msm.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

const std::vector<Fr>& scalars(size_t n) {
  static std::vector<Fr> s;
  if (s.size() < n) {
    Xoshiro256 rng(77);
    s.resize(n);
    for (auto& x : s) x = Fr::random(rng);
  }
  return s;
}

template <class A>
const std::vector<A>& bases(size_t n) {
  static std::vector<A> b;
  if (b.size() < n) {
    if constexpr (std::is_same_v<A, G1Affine>) {
      b = g1_test_bases(n, 5);
    } else {
      b = g2_test_bases(n, 5);
    }
  }
  return b;
}

ThreadPool& pool(unsigned threads) {
  static std::map<unsigned, std::unique_ptr<ThreadPool>> pools;
  auto& p = pools[threads];
  if (!p) p = std::make_unique<ThreadPool>(threads);
  return *p;
}

MsmConfig env_config() {
  MsmConfig c;
  if (const char* v = std::getenv("CUZK_MSM_C")) c.window_bits = static_cast<unsigned>(std::atoi(v));
  if (const char* v = std::getenv("CUZK_MSM_SPLITS")) c.splits = static_cast<unsigned>(std::atoi(v));
  if (const char* v = std::getenv("CUZK_MSM_BATCH")) c.batch = static_cast<unsigned>(std::atoi(v));
  if (const char* v = std::getenv("CUZK_MSM_JACOBIAN")) c.jacobian_buckets = std::atoi(v) != 0;
  if (const char* v = std::getenv("CUZK_MSM_GLV"); v && std::atoi(v) == 1) c.endo = MsmEndo::kOn;
  if (const char* v = std::getenv("CUZK_MSM_PATH")) {
    const std::string p = v;
    c.path = p == "shared" ? MsmPath::kShared : p == "jobs" ? MsmPath::kJobs : MsmPath::kAuto;
  }
  return c;
}

template <class A>
void BM_msm(benchmark::State& st) {
  const size_t n = size_t{1} << st.range(0);
  const unsigned threads = st.range(1) ? static_cast<unsigned>(st.range(1)) : std::thread::hardware_concurrency();
  const auto& b = bases<A>(n);
  const auto& k = scalars(n);
  static const MsmConfig cfg = env_config();
  MsmOptions o;
  o.pool = &pool(threads);
  o.config = &cfg;
  const auto eff = msm_default_config(n, threads, !std::is_same_v<A, G1Affine>, cfg.endo, cfg.path);
  for (auto _ : st) {
    auto r = msm(std::span<const A>(b.data(), n), std::span<const Fr>(k.data(), n), o);
    benchmark::DoNotOptimize(r);
  }
  st.counters["threads"] = threads;
  st.counters["c"] = cfg.window_bits ? cfg.window_bits : eff.window_bits;
  st.counters["splits"] = cfg.splits ? cfg.splits : eff.splits;
  st.counters["simd"] = fq_ifma::active();
  st.counters["glv"] = eff.endo == MsmEndo::kOn;
  st.counters["shared"] = eff.path == MsmPath::kShared;
  st.counters["ns_per_point"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Arguments: {log2 n, threads (0 = all hardware threads)}.
BENCHMARK(BM_msm<G1Affine>)
    ->Name("G1")
    ->ArgNames({"log_n", "threads"})
    ->Args({16, 1})
    ->Args({20, 1})
    ->Args({16, 0})
    ->Args({17, 0})
    ->Args({18, 0})
    ->Args({20, 0})
    ->Args({22, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_msm<G2Affine>)
    ->Name("G2")
    ->ArgNames({"log_n", "threads"})
    ->Args({16, 1})
    ->Args({16, 0})
    ->Args({17, 0})
    ->Args({18, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
// Small MSMs, one thread and the whole machine (microseconds).
BENCHMARK(BM_msm<G1Affine>)
    ->Name("G1small")
    ->ArgNames({"log_n", "threads"})
    ->ArgsProduct({{0, 2, 4, 6, 8, 10, 12}, {1, 0}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_msm<G2Affine>)
    ->Name("G2small")
    ->ArgNames({"log_n", "threads"})
    ->ArgsProduct({{0, 2, 4, 6, 8, 10, 12}, {1, 0}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
