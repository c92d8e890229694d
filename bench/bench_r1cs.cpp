// Cost of the circuit-writing API per backend, on a chain of squarings x_{i+1} = x_i^2 + x_i
// (one alloc and one enforce with a 2-term LC per step). BM_NativeChain is the same arithmetic
// without any constraint system: WitnessCS should match it, since its enforce and LC building
// compile away.
#include <benchmark/benchmark.h>

#include <vector>

#include "r1cs/r1cs.hpp"

namespace {

using namespace cuzk::r1cs;

template <ConstraintSystem CS>
void chain(CS& cs, size_t n, Fr x0) {
  Fr x = x0;
  Variable vx = cs.alloc([] { return "x0"; }, [&] { return x; });
  for (size_t i = 0; i < n; ++i) {
    auto ns = cs.namespace_([&] { return "step " + std::to_string(i); });
    const Fr next = x.square() + x;
    Variable vn = cs.alloc([] { return "x"; }, [&] { return next; });
    cs.enforce([] { return "x' = x * x + x"; }, [&](LC lc) { return lc + vx; },
               [&](LC lc) { return lc + vx + CS::one(); }, [&](LC lc) { return lc + vn; });
    x = next;
    vx = vn;
  }
}

constexpr size_t N = 1 << 16;

void BM_NativeChain(benchmark::State& st) {
  for (auto _ : st) {
    std::vector<Fr> out;
    Fr x = Fr::from_u64(3);
    out.push_back(x);
    for (size_t i = 0; i < N; ++i) {
      x = x.square() + x;
      out.push_back(x);
    }
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * N));
}

template <class CS>
void BM_Chain(benchmark::State& st) {
  for (auto _ : st) {
    CS cs;
    chain(cs, N, Fr::from_u64(3));
    cs.finalize();
    benchmark::DoNotOptimize(&cs);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * N));
}

// enforce alone on WitnessCS, with LCs that would be costly to build: should be ~0 ns.
void BM_WitnessEnforceOnly(benchmark::State& st) {
  WitnessCS cs;
  Variable a = cs.alloc([] { return "a"; }, [] { return Fr::one(); });
  for (auto _ : st) {
    cs.enforce([] { return std::string("a name that would allocate a heap string"); },
               [&](LC lc) { return lc + a + a + a + Fr::from_u64(7) * a; }, [&](LC lc) { return lc + Variable::one(); },
               [&](LC lc) { return lc + a; });
    benchmark::ClobberMemory();
  }
}

BENCHMARK(BM_NativeChain)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chain<WitnessCS>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chain<ProvingCS>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chain<RecordingCS>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chain<TestCS>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WitnessEnforceOnly);

}  // namespace
