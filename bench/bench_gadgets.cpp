// Witness-generation speed of the Filecoin gadgets: ns per Poseidon permutation natively (neptune's
// optimized form) and as neptune's legacy circuit under WitnessCS (the prover's witness path), and
// the same comparison for one SHA-256 compression (512 allocated bits). The gap between a native
// row and its WitnessCS row is what synthesis costs on top of the hash itself.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/num.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/poseidon_native.hpp"
#include "gadgets/poseidon_x8.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets/sha256_native.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using namespace cuzk::gadgets;
using cuzk::r1cs::WitnessCS;

std::vector<Fr> random_state(size_t n, uint64_t seed) {
  cuzk::Xoshiro256 rng(seed);
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

void BM_PoseidonNative(benchmark::State& st) {
  const size_t arity = static_cast<size_t>(st.range(0));
  const PoseidonConstants& c = poseidon_constants(arity);
  std::vector<Fr> state = random_state(c.width, 1);
  for (auto _ : st) {
    poseidon_permute_optimized(c, state);  // chained: each output feeds the next permutation
    benchmark::DoNotOptimize(state.data());
  }
}
BENCHMARK(BM_PoseidonNative)->Arg(2)->Arg(4)->Arg(8)->Arg(11)->Unit(benchmark::kNanosecond);

// Eight independent permutations per call (AVX-512 IFMA lanes, gadgets/poseidon_x8.hpp), as
// Merkle path checks use them; reported per permutation (items/s = permutations/s).
void BM_PoseidonNativeX8(benchmark::State& st) {
  const size_t arity = static_cast<size_t>(st.range(0));
  const PoseidonConstants& c = poseidon_constants(arity);
  std::vector<Fr> states = random_state(8 * c.width, 1);
  if (!poseidon_permute_x8(c, states, 8)) {
    st.SkipWithError("no AVX-512 IFMA on this CPU");
    return;
  }
  for (auto _ : st) {
    poseidon_permute_x8(c, states, 8);
    benchmark::DoNotOptimize(states.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * 8);
}
BENCHMARK(BM_PoseidonNativeX8)->Arg(2)->Arg(4)->Arg(8)->Arg(11)->Unit(benchmark::kNanosecond);

void BM_PoseidonNativeTextbook(benchmark::State& st) {
  const size_t arity = static_cast<size_t>(st.range(0));
  const PoseidonConstants& c = poseidon_constants(arity);
  std::vector<Fr> state = random_state(c.width, 1);
  for (auto _ : st) {
    poseidon_permute_correct(c, state);
    benchmark::DoNotOptimize(state.data());
  }
}
BENCHMARK(BM_PoseidonNativeTextbook)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kNanosecond);

// One hash per iteration; the preimage is allocated once, and the aux vector is cut back to it
// after each hash so that memory stays bounded (its capacity is kept, as in one long synthesis).
void BM_PoseidonWitnessCS(benchmark::State& st) {
  const size_t arity = static_cast<size_t>(st.range(0));
  const PoseidonConstants& c = poseidon_constants(arity);
  const std::vector<Fr> values = random_state(arity, 2);
  WitnessCS cs;
  std::vector<AllocatedNum> preimage;
  for (const Fr& v : values) preimage.push_back(AllocatedNum::alloc(cs, v));
  for (auto _ : st) {
    const AllocatedNum out = poseidon_hash_circuit(cs, preimage, c);
    benchmark::DoNotOptimize(out);
    st.counters["aux_per_hash"] = static_cast<double>(cs.num_aux() - arity);
    cs.aux().resize(arity);
  }
}
BENCHMARK(BM_PoseidonWitnessCS)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kNanosecond);

void BM_Sha256BlockNative(benchmark::State& st) {
  std::array<uint8_t, 64> block{};
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<uint8_t>(i * 7 + 1);
  Sha256State state = sha256_native_iv();
  for (auto _ : st) {
    sha256_native_compress(state, block);
    benchmark::DoNotOptimize(state);
  }
}
BENCHMARK(BM_Sha256BlockNative)->Unit(benchmark::kNanosecond);

// One compression of 512 allocated bits (bellperson's 25,840-constraint block) under WitnessCS.
void BM_Sha256BlockWitnessCS(benchmark::State& st) {
  WitnessCS cs;
  std::vector<Boolean> bits;
  cuzk::Xoshiro256 rng(3);
  for (size_t i = 0; i < 512; ++i) bits.push_back(AllocatedBit::alloc(cs, (rng() & 1) != 0));
  const std::vector<UInt32> iv = sha256_iv();
  for (auto _ : st) {
    auto out = sha256_compression_function(cs, bits, iv);
    benchmark::DoNotOptimize(out);
    st.counters["aux_per_block"] = static_cast<double>(cs.num_aux() - 512);
    cs.aux().resize(512);
  }
}
BENCHMARK(BM_Sha256BlockWitnessCS)->Unit(benchmark::kNanosecond);

// The floor under any SHA-256 witness: appending one block's 25,814 aux values (each Fr::one() or
// Fr::zero(), 32 bytes) to an aux vector whose capacity is kept, as WitnessCS::alloc does.
void BM_Sha256BlockAuxWriteFloor(benchmark::State& st) {
  constexpr size_t kAux = 25814;
  cuzk::Xoshiro256 rng(4);
  std::vector<uint8_t> bits(kAux);
  for (uint8_t& b : bits) b = static_cast<uint8_t>(rng() & 1);
  std::vector<Fr> aux;
  aux.reserve(kAux);
  for (auto _ : st) {
    aux.clear();
    for (uint8_t b : bits) aux.push_back(b != 0 ? Fr::one() : Fr::zero());
    benchmark::DoNotOptimize(aux.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Sha256BlockAuxWriteFloor)->Unit(benchmark::kNanosecond);

// The same block under the backends that do read the constraints: RecordingCS (structure only,
// no values) and ProvingCS (values plus A·z, B·z, C·z per constraint). Each iteration starts a
// fresh CS (these accumulate constraints), so it includes allocating the 512 input bits.
template <class CS>
void BM_Sha256BlockOtherCS(benchmark::State& st) {
  cuzk::Xoshiro256 rng(3);
  std::vector<bool> values(512);
  for (size_t i = 0; i < 512; ++i) values[i] = (rng() & 1) != 0;
  const std::vector<UInt32> iv = sha256_iv();
  for (auto _ : st) {
    CS cs;
    std::vector<Boolean> bits;
    bits.reserve(512);
    for (size_t i = 0; i < 512; ++i) bits.push_back(AllocatedBit::alloc(cs, values[i]));
    auto out = sha256_compression_function(cs, bits, iv);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK_TEMPLATE(BM_Sha256BlockOtherCS, cuzk::r1cs::RecordingCS)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Sha256BlockOtherCS, cuzk::r1cs::ProvingCS)->Unit(benchmark::kNanosecond);

}  // namespace
