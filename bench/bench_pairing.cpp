// BLS12-381 pairing: Miller loop, final exponentiation, full pairing, prepared-G2 Miller loop, and
// a multi-pairing of 4 (one shared Miller loop and one final exponentiation), plus the Fq12
// operations they are built from.
#include <benchmark/benchmark.h>

#include <utility>
#include <vector>

#include "ec/pairing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

std::pair<G1Affine, G2Affine> random_pair(Xoshiro256& rng) {
  return {G1(g1_generator()).mul(Fr::random(rng)).to_affine(), G2(g2_generator()).mul(Fr::random(rng)).to_affine()};
}

void BM_Fq12Mul(benchmark::State& st) {
  Xoshiro256 rng(1);
  Fq12 a = Fq12::random(rng), b = Fq12::random(rng);
  for (auto _ : st) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fq12Mul);

void BM_Fq12Square(benchmark::State& st) {
  Xoshiro256 rng(2);
  Fq12 a = Fq12::random(rng);
  for (auto _ : st) {
    a = a.square();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fq12Square);

void BM_Fq12CyclotomicSquare(benchmark::State& st) {
  Xoshiro256 rng(3);
  Fq12 a = final_exponentiation(Fq12::random(rng));
  for (auto _ : st) {
    a = a.cyclotomic_square();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fq12CyclotomicSquare);

void BM_Fq12CompressedSquare(benchmark::State& st) {
  Xoshiro256 rng(13);
  Fq12::Compressed c = final_exponentiation(Fq12::random(rng)).compress();
  for (auto _ : st) {
    c = Fq12::compressed_square(c);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Fq12CompressedSquare);

void BM_Fq12MulBy014(benchmark::State& st) {
  Xoshiro256 rng(4);
  Fq12 a = Fq12::random(rng);
  Fq2 d0 = Fq2::random(rng), d1 = Fq2::random(rng), d4 = Fq2::random(rng);
  for (auto _ : st) {
    a = a.mul_by_014(d0, d1, d4);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fq12MulBy014);

void BM_Fq12Inverse(benchmark::State& st) {
  Xoshiro256 rng(5);
  Fq12 a = Fq12::random(rng);
  for (auto _ : st) {
    a = a.inverse();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fq12Inverse);

void BM_MillerLoop(benchmark::State& st) {
  Xoshiro256 rng(6);
  auto [p, q] = random_pair(rng);
  for (auto _ : st) benchmark::DoNotOptimize(miller_loop(p, q));
}
BENCHMARK(BM_MillerLoop)->Unit(benchmark::kMicrosecond);

void BM_MillerLoopPrepared(benchmark::State& st) {
  Xoshiro256 rng(7);
  auto [p, q] = random_pair(rng);
  const G2Prepared prep(q);
  for (auto _ : st) benchmark::DoNotOptimize(miller_loop(p, prep));
}
BENCHMARK(BM_MillerLoopPrepared)->Unit(benchmark::kMicrosecond);

void BM_G2Prepare(benchmark::State& st) {
  Xoshiro256 rng(8);
  auto [p, q] = random_pair(rng);
  for (auto _ : st) benchmark::DoNotOptimize(G2Prepared(q));
}
BENCHMARK(BM_G2Prepare)->Unit(benchmark::kMicrosecond);

void BM_FinalExponentiation(benchmark::State& st) {
  Xoshiro256 rng(9);
  auto [p, q] = random_pair(rng);
  const Fq12 f = miller_loop(p, q);
  for (auto _ : st) benchmark::DoNotOptimize(final_exponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

void BM_Pairing(benchmark::State& st) {
  Xoshiro256 rng(10);
  auto [p, q] = random_pair(rng);
  for (auto _ : st) benchmark::DoNotOptimize(pairing(p, q));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

void BM_MultiPairing4(benchmark::State& st) {
  Xoshiro256 rng(11);
  std::vector<std::pair<G1Affine, G2Affine>> terms;
  for (int i = 0; i < 4; ++i) terms.push_back(random_pair(rng));
  for (auto _ : st) benchmark::DoNotOptimize(multi_pairing(terms));
}
BENCHMARK(BM_MultiPairing4)->Unit(benchmark::kMicrosecond);

void BM_MultiPairing4Prepared(benchmark::State& st) {
  Xoshiro256 rng(12);
  std::vector<std::pair<G1Affine, G2Affine>> raw;
  for (int i = 0; i < 4; ++i) raw.push_back(random_pair(rng));
  std::vector<G2Prepared> preps;
  for (const auto& t : raw) preps.emplace_back(t.second);
  std::vector<std::pair<G1Affine, const G2Prepared*>> terms;
  for (size_t i = 0; i < raw.size(); ++i) terms.emplace_back(raw[i].first, &preps[i]);
  for (auto _ : st) benchmark::DoNotOptimize(multi_pairing(terms));
}
BENCHMARK(BM_MultiPairing4Prepared)->Unit(benchmark::kMicrosecond);

}  // namespace
