// NTT benchmarks over BLS12-381 Fr (src/poly): fft / ifft / coset_fft of 2^k points, on one thread
// (a private ThreadPool(1)) and on the global pool (all hardware threads). The argument is log2(n).
// "simd" rows use the AVX-512 IFMA kernels where the CPU has them (the default), "scalar" rows force
// the scalar kernels. Counters: "per_bfly" is the wall time per radix-2 butterfly (n/2 * log2 n of
// them; printed in seconds with an SI prefix, e.g. 6.5n = 6.5 ns), a size-independent figure of
// merit; "threads" is the pool size; "simd" whether the IFMA kernels ran.
#include <benchmark/benchmark.h>

#include <vector>

#include "poly/domain.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::poly;

namespace {

ThreadPool& serial_pool() {
  static ThreadPool pool(1);
  return pool;
}

enum class Op { Fft, Ifft, CosetFft };

template <Op op, bool kMulti, bool kSimd = true>
void BM_ntt(benchmark::State& state) {
  set_simd_enabled(kSimd);
  const unsigned k = static_cast<unsigned>(state.range(0));
  const size_t n = size_t{1} << k;
  ThreadPool& pool = kMulti ? ThreadPool::global() : serial_pool();
  Domain d = Domain::create(n, RootConvention::Zcash).value();
  std::vector<Fr> v(n);
  Xoshiro256 rng(k);
  for (auto& x : v) x = Fr::random(rng);
  for (auto _ : state) {
    switch (op) {
      case Op::Fft:
        d.fft(v, pool);
        break;
      case Op::Ifft:
        d.ifft(v, pool);
        break;
      case Op::CosetFft:
        d.coset_fft(v, pool);
        break;
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  const double bflies = static_cast<double>(n) / 2 * k;
  state.counters["per_bfly"] =
      benchmark::Counter(bflies, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["threads"] = pool.size();
  state.counters["simd"] = simd_active();
  set_simd_enabled(true);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(16)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
}

void size20(benchmark::internal::Benchmark* b) {
  b->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_ntt<Op::Fft, false>)->Name("fft/1thread")->Apply(sizes);
BENCHMARK(BM_ntt<Op::Fft, true>)->Name("fft/pool")->Apply(sizes);
BENCHMARK(BM_ntt<Op::Ifft, false>)->Name("ifft/1thread")->Apply(size20);
BENCHMARK(BM_ntt<Op::Ifft, true>)->Name("ifft/pool")->Apply(size20);
BENCHMARK(BM_ntt<Op::CosetFft, false>)->Name("coset_fft/1thread")->Apply(size20);
BENCHMARK(BM_ntt<Op::CosetFft, true>)->Name("coset_fft/pool")->Apply(size20);
BENCHMARK(BM_ntt<Op::Fft, false, false>)->Name("fft_scalar/1thread")->Arg(16)->Apply(size20);
BENCHMARK(BM_ntt<Op::Fft, true, false>)->Name("fft_scalar/pool")->Apply(size20);
