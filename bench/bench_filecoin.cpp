// SDR graph and label generation natively, and PoR / create_label synthesis under the backends
// (src/filecoin, src/gadgets).
#include <benchmark/benchmark.h>

#include <optional>

#include "filecoin/label.hpp"
#include "filecoin/stacked_graph.hpp"
#include "filecoin/test_circuits.hpp"
#include "gadgets/por.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using namespace cuzk::filecoin;
using namespace cuzk::gadgets;

// 14 parents of one node of a 32 GiB graph (2^30 nodes): DRG (ChaCha8) and expander (Feistel).
void BM_Parents32GiB(benchmark::State& state) {
  const StackedGraph g(uint64_t{1} << 30, porep_id_from_registered_proof(8), ApiVersion::V1_1_0);
  uint64_t node = 12345;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g.parents(node));
    node = (node * 6364136223846793005ULL + 1) & ((uint64_t{1} << 30) - 1);
  }
}
BENCHMARK(BM_Parents32GiB);

// All labels of a 2 KiB sector, 2 layers (128 SHA-256s of 1248 bytes).
void BM_Labels2KiB(benchmark::State& state) {
  const StackedGraph g(64, porep_id_from_registered_proof(5), ApiVersion::V1_1_0);
  std::array<uint8_t, 32> replica_id{};
  replica_id.fill(9);
  for (auto _ : state) benchmark::DoNotOptimize(generate_labels(g, replica_id, 2));
}
BENCHMARK(BM_Labels2KiB)->Unit(benchmark::kMillisecond);

// The SHA-256 arity-8 PoR of 64 leaves (250,987 constraints): recorded without values, and as a
// witness.
void BM_PorSha256RecordingCS(benchmark::State& state) {
  for (auto _ : state) {
    cuzk::r1cs::RecordingCS cs;
    por_circuit<Sha256Hasher>(cs, Root::val(std::nullopt), AuthPath::blank({8, 0, 0}, 64), Root::val(std::nullopt),
                              false);
    benchmark::DoNotOptimize(cs.num_constraints());
  }
}
BENCHMARK(BM_PorSha256RecordingCS)->Unit(benchmark::kMillisecond);

void BM_PorSha256WitnessCS(benchmark::State& state) {
  cuzk::Xoshiro256 rng(1);
  std::vector<Fr> leaves;
  for (size_t i = 0; i < 64; ++i) leaves.push_back(Fr::random(rng));
  const MerkleTree<Sha256Hasher> tree(leaves, {8, 0, 0});
  const MerkleProof p = tree.prove(37);
  for (auto _ : state) {
    cuzk::r1cs::WitnessCS cs;
    por_circuit<Sha256Hasher>(cs, Root::val(p.leaf), AuthPath::from_proof(p), Root::val(p.root), false);
    benchmark::DoNotOptimize(cs.num_aux());
  }
}
BENCHMARK(BM_PorSha256WitnessCS)->Unit(benchmark::kMillisecond);

}  // namespace
