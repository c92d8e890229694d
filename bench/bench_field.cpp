// Field arithmetic micro-benchmarks for BLS12-381 Fr and Fq.
//
// "lat" runs one dependent chain (x = x*y), so the time per operation is the latency; "tput" runs
// 8 independent chains, so the time per operation is the reciprocal throughput. Every benchmark
// reports ns_per_op (the time of one field operation); its wall time column is per loop iteration.
//
// Paths: "Portable" is Fp::mont_mul_portable (the constexpr CIOS loop), "X86" is
// x86::mont_mul/mont_sqr (mulx/adcx/adox asm, only when built with CUZK_X86_ADX), "FpOps" is what
// the field type uses in this build (operator*, square()); add, sub and inverse are Fp's
// (inverse_binary: the reference binary extended Euclid that inverse() replaced).
//
// Run: build/bench/bench_field --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <array>

#include "ff/bls12_381.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ff;

namespace {

constexpr int kInner = 64;  // operations per chain per benchmark iteration
constexpr int kChains = 8;  // independent chains for the throughput runs

// A path is a class template over the field with a value type V and in-place x = x*y, x = x^2.
template <class F>
struct Portable {
  using V = typename F::LimbsT;
  static V from(const F& f) { return f.raw(); }
  static void mul(V& x, const V& y) { x = F::mont_mul_portable(x, y); }
  static void sqr(V& x) { x = F::mont_mul_portable(x, x); }
};

#if defined(CUZK_X86_ADX)
// The output aliases the input, as a kernel working on its own buffers calls it: no extra copy.
template <class F>
struct X86 {
  using V = typename F::LimbsT;
  static V from(const F& f) { return f.raw(); }
  static void mul(V& x, const V& y) { x86::mont_mul<F::N>(x.data(), x.data(), y.data(), F::MOD.data(), F::INV); }
  static void sqr(V& x) { x86::mont_sqr<F::N>(x.data(), x.data(), F::MOD.data(), F::INV); }
};
#endif

// Fp's own operators, written the way field code is written (x = x * y, x = x.square()):
// whatever this build dispatches to, plus the cost of Fp's value copies.
template <class F>
struct FpOps {
  using V = F;
  static V from(const F& f) { return f; }
  static void mul(V& x, const V& y) { x = x * y; }
  static void sqr(V& x) { x = x.square(); }
};

void set_per_op(benchmark::State& state, int ops_per_iter) {
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * ops_per_iter,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class F, template <class> class Path>
void BM_mul_lat(benchmark::State& state) {
  using P = Path<F>;
  Xoshiro256 rng(1);
  typename P::V x = P::from(F::random(rng));
  const typename P::V y = P::from(F::random(rng));
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) P::mul(x, y);
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner);
}

template <class F, template <class> class Path>
void BM_mul_tput(benchmark::State& state) {
  using P = Path<F>;
  Xoshiro256 rng(2);
  std::array<typename P::V, kChains> x;
  for (auto& v : x) v = P::from(F::random(rng));
  const typename P::V y = P::from(F::random(rng));
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) {
      for (int k = 0; k < kChains; ++k) P::mul(x[k], y);
    }
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner * kChains);
}

template <class F, template <class> class Path>
void BM_sqr_lat(benchmark::State& state) {
  using P = Path<F>;
  Xoshiro256 rng(3);
  typename P::V x = P::from(F::random(rng));
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) P::sqr(x);
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner);
}

template <class F, template <class> class Path>
void BM_sqr_tput(benchmark::State& state) {
  using P = Path<F>;
  Xoshiro256 rng(4);
  std::array<typename P::V, kChains> x;
  for (auto& v : x) v = P::from(F::random(rng));
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) {
      for (int k = 0; k < kChains; ++k) P::sqr(x[k]);
    }
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner * kChains);
}

template <class F>
void BM_add_lat(benchmark::State& state) {
  Xoshiro256 rng(5);
  F x = F::random(rng);
  const F y = F::random(rng);
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) x = x + y;
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner);
}

template <class F>
void BM_add_tput(benchmark::State& state) {
  Xoshiro256 rng(7);
  std::array<F, kChains> x;
  for (auto& v : x) v = F::random(rng);
  const F y = F::random(rng);
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) {
      for (int k = 0; k < kChains; ++k) x[k] = x[k] + y;
    }
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner * kChains);
}

template <class F>
void BM_sub_lat(benchmark::State& state) {
  Xoshiro256 rng(6);
  F x = F::random(rng);
  const F y = F::random(rng);
  for (auto _ : state) {
    for (int i = 0; i < kInner; ++i) x = x - y;
    benchmark::DoNotOptimize(x);
  }
  set_per_op(state, kInner);
}

template <class F, bool kBinary = false>
void BM_inverse(benchmark::State& state) {
  Xoshiro256 rng(8);
  std::array<F, 64> xs;
  for (auto& v : xs) v = F::random(rng);
  size_t i = 0;
  for (auto _ : state) {
    F r = kBinary ? xs[i++ & 63].inverse_binary() : xs[i++ & 63].inverse();
    benchmark::DoNotOptimize(r);
  }
  set_per_op(state, 1);
}

}  // namespace

#define CUZK_BENCH_PATH(F, Path)                                \
  BENCHMARK(BM_mul_lat<F, Path>)->Name(#F "/mul_lat/" #Path);   \
  BENCHMARK(BM_mul_tput<F, Path>)->Name(#F "/mul_tput/" #Path); \
  BENCHMARK(BM_sqr_lat<F, Path>)->Name(#F "/sqr_lat/" #Path);   \
  BENCHMARK(BM_sqr_tput<F, Path>)->Name(#F "/sqr_tput/" #Path)

CUZK_BENCH_PATH(Fr, Portable);
CUZK_BENCH_PATH(Fq, Portable);
#if defined(CUZK_X86_ADX)
CUZK_BENCH_PATH(Fr, X86);
CUZK_BENCH_PATH(Fq, X86);
#endif
CUZK_BENCH_PATH(Fr, FpOps);
CUZK_BENCH_PATH(Fq, FpOps);

BENCHMARK(BM_add_lat<Fr>)->Name("Fr/add_lat");
BENCHMARK(BM_add_tput<Fr>)->Name("Fr/add_tput");
BENCHMARK(BM_sub_lat<Fr>)->Name("Fr/sub_lat");
BENCHMARK(BM_inverse<Fr>)->Name("Fr/inverse");
BENCHMARK(BM_inverse<Fr, true>)->Name("Fr/inverse_binary");
BENCHMARK(BM_add_lat<Fq>)->Name("Fq/add_lat");
BENCHMARK(BM_add_tput<Fq>)->Name("Fq/add_tput");
BENCHMARK(BM_sub_lat<Fq>)->Name("Fq/sub_lat");
BENCHMARK(BM_inverse<Fq>)->Name("Fq/inverse");
BENCHMARK(BM_inverse<Fq, true>)->Name("Fq/inverse_binary");
