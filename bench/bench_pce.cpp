// MatVec over a Pce on a synthetic Filecoin-like circuit of about 2^20 constraints (booleans, bit
// packing with ±2^i coefficients, XOR/AND/addition gadgets, a few Poseidon-like rows; witness
// mostly 0/1), recorded once with RecordingCS. Compares the specialised kernel (Auto) with the
// generic full-multiply one on the same matrices, on the dictionary (Dict8) and the Full encoding.
// items/s = non-zeros per second. The target is Auto/dict8 >= 3x Generic/dict8.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "../tests/pce_test_circuits.hpp"
#include "pce/build.hpp"
#include "pce/matvec.hpp"
#include "r1cs/r1cs.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::pce;

constexpr size_t kRounds = 6400;  // ~165 constraints per round: ~2^20

struct Fixture {
  Pce dict8, full;
  std::vector<Fr> inputs, aux;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    r1cs::RecordingCS rec;
    pce_test::filecoin_like(rec, 1, kRounds);
    rec.finalize();
    const r1cs::CompactR1cs r = std::move(rec).compact();
    f.dict8 = build_pce(r);
    BuildOptions full;
    full.encoding = CoeffEncoding::Full;
    f.full = build_pce(r, full);
    r1cs::ProvingCS p;
    pce_test::filecoin_like(p, 1, kRounds);
    p.finalize();
    f.inputs = p.inputs();
    f.aux = p.aux();
    // The benchmark is only meaningful if the kernels are right: check against full synthesis once.
    for (const Pce* pce : {&f.dict8, &f.full}) {
      for (MatVecKernel k : {MatVecKernel::Auto, MatVecKernel::Generic}) {
        MatVecOptions opt;
        opt.kernel = k;
        const MatVecResult res = matvec(*pce, f.inputs, f.aux, opt);
        if (res.a != p.a() || res.b != p.b() || res.c != p.c()) {
          std::fprintf(stderr, "bench_pce: MatVec %s/%s disagrees with ProvingCS\n", to_string(k),
                       to_string(pce->encoding()));
          std::abort();
        }
      }
    }
    const PceInfo& i = f.dict8.info();
    std::fprintf(stderr, "circuit: %llu constraints, %llu inputs, %llu aux, nnz A/B/C %llu/%llu/%llu, %llu coeffs\n",
                 static_cast<unsigned long long>(i.num_constraints), static_cast<unsigned long long>(i.num_inputs),
                 static_cast<unsigned long long>(i.num_aux), static_cast<unsigned long long>(i.nnz[0]),
                 static_cast<unsigned long long>(i.nnz[1]), static_cast<unsigned long long>(i.nnz[2]),
                 static_cast<unsigned long long>(i.dict_size));
    return f;
  }();
  return f;
}

// threads = 0: the global pool (all hardware threads).
void BM_MatVec(benchmark::State& st, MatVecKernel kernel, CoeffEncoding enc, unsigned threads) {
  const Fixture& f = fixture();
  const Pce& pce = enc == CoeffEncoding::Full ? f.full : f.dict8;
  std::unique_ptr<ThreadPool> local = threads ? std::make_unique<ThreadPool>(threads) : nullptr;
  MatVecOptions opt;
  opt.kernel = kernel;
  opt.pool = local.get();
  const size_t n = pce.num_constraints();
  std::vector<Fr> a(n), b(n), c(n);
  for (auto _ : st) {
    matvec(pce, f.inputs, f.aux, a, b, c, opt);
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(b.data());
    benchmark::DoNotOptimize(c.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * pce.info().nnz_total()));
  st.counters["threads"] = threads ? threads : ThreadPool::global().size();
}

BENCHMARK_CAPTURE(BM_MatVec, auto_dict8, MatVecKernel::Auto, CoeffEncoding::Dict8, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MatVec, generic_dict8, MatVecKernel::Generic, CoeffEncoding::Dict8, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MatVec, auto_full, MatVecKernel::Auto, CoeffEncoding::Full, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MatVec, generic_full, MatVecKernel::Generic, CoeffEncoding::Full, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MatVec, auto_dict8_1thread, MatVecKernel::Auto, CoeffEncoding::Dict8, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MatVec, generic_dict8_1thread, MatVecKernel::Generic, CoeffEncoding::Dict8, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
