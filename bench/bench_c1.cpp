// C1 input parsing: a synthetic C1 output of a registered proof's full size (32 GiB: 10 partitions
// x 18 challenges, ~30 MB of JSON), parsed and validated; and the validation alone.
#include <benchmark/benchmark.h>

#include <string>

#include "filecoin/c1_output.hpp"
#include "filecoin/c1_synthetic.hpp"

namespace {

using namespace cuzk::filecoin;

const char* proof_name(int64_t i) {
  return i == 0 ? "StackedDrg2KiBV1_1" : "StackedDrg32GiBV1_1";
}

void BM_ParseC1(benchmark::State& state) {
  const auto c1 = make_synthetic_c1(registered_seal_proof(proof_name(state.range(0))));
  const std::string json = to_json(c1);
  for (auto _ : state) benchmark::DoNotOptimize(parse_c1_output(json));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.SetLabel(std::string(proof_name(state.range(0))) + ", " + std::to_string(json.size() >> 10) + " KiB");
}
BENCHMARK(BM_ParseC1)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ValidateC1(benchmark::State& state) {
  const auto c1 = make_synthetic_c1(registered_seal_proof(proof_name(state.range(0))));
  for (auto _ : state) validate_c1_output(c1);
  state.SetLabel(proof_name(state.range(0)));
}
BENCHMARK(BM_ValidateC1)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
