// The streamed device prover (GpuStreamedProver) against the resident GpuProver and the CPU prover
// (label gpu; skipped without a device):
//   - built-in circuits (0/1-heavy filecoin-like and full-width chain witnesses, inputs and aux
//     through the densities) in each arrangement (pce3, pce2, stream2, host2), chosen by a cap that fits it
//     and nothing larger, with chunks of 64 and 512 bases (tens of chunks per MSM): the five sums
//     equal both references, the proof with fixed r, s is byte-identical and verifies, and the
//     device memory taken while building and proving (cudaMemGetInfo) stays under the cap;
//   - the G2 MSM on the CPU; several witnesses a pass (stage1_batch) and the PCIe bytes counted;
//   - a cap below the smallest workable one: DeviceMemoryShort naming that cap;
//   - the pinned key shared by provers of one .params file, not by another id;
//   - H in two vectors (h_steps) equals compute_h and the CPU's compute_h;
//   - an injected failure throws CudaError and the next witness is proved.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "../builtin_fixture.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device_buffer.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/streamed_prover.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "msms_check.hpp"
#include "require_gpu.hpp"
#include "util/device_error.hpp"
#include "util/rng.hpp"

namespace cuzk::gpu {
// Test names and failures print the arrangement's name.
inline void PrintTo(StreamedMode m, std::ostream* os) {
  *os << to_string(m);
}
}  // namespace cuzk::gpu

namespace {

using namespace cuzk;
using gpu::StreamedMode;
using test::builtin_fixture;

using test::cpu_stage1;
using test::expect_same_msms;

size_t free_device_memory() {
  size_t free_b = 0, total_b = 0;
  CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

// Device memory taken since `free0` was measured (negative: freed).
int64_t taken_since(size_t free0) {
  return static_cast<int64_t>(free0) - static_cast<int64_t>(free_device_memory());
}

// The cap with which the plan takes `mode` and nothing larger, at chunks of k bases.
uint64_t cap_for(const test::BuiltinFixture& f, StreamedMode mode, uint64_t k, bool g2 = true) {
  return gpu::streamed_memory(gpu::StreamedShape::of(f.pce), mode, k, {.b_g2_on_gpu = g2}).total();
}

using Case = std::tuple<std::string, StreamedMode, uint64_t>;  // circuit, arrangement, bases a chunk

class StreamedCircuits : public ::testing::TestWithParam<Case> {};

TEST_P(StreamedCircuits, SameSumsAndBytesAsTheResidentAndCpuProvers) {
  CUZK_REQUIRE_GPU();
  const auto& [name, mode, chunk] = GetParam();
  const auto& f = builtin_fixture(name);
  const auto w = f.witness(7);
  const groth16::ProofMsms want = cpu_stage1(f, w);
  {
    gpu::GpuProver resident(f.pk, f.pce);  // also loads every kernel before the memory is measured
    expect_same_msms(resident.stage1(w.inputs, w.aux), want);
  }
  const uint64_t cap = cap_for(f, mode, chunk);
  const groth16::MemoryKeySource key(f.pk);
  const size_t free0 = free_device_memory();
  // stream2's staging ring (a few MiB) is larger than these PCEs: no cap makes the plan prefer it
  // to pce2, so it is forced.
  const std::optional<StreamedMode> forced =
      mode == StreamedMode::stream2 ? std::optional<StreamedMode>(mode) : std::nullopt;
  gpu::GpuStreamedProver prover(key, f.pce, {.memory_limit = cap, .mode = forced, .chunk_points = chunk});
  const size_t free1 = free_device_memory();
  SCOPED_TRACE(prover.plan().describe());
  EXPECT_EQ(prover.plan().mode, mode);
  EXPECT_EQ(prover.plan().chunk_points, chunk);
  EXPECT_LE(static_cast<int64_t>(free0) - static_cast<int64_t>(free1), static_cast<int64_t>(cap))
      << "taken by the constructor";

  groth16::ProveTimings t;
  gpu::GpuStreamedStats st;
  const groth16::ProofMsms got = prover.stage1(w.inputs, w.aux, &t, &st);
  expect_same_msms(got, want);
  EXPECT_LE(taken_since(free0), static_cast<int64_t>(cap)) << "taken after stage1";
  EXPECT_GT(st.device_used, 0u);
  EXPECT_GT(st.chunk_copies, 5u) << "many chunks";
  const uint64_t bases =
      (f.pk.h.size() + f.pk.l.size() + f.pk.a.size() + f.pk.b_g1.size()) * 96 + f.pk.b_g2.size() * 192;
  EXPECT_EQ(st.base_bytes, bases);
  EXPECT_GE(st.h2d_bytes, bases + (w.inputs.size() + w.aux.size()) * 32);
  EXPECT_GT(t.msm_h_s, 0.0);

  const auto [r, s] = test::fixed_rs(9);
  const groth16::Proof proof = groth16::prove_finalize(f.pk.vk, got, r, s);
  const groth16::Proof cpu = groth16::prove(f.pk, f.pce, w.inputs, w.aux, r, s);
  EXPECT_EQ(groth16::encode_proofs({&proof, 1}), groth16::encode_proofs({&cpu, 1}));
  EXPECT_TRUE(f.verifies(proof, w));
  // A second witness through the same buffers.
  const auto w2 = f.witness(8);
  expect_same_msms(prover.stage1(w2.inputs, w2.aux), cpu_stage1(f, w2));
}

INSTANTIATE_TEST_SUITE_P(Builtin, StreamedCircuits,
                         ::testing::Combine(::testing::Values("chain:2^10", "filecoin-like:2^10", "filecoin-like:2^12"),
                                            ::testing::Values(StreamedMode::pce3, StreamedMode::pce2,
                                                              StreamedMode::stream2, StreamedMode::host2),
                                            ::testing::Values(uint64_t{64}, uint64_t{512})),
                         [](const auto& info) {
                           std::string k = std::get<0>(info.param);
                           for (char& c : k)
                             if (c == '-' || c == ':' || c == '^') c = '_';
                           return k + "_" + gpu::to_string(std::get<1>(info.param)) + "_" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(GpuStreamed, G2OnTheCpuAndBatches) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("filecoin-like:2^12");
  const groth16::MemoryKeySource key(f.pk);
  std::vector<circuits::BuiltinWitness> wit;
  std::vector<groth16::Witness> ws;
  for (uint64_t seed = 20; seed < 23; ++seed) wit.push_back(f.witness(seed));
  for (const auto& w : wit) ws.push_back({w.inputs, w.aux});
  for (StreamedMode mode : {StreamedMode::pce3, StreamedMode::pce2, StreamedMode::stream2, StreamedMode::host2}) {
    for (bool g2 : {true, false}) {
      SCOPED_TRACE(std::string(gpu::to_string(mode)) + (g2 ? ", G2 on the GPU" : ", G2 on the CPU"));
      gpu::GpuStreamedProver prover(key, f.pce,
                                    {.b_g2_on_gpu = g2, .witnesses_per_pass = 2, .mode = mode, .chunk_points = 256});
      EXPECT_EQ(prover.plan().witnesses_per_pass, 2u);
      gpu::GpuStreamedStats st;
      groth16::ProveTimings t;
      const std::vector<groth16::ProofMsms> got = prover.stage1_batch(ws, &t, &st);
      ASSERT_EQ(got.size(), ws.size());
      for (size_t i = 0; i < ws.size(); ++i) expect_same_msms(got[i], cpu_stage1(f, wit[i]));
      // Three witnesses in passes of two: the key crosses twice.
      const uint64_t bases =
          (f.pk.h.size() + f.pk.l.size() + f.pk.a.size() + f.pk.b_g1.size()) * 96 + (g2 ? f.pk.b_g2.size() * 192 : 0);
      EXPECT_EQ(st.base_bytes, 2 * bases);
      EXPECT_GT(t.msm_b_g2_s, 0.0);
    }
  }
}

// The NTTs' twiddles as one table (the resident prover's layout) or two small ones: the same sums.
TEST(GpuStreamed, EitherTwiddleLayoutGivesTheSameSums) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("filecoin-like:2^12");
  const groth16::MemoryKeySource key(f.pk);
  const auto w = f.witness(31);
  const groth16::ProofMsms want = cpu_stage1(f, w);
  for (bool compact : {true, false}) {
    SCOPED_TRACE(compact ? "compact twiddles" : "one twiddle table");
    gpu::GpuStreamedProver prover(key, f.pce, {.mode = StreamedMode::stream2, .compact_twiddles = compact});
    EXPECT_EQ(prover.plan().compact_twiddles, compact);
    expect_same_msms(prover.stage1(w.inputs, w.aux), want);
  }
}

TEST(GpuStreamed, CapBelowTheSmallestNamesIt) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("chain:2^10");
  const groth16::MemoryKeySource key(f.pk);
  const gpu::StreamedPlan p = gpu::GpuStreamedProver::plan_for(groth16::KeySizes::of(f.pk), f.pce, 0);
  ASSERT_GT(p.smallest_cap, 0u);
  try {
    gpu::GpuStreamedProver prover(key, f.pce, {.memory_limit = p.smallest_cap - 1});
    FAIL() << "a cap below the smallest workable one was taken";
  } catch (const DeviceMemoryShort& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(gpu::format_gib(p.smallest_cap)), std::string::npos) << what;
    EXPECT_NE(what.find("smallest workable cap"), std::string::npos) << what;
  }
  gpu::GpuStreamedProver at_floor(key, f.pce, {.memory_limit = p.smallest_cap});
  EXPECT_EQ(at_floor.plan().mode, StreamedMode::host2);
  const auto w = f.witness(3);
  expect_same_msms(at_floor.stage1(w.inputs, w.aux), cpu_stage1(f, w));
}

// Two provers of one .params file share the pinned copy (the registry's); another id gets its own.
TEST(GpuStreamed, PinnedKeySharedByProversOfOneFile) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("filecoin-like:2^10");
  char tmpl[] = "/tmp/cuzk-streamed-params-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/k.params";
  ASSERT_TRUE(groth16::write_params(f.pk, path).ok());
  auto src = groth16::ParamsKeySource::open(path, {}, 100);  // windows of 100 points
  ASSERT_TRUE(src.ok()) << src.error();
  const auto w = f.witness(5);
  const groth16::ProofMsms want = cpu_stage1(f, w);
  {
    gpu::GpuStreamedProver p1(*src, f.pce, {.chunk_points = 128});
    gpu::GpuStreamedProver p2(*src, f.pce, {.mode = StreamedMode::host2});
    gpu::GpuStreamedProver p3(*src, f.pce, {.key_id = "another"});
    EXPECT_EQ(&p1.host_key(), &p2.host_key());
    EXPECT_NE(&p1.host_key(), &p3.host_key());
    EXPECT_EQ(p1.host_key().bytes(), p3.host_key().bytes());
    for (gpu::GpuStreamedProver* p : {&p1, &p2, &p3}) expect_same_msms(p->stage1(w.inputs, w.aux), want);
  }
  std::remove(path.c_str());
  std::remove(tmpl);
}

TEST(GpuStreamed, HInTwoVectorsEqualsComputeH) {
  CUZK_REQUIRE_GPU();
  Xoshiro256 rng(17);
  for (unsigned log_n : {1u, 5u, 10u, 14u}) {
    SCOPED_TRACE("log n = " + std::to_string(log_n));
    const size_t n = size_t{1} << log_n;
    std::vector<ec::Fr> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) a[i] = ec::Fr::random(rng), b[i] = ec::Fr::random(rng), c[i] = ec::Fr::random(rng);
    const std::vector<ec::Fr> cpu = groth16::compute_h(n, a, b, c);
    gpu::DeviceBuffer<ec::Fr> packed(3 * n), d0(n), d1(n);
    packed.upload(a);
    CUZK_CUDA_CHECK(cudaMemcpy(packed.data() + n, b.data(), n * 32, cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(packed.data() + 2 * n, c.data(), n * 32, cudaMemcpyHostToDevice));
    gpu::compute_h(packed.data(), packed.data() + n, packed.data() + 2 * n, log_n, poly::RootConvention::Zcash);
    // The steps, with a, b, c brought in one at a time as the streamed prover does.
    d0.upload(a);
    gpu::h_steps::coset(d0.data(), log_n);
    d1.upload(b);
    gpu::h_steps::coset(d1.data(), log_n);
    gpu::h_steps::quotient(d0.data(), d1.data(), log_n);
    d1.upload(c);
    gpu::h_steps::c_coefficients(d1.data(), log_n);
    gpu::h_steps::finish(d0.data(), d1.data(), log_n);
    std::vector<ec::Fr> got(n), ref(n);
    d0.download(got);
    packed.download(ref);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(got, ref);
    for (size_t i = 0; i < cpu.size(); ++i) ASSERT_EQ(got[i], cpu[i]) << "coefficient " << i;
  }
}

TEST(GpuStreamed, InjectedFailureThenTheNextWitness) {
  CUZK_REQUIRE_GPU();
  const auto& f = builtin_fixture("chain:2^10");
  const groth16::MemoryKeySource key(f.pk);
  gpu::GpuStreamedProver prover(key, f.pce, {.chunk_points = 128});
  const auto w = f.witness(11);
  prover.inject_failures(1);
  EXPECT_THROW(prover.stage1(w.inputs, w.aux), gpu::CudaError);
  expect_same_msms(prover.stage1(w.inputs, w.aux), cpu_stage1(f, w));
  std::vector<ec::Fr> short_aux(w.aux.begin(), w.aux.end() - 1);
  EXPECT_THROW(prover.stage1(w.inputs, short_aux), std::invalid_argument);
}

}  // namespace
