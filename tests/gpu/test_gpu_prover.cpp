// The GPU prover backend against the CPU prover (label gpu; skipped without a device):
//   - built-in circuits 2^10..2^14, 0/1-heavy (filecoin-like) and full-width (chain) witnesses:
//     each of the five MSM sums equals the CPU's, and with the same r, s the proof's bytes are
//     identical; the verifier accepts it; the same with the G2 MSM on the CPU, with window tables,
//     and with H run before the MSMs instead of beside them;
//   - several witnesses through one GpuProver (device buffers reused), and from three threads at
//     once through two witness slots; a prover without a Pce
//     (shape only) proves from host a, b, c;
//   - wrong witness sizes are rejected and the prover stays usable;
//   - an injected device failure is retried on the CPU (the retry policy, one device) with the
//     same proof, and the GPU proves the next witness;
//   - BatchProver(auto) picks the GPU; with two or more devices, witnesses spread over them;
//   - the bases streamed from a .params file window by window equal the key in memory;
//   - the snarkjs convention (tests/zkey/{mul3,mix}.zkey): GpuZkeyProver + zkey_finalize equals
//     groth16::prove_zkey for the same r, s and verifies; BatchProver retries an injected failure
//     on the CPU. (CUZK_VECTORS_DIR=<repo>/tests/vectors where the source tree moved.)
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "../builtin_fixture.hpp"
#include "backend/batch_prover.hpp"
#include "backend/device_platform.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/verifier.hpp"
#include "groth16/zkey.hpp"
#include "msms_check.hpp"
#include "r1cs/circom_wtns.hpp"
#include "require_gpu.hpp"

namespace {

using namespace cuzk;
using test::builtin_fixture;

using test::cpu_stage1;
using test::expect_same_msms;

using Case = std::tuple<std::string, unsigned>;  // kind, log2 constraints

class GpuProverCircuits : public ::testing::TestWithParam<Case> {
 protected:
  const test::BuiltinFixture& fixture() const {
    return builtin_fixture(std::get<0>(GetParam()) + ":2^" + std::to_string(std::get<1>(GetParam())));
  }
};

TEST_P(GpuProverCircuits, SameBytesAsTheCpuProver) {
  CUZK_REQUIRE_GPU();
  const auto& f = fixture();
  // (G2 on the GPU, window table bits, H beside the MSMs): plain, G2 on the CPU, precomputed MSM
  // window tables, H before the MSMs.
  for (auto [g2_on_gpu, table, overlap] : {std::tuple{true, 0u, true}, std::tuple{false, 0u, true},
                                           std::tuple{true, 9u, true}, std::tuple{true, 0u, false}}) {
    SCOPED_TRACE(std::string(g2_on_gpu ? "G2 MSM on the GPU" : "G2 MSM on the CPU") + ", table bits " +
                 std::to_string(table) + (overlap ? ", H beside the MSMs" : ", H first"));
    gpu::GpuProver prover(f.pk, f.pce, {.b_g2_on_gpu = g2_on_gpu, .msm_table_bits = table, .overlap_h = overlap});
    const auto w = f.witness(7);
    const auto [r, s] = test::fixed_rs(9);
    groth16::ProveTimings t;
    const groth16::ProofMsms msms = prover.stage1(w.inputs, w.aux, &t);
    expect_same_msms(msms, cpu_stage1(f, w));
    const groth16::Proof got = groth16::prove_finalize(f.pk.vk, msms, r, s, &t);
    const groth16::Proof want = groth16::prove(f.pk, f.pce, w.inputs, w.aux, r, s);
    EXPECT_EQ(groth16::encode_proofs({&got, 1}), groth16::encode_proofs({&want, 1}));
    EXPECT_TRUE(f.verifies(got, w));
    EXPECT_GT(t.total_s(), 0.0);
  }
}

TEST_P(GpuProverCircuits, SeveralWitnessesReuseTheBuffers) {
  CUZK_REQUIRE_GPU();
  const auto& f = fixture();
  gpu::GpuProver prover(f.pk, f.pce);
  for (uint64_t seed = 30; seed < 33; ++seed) {
    const auto w = f.witness(seed);
    const auto [r, s] = test::fixed_rs(seed);
    const groth16::Proof got = groth16::prove_finalize(f.pk.vk, prover.stage1(w.inputs, w.aux), r, s);
    EXPECT_EQ(got, groth16::prove(f.pk, f.pce, w.inputs, w.aux, r, s)) << "witness seed " << seed;
  }
}

// Two witness slots: witnesses from three threads at once (one uploads while another's kernels
// run, the third waits for a slot) give the CPU's sums, and the memory estimate counts the second z.
TEST_P(GpuProverCircuits, TwoWitnessSlotsTakeConcurrentCalls) {
  CUZK_REQUIRE_GPU();
  const auto& f = fixture();
  gpu::GpuProver prover(f.pk, f.pce, {.witness_slots = 2});
  EXPECT_EQ(prover.witness_slots(), 2u);
  EXPECT_GT(prover.memory().vectors, gpu::GpuProver::memory_needed(f.pk, f.pce).vectors);
  std::vector<circuits::BuiltinWitness> ws;
  for (uint64_t seed = 40; seed < 49; ++seed) ws.push_back(f.witness(seed));
  std::vector<groth16::ProofMsms> got(ws.size());
  std::vector<groth16::ProveTimings> times(ws.size());
  std::vector<std::thread> callers;
  for (size_t c = 0; c < 3; ++c) {
    callers.emplace_back([&, c] {
      for (size_t i = c; i < ws.size(); i += 3) got[i] = prover.stage1(ws[i].inputs, ws[i].aux, &times[i]);
    });
  }
  for (auto& c : callers) c.join();
  for (size_t i = 0; i < ws.size(); ++i) {
    SCOPED_TRACE("witness " + std::to_string(i));
    expect_same_msms(got[i], cpu_stage1(f, ws[i]));
    EXPECT_GE(times[i].device_wait_s, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Builtin, GpuProverCircuits,
                         ::testing::Combine(::testing::Values("chain", "filecoin-like"),
                                            ::testing::Values(10u, 12u, 14u)),
                         [](const auto& info) {
                           std::string k = std::get<0>(info.param);
                           for (char& c : k)
                             if (c == '-') c = '_';
                           return k + "_2_" + std::to_string(std::get<1>(info.param));
                         });

TEST(GpuProver, RejectsWrongWitnessSizesAndStaysUsable) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("chain:2^10");
  gpu::GpuProver prover(f.pk, f.pce);
  const auto w = f.witness(1);
  std::vector<ec::Fr> short_aux(w.aux.begin(), w.aux.end() - 1);
  EXPECT_THROW(prover.stage1(w.inputs, short_aux), std::invalid_argument);
  std::vector<ec::Fr> bad_one = w.inputs;
  bad_one[0] = ec::Fr::from_u64(2);
  EXPECT_THROW(prover.stage1(bad_one, w.aux), std::invalid_argument);
  expect_same_msms(prover.stage1(w.inputs, w.aux), cpu_stage1(f, w));
  EXPECT_GT(prover.memory().total(), prover.memory().bases);
  std::printf("memory estimate for chain:2^10: %s\n", prover.memory().describe().c_str());
}

TEST(GpuProver, ShapeOnlyProverTakesHostAbc) {
  CUZK_REQUIRE_GPU();
  for (const char* name : {"filecoin-like:2^12", "chain:2^12"}) {
    SCOPED_TRACE(name);
    const auto& f = builtin_fixture(name);
    const groth16::CircuitShape shape = groth16::CircuitShape::of(f.pce);
    gpu::GpuProver prover(f.pk, shape);
    const auto w = f.witness(8);
    groth16::ProverInput in = groth16::make_prover_input(f.pce, w.inputs, w.aux);
    expect_same_msms(prover.stage1_abc(w.inputs, w.aux, in.a, in.b, in.c), cpu_stage1(f, w));
    EXPECT_THROW(prover.stage1(w.inputs, w.aux), std::logic_error);  // no Pce
    EXPECT_THROW(prover.stage1_abc(w.inputs, w.aux, std::span(in.a).first(1), in.b, in.c), std::invalid_argument);
  }
}

// The bases streamed from a .params file in small windows (ParamsKeySource, as the daemon uploads a
// key it holds no host copy of) give the same sums as the key in memory, with the G2 MSM on the
// device and on the CPU (its bases then copied from the stream).
TEST(GpuProver, BasesStreamedFromTheParamsFile) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("filecoin-like:2^12");
  char tmpl[] = "/tmp/cuzk-gpu-params-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/k.params";
  ASSERT_TRUE(groth16::write_params(f.pk, path).ok());
  auto src = groth16::ParamsKeySource::open(path, {}, 1000);
  ASSERT_TRUE(src.ok()) << src.error();
  const auto w = f.witness(7);
  const groth16::ProofMsms want = cpu_stage1(f, w);
  for (bool g2_on_gpu : {true, false}) {
    gpu::GpuProver prover(*src, f.pce, {.b_g2_on_gpu = g2_on_gpu});
    expect_same_msms(prover.stage1(w.inputs, w.aux), want);
  }
  std::remove(path.c_str());
  std::remove(tmpl);
}

TEST(GpuProver, InjectedFailureIsRetriedOnTheCpu) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("filecoin-like:2^12");
  const groth16::MemoryKeySource key(f.pk);
  const auto gpu_be = backend::device_platform()->build(0, backend::PceKey{&key, &f.pce}, {.test_inject_failures = 1});
  // Without the retry policy the CUDA error reaches the caller as a DeviceFailure.
  const auto w0 = f.witness(40);
  EXPECT_THROW(gpu_be->stage1(groth16::Witness{w0.inputs, w0.aux}), DeviceFailure);

  backend::BatchProver be(f.pk, f.pce,
                          {.kind = backend::BackendKind::Gpu, .devices = {0}, .fit = {.test_inject_failures = 1}});
  std::vector<circuits::BuiltinWitness> wit = {f.witness(41), f.witness(42)};
  std::vector<groth16::Witness> ws = {{wit[0].inputs, wit[0].aux}, {wit[1].inputs, wit[1].aux}};
  const auto [r0, s0] = test::fixed_rs(41);
  const auto [r1, s1] = test::fixed_rs(42);
  const std::vector<ec::Fr> r = {r0, r1}, s = {s0, s1};
  std::vector<backend::StageReport> where;
  const std::vector<groth16::Proof> got =
      be.prove_many(ws, r, s, nullptr, &where);  // first on the CPU, second on the GPU
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(where[0].backend, "cpu");
  EXPECT_EQ(where[1].backend, "gpu:0");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i], groth16::prove(f.pk, f.pce, wit[i].inputs, wit[i].aux, r[i], s[i])) << i;
    EXPECT_TRUE(f.verifies(got[i], wit[i]));
  }
}

TEST(GpuProver, AutoPicksTheGpuAndSpreadsOverDevices) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("chain:2^12");
  backend::BatchProver be(f.pk, f.pce, {.kind = backend::BackendKind::Auto});
  EXPECT_EQ(be.name().rfind("gpu:0", 0), 0u) << be.name();
  const size_t devices = backend::available_devices().ordinals.size();
  std::vector<circuits::BuiltinWitness> wit;
  for (uint64_t i = 0; i < 2 * devices + 1; ++i) wit.push_back(f.witness(50 + i));
  std::vector<groth16::Witness> ws;
  std::vector<ec::Fr> r, s;
  for (size_t i = 0; i < wit.size(); ++i) {
    ws.push_back({wit[i].inputs, wit[i].aux});
    const auto [ri, si] = test::fixed_rs(60 + i);
    r.push_back(ri), s.push_back(si);
  }
  const std::vector<groth16::Proof> got = be.prove_many(ws, r, s);
  ASSERT_EQ(got.size(), ws.size());
  for (size_t i = 0; i < ws.size(); ++i)
    EXPECT_EQ(got[i], groth16::prove(f.pk, f.pce, wit[i].inputs, wit[i].aux, r[i], s[i])) << i;
  std::printf("backend %s over %zu device(s)\n", be.name().c_str(), devices);
}

TEST(GpuProver, MemoryEstimateCoversTheBases) {
  const auto& f = builtin_fixture("chain:2^10");  // no device needed
  const auto with_g2 = gpu::GpuProver::memory_needed(f.pk, f.pce, {.b_g2_on_gpu = true});
  const auto without = gpu::GpuProver::memory_needed(f.pk, f.pce, {.b_g2_on_gpu = false});
  EXPECT_EQ(with_g2.bases - without.bases, f.pk.b_g2.size() * 192);
  EXPECT_GE(without.bases, (f.pk.h.size() + f.pk.l.size() + f.pk.a.size() + f.pk.b_g1.size()) * 96);
  EXPECT_GT(with_g2.scratch, without.scratch);
  // The G2 MSM's scratch follows the bases it sums (the B density), not the circuit's columns.
  const auto shape = groth16::CircuitShape::of(f.pce);
  groth16::ProvingKey fewer = f.pk;
  fewer.b_g2.resize(fewer.b_g2.size() / 4);
  EXPECT_LT(gpu::GpuProver::memory_needed(fewer, shape, {.b_g2_on_gpu = true}).scratch,
            gpu::GpuProver::memory_needed(f.pk, shape, {.b_g2_on_gpu = true}).scratch);
  // Window tables: num_windows(c) rows per base set (the row-0 copy included), G2 too.
  const auto tables = gpu::GpuProver::memory_needed(f.pk, f.pce, {.b_g2_on_gpu = true, .msm_table_bits = 16});
  const uint64_t rows = (256 + 15) / 16;
  EXPECT_EQ(tables.bases - with_g2.bases,
            rows * ((f.pk.h.size() + f.pk.l.size() + f.pk.a.size() + f.pk.b_g1.size()) * 96 + f.pk.b_g2.size() * 192));
}

std::string repo_tests_dir() {
  const char* env = std::getenv("CUZK_VECTORS_DIR");
  return std::string(env && *env ? env : CUZK_VECTORS_DIR) + "/..";
}

struct ZkeyCase {
  groth16::Zkey zkey;
  std::vector<ec::Fr> witness;
};
ZkeyCase load_zkey_case(const std::string& name) {
  const std::string root = repo_tests_dir();
  auto z = groth16::load_zkey(root + "/zkey/" + name + ".zkey");
  if (!z) throw std::runtime_error(z.error());
  auto w = circom::load_wtns(root + "/circom/" + name + ".wtns");
  if (!w) throw std::runtime_error(w.error());
  return {std::move(z).value(), std::move(w).value()};
}

class GpuZkey : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuZkey, SameProofAsTheCpuZkeyProver) {
  CUZK_REQUIRE_GPU();
  const ZkeyCase c = load_zkey_case(GetParam());
  const auto [r, s] = test::fixed_rs(77);
  const groth16::Proof want = groth16::prove_zkey(c.zkey, c.witness, r, s);
  const auto pub = std::span<const ec::Fr>(c.witness).subspan(1, c.zkey.n_public);
  for (auto [g2_on_gpu, table] : {std::pair{true, 0u}, std::pair{false, 0u}, std::pair{true, 7u}}) {
    SCOPED_TRACE(std::string(g2_on_gpu ? "G2 MSM on the GPU" : "G2 MSM on the CPU") + ", table bits " +
                 std::to_string(table));
    gpu::GpuZkeyProver prover(c.zkey, {.b_g2_on_gpu = g2_on_gpu, .msm_table_bits = table});
    groth16::ProveTimings t;
    const groth16::Proof got = groth16::zkey_finalize(c.zkey, prover.stage1(c.witness, &t), r, s);
    EXPECT_EQ(got, want);
    const auto ok = groth16::verify(groth16::prepare(groth16::vk_from_zkey(c.zkey)), got, pub);
    EXPECT_TRUE(ok && ok.value());
    // A second witness through the same buffers.
    EXPECT_EQ(groth16::zkey_finalize(c.zkey, prover.stage1(c.witness), s, r),
              groth16::prove_zkey(c.zkey, c.witness, s, r));
  }
}

TEST_P(GpuZkey, InjectedFailureIsRetriedOnTheCpu) {
  CUZK_REQUIRE_GPU();
  const ZkeyCase c = load_zkey_case(GetParam());
  // Not structured bindings: a lambda below captures them (clang before 16 refuses that).
  const auto rs = test::fixed_rs(78);
  const auto& r = rs.first;
  const auto& s = rs.second;
  const groth16::Proof want = groth16::prove_zkey(c.zkey, c.witness, r, s);
  const backend::WitnessRef w = backend::FullWitness{c.witness};
  auto prove = [&](const backend::PlacementOptions& o, std::string* used) {
    std::vector<backend::StageReport> where;
    backend::BatchProver be(c.zkey, o);
    const groth16::Proof p = be.prove_many({&w, 1}, {&r, 1}, {&s, 1}, nullptr, &where).at(0);
    if (used) *used = where.at(0).backend;
    return p;
  };
  std::string used;
  EXPECT_EQ(prove({.kind = backend::BackendKind::Gpu, .devices = {0}}, &used), want);
  EXPECT_EQ(used, "gpu:0");
  EXPECT_EQ(prove({.kind = backend::BackendKind::Gpu, .devices = {0}, .fit = {.test_inject_failures = 1}}, &used),
            want);
  EXPECT_EQ(used, "cpu");
  EXPECT_THROW(
      prove({.kind = backend::BackendKind::Gpu, .devices = {0}, .fit = {.test_inject_failures = 1}, .retry = false},
            nullptr),
      DeviceFailure);
}

INSTANTIATE_TEST_SUITE_P(Circom, GpuZkey, ::testing::Values("mul3", "mix"));

TEST(GpuProver, BatchProverInjectedFailureFallsBackToTheCpu) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("chain:2^10");
  backend::BatchProver be(f.pk, f.pce,
                          {.kind = backend::BackendKind::Gpu, .devices = {0}, .fit = {.test_inject_failures = 1}});
  const auto w = f.witness(90);
  const auto [r, s] = test::fixed_rs(90);
  const groth16::Witness ws{w.inputs, w.aux};
  const groth16::Proof want = groth16::prove(f.pk, f.pce, w.inputs, w.aux, r, s);
  EXPECT_EQ(be.prove_many({&ws, 1}, {&r, 1}, {&s, 1}).at(0), want);  // on the CPU
  EXPECT_EQ(be.prove_many({&ws, 1}, {&r, 1}, {&s, 1}).at(0), want);  // on the GPU
}

}  // namespace
