// Prover backend selection, placement and retry policy without a GPU (runs in CI): parse_backend_kind;
// select_backend's decisions for cpu/gpu/auto with and without devices; BatchProver(auto) on this
// machine proves like groth16::prove (the CPU when there is no device) and like groth16::prove_zkey
// for a zkey; with fake devices (PlacementSetup): a device failure is retried on the CPU with one
// device (and only a device failure is), on the next device with several, and two failures fail
// the proof; a prover that does not fit climbs the fit ladder (one witness slot, no tables, then G2
// on the CPU) and then runs on the CPU unless the GPU is required; witnesses spread over devices
// keep their order; a prover of concurrency 2 gets two calls at once, one of concurrency 1 never.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backend/batch_prover.hpp"
#include "backend/device_report.hpp"
#include "backend/fit_ladder.hpp"
#include "builtin_fixture.hpp"
#include "groth16/params_file.hpp"
#include "groth16/zkey.hpp"
#include "r1cs/circom_wtns.hpp"
#include "test_helpers.hpp"
#ifdef CUZK_HAVE_CUDA
#include "groth16/gpu/gpu_prover.hpp"
#endif

namespace {

using namespace cuzk;
using backend::BackendKind;
using test::builtin_fixture;

TEST(Backend, ParsesKinds) {
  EXPECT_EQ(backend::parse_backend_kind("cpu"), BackendKind::Cpu);
  EXPECT_EQ(backend::parse_backend_kind("gpu"), BackendKind::Gpu);
  EXPECT_EQ(backend::parse_backend_kind("auto"), BackendKind::Auto);
  EXPECT_THROW(backend::parse_backend_kind("cuda"), std::invalid_argument);
  EXPECT_STREQ(backend::to_string(BackendKind::Auto), "auto");
}

TEST(Backend, SelectionWithoutDevices) {
  const backend::DeviceList none{{}, {}, "the CUDA driver reports no devices"};
  const auto cpu = backend::select_backend(BackendKind::Cpu, none);
  EXPECT_EQ(cpu.kind, BackendKind::Cpu);
  const auto autosel = backend::select_backend(BackendKind::Auto, none);
  EXPECT_EQ(autosel.kind, BackendKind::Cpu);
  EXPECT_NE(autosel.reason.find("no devices"), std::string::npos) << autosel.reason;
  try {
    backend::select_backend(BackendKind::Gpu, none);
    FAIL() << "gpu without devices must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no devices"), std::string::npos) << e.what();
  }
}

TEST(Backend, SelectionWithDevices) {
  const backend::DeviceList two{{0, 1}, {"A", "B"}, ""};
  EXPECT_EQ(backend::select_backend(BackendKind::Cpu, two).kind, BackendKind::Cpu);
  for (BackendKind k : {BackendKind::Gpu, BackendKind::Auto}) {
    const auto s = backend::select_backend(k, two);
    EXPECT_EQ(s.kind, BackendKind::Gpu);
    EXPECT_EQ(s.devices, (std::vector<int>{0, 1}));
  }
}

TEST(Backend, AvailableDevicesNeverThrowsWithoutAList) {
  const backend::DeviceList d = backend::available_devices();
  if (d.ordinals.empty()) {
    EXPECT_FALSE(d.unavailable_reason.empty());
  }
  if (!backend::built_with_cuda()) {
    EXPECT_TRUE(d.ordinals.empty());
    EXPECT_THROW(backend::available_devices({0}), std::invalid_argument);
  }
}

TEST(Backend, AutoProvesLikeTheCpuProver) {
  const auto& f = builtin_fixture("filecoin-like:2^10");
  const auto w = f.witness(3);
  const auto [r, s] = test::fixed_rs(5);
  const groth16::Proof want = groth16::prove(f.pk, f.pce, w.inputs, w.aux, r, s);
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto});
  if (backend::available_devices().ordinals.empty()) {
    EXPECT_EQ(be.name(), "cpu");
  }
  const groth16::Witness ws{w.inputs, w.aux};
  EXPECT_EQ(be.prove_many({&ws, 1}, {&r, 1}, {&s, 1}).at(0), want);
  EXPECT_TRUE(f.verifies(want, w));
}

// The snarkjs convention through the same interface: the proof groth16::prove_zkey makes for the
// same r, s (itself checked against snarkjs's by test_prover_zkey).
TEST(Backend, ZkeyProvesLikeTheCpuZkeyProver) {
  const std::string dir = std::string(CUZK_VECTORS_DIR) + "/..";
  const auto zkey = groth16::load_zkey(dir + "/zkey/mul3.zkey");
  ASSERT_TRUE(zkey.ok()) << zkey.error();
  const auto w = circom::load_wtns(dir + "/circom/mul3.wtns");
  ASSERT_TRUE(w.ok()) << w.error();
  const auto [r, s] = test::fixed_rs(6);
  backend::BatchProver be(*zkey, {.kind = BackendKind::Auto});
  const backend::WitnessRef wr = backend::FullWitness{*w};
  std::vector<backend::StageReport> where;
  EXPECT_EQ(be.prove_many({&wr, 1}, {&r, 1}, {&s, 1}, nullptr, &where).at(0), groth16::prove_zkey(*zkey, *w, r, s));
  ASSERT_EQ(where.size(), 1u);
  if (backend::available_devices().ordinals.empty()) {
    EXPECT_EQ(where[0].backend, "cpu");
  }
  // A witness of the other convention, or sums finalized with the other convention's key.
  const auto& f = builtin_fixture("chain:2^10");
  const auto bw = f.witness(1);
  const backend::WitnessRef wrong = groth16::Witness{bw.inputs, bw.aux};
  EXPECT_THROW(be.prove_many({&wrong, 1}, {&r, 1}, {&s, 1}), std::invalid_argument);
  EXPECT_THROW(backend::finalize(&f.pk.vk, backend::StageMsms{groth16::ZkeyMsms{}}, r, s), std::invalid_argument);
}

// `cuzk doctor` sizes a resident GPU prover from a .params layout without loading the key
// (plan_placement, as for its per-GPU lines): the estimate must be the one the prover itself
// checks before uploading (no device needed).
TEST(Backend, ResidentEstimateFromTheLayoutIsTheProversOwn) {
  const auto& f = builtin_fixture("filecoin-like:2^10");
  test::TempDir dir;
  const std::string path = (dir.path() / "k.params").string();
  ASSERT_TRUE(groth16::write_params(f.pk, path).ok());
  const auto layout = groth16::scan_params(path);
  ASSERT_TRUE(layout.ok()) << layout.error();
  const gpu::StreamedShape shape{layout->num_inputs(), layout->num_aux(), layout->domain_size(),
                                 f.pce.section_bytes_total()};
  for (const bool g2_on_gpu : {true, false}) {
    backend::FitOptions first;
    first.b_g2_on_gpu = g2_on_gpu;
    const backend::PlacementChoice est =
        backend::plan_placement(UINT64_MAX, groth16::KeySizes::of(*layout), shape, first);
    ASSERT_EQ(est.where, backend::Where::Resident);
#ifdef CUZK_HAVE_CUDA
    const auto want = gpu::GpuProver::memory_needed(f.pk, f.pce, {.b_g2_on_gpu = g2_on_gpu});
#else
    const auto want = gpu::resident_memory(
        groth16::KeySizes::of(f.pk),
        {f.pce.num_inputs(), f.pce.num_aux(), f.pce.num_constraints(), f.pce.section_bytes_total()},
        {.b_g2_on_gpu = g2_on_gpu});
#endif
    EXPECT_EQ(est.device_bytes, want.total()) << est.describe() << " vs " << want.describe();
  }
  const backend::DeviceReport report = backend::describe_devices();
  if (report.devices.empty()) {
    EXPECT_FALSE(report.unavailable_reason.empty());
  }
}

TEST(Backend, GpuWithoutDeviceIsAnError) {
  if (!backend::available_devices().ordinals.empty()) GTEST_SKIP() << "this machine has a GPU";
  const auto& f = builtin_fixture("chain:2^10");
  EXPECT_THROW(backend::BatchProver(f.pk, f.pce, {.kind = BackendKind::Gpu}), std::runtime_error);
}

// A fake device whose stages fail on chosen calls (and otherwise prove on the CPU), and which
// holds `room` provers at most (more: DeviceMemoryShort).
struct FakeDevice {
  std::vector<bool> fail;  // per call; past the end: no failure
  bool always_fail = false;
  unsigned short_calls = 0;  // the first N stages run out of device memory mid-proof
  int room = 8;
  unsigned concurrency = 1;                 // the provers' concurrency()
  std::chrono::milliseconds hold{0};        // each stage takes at least this long
  std::vector<backend::FitOptions> builds;  // every build attempt's options
  std::atomic<size_t> calls{0}, device_proofs{0};
  std::atomic<unsigned> in_stage{0}, most_in_stage{0};
};

class FlakyProver final : public backend::DeviceProver {
 public:
  FlakyProver(int ordinal, FakeDevice& dev, const test::BuiltinFixture& f, ThreadPool* pool)
      : ordinal_(ordinal), dev_(dev), cpu_(backend::make_cpu_prover(f.pk, f.pce, pool)) {}
  std::string name() const override { return "gpu:" + std::to_string(ordinal_); }
  unsigned concurrency() const override { return dev_.concurrency; }
  backend::StageMsms stage1(const backend::WitnessRef& w, groth16::ProveTimings* t) override {
    const unsigned now = ++dev_.in_stage;
    for (unsigned most = dev_.most_in_stage; now > most && !dev_.most_in_stage.compare_exchange_weak(most, now);) {
    }
    struct Leave {
      std::atomic<unsigned>& n;
      ~Leave() { --n; }
    } leave{dev_.in_stage};
    std::this_thread::sleep_for(dev_.hold);
    const size_t i = dev_.calls++;
    if (dev_.always_fail || (i < dev_.fail.size() && dev_.fail[i]))
      throw DeviceFailure(name() + ": injected device failure " + std::to_string(i));
    if (i < dev_.short_calls) throw DeviceMemoryShort(name() + ": injected: out of device memory mid-proof");
    if (std::get<groth16::Witness>(w).inputs.empty()) throw std::invalid_argument("not a device failure");
    ++dev_.device_proofs;
    return cpu_->stage1(w, t);
  }

 private:
  int ordinal_;
  FakeDevice& dev_;
  std::unique_ptr<backend::DeviceProver> cpu_;
};

backend::PlacementSetup fake_devices(const test::BuiltinFixture& f, std::vector<FakeDevice>& devs,
                                     std::vector<ThreadPool*> pools = {}) {
  std::vector<int> ordinals;
  for (size_t d = 0; d < devs.size(); ++d) ordinals.push_back(static_cast<int>(d));
  return {ordinals, [&f, &devs, pools](int d, const backend::ProverKey&, const backend::FitOptions& fit) {
            FakeDevice& dev = devs.at(static_cast<size_t>(d));
            dev.builds.push_back(fit);
            if (dev.room <= 0) throw DeviceMemoryShort("gpu:" + std::to_string(d) + ": injected: device memory full");
            --dev.room;
            ThreadPool* pool = pools.empty() ? nullptr : pools.at(static_cast<size_t>(d));
            return std::unique_ptr<backend::DeviceProver>(std::make_unique<FlakyProver>(d, dev, f, pool));
          }};
}

struct Batch {
  std::vector<circuits::BuiltinWitness> wit;
  std::vector<groth16::Witness> ws;
  std::vector<ec::Fr> r, s;
  std::vector<groth16::Proof> want;
  Batch(const test::BuiltinFixture& f, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) wit.push_back(f.witness(seed + i));
    for (size_t i = 0; i < n; ++i) {
      ws.push_back({wit[i].inputs, wit[i].aux});
      const auto [ri, si] = test::fixed_rs(100 + seed + i);
      r.push_back(ri), s.push_back(si);
      want.push_back(groth16::prove(f.pk, f.pce, wit[i].inputs, wit[i].aux, ri, si));
    }
  }
};

TEST(Backend, DeviceFailureIsRetriedOnTheCpu) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 3, 1);
  std::vector<FakeDevice> devs(1);
  devs[0].fail = {false, true, false};
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto}, fake_devices(f, devs));
  EXPECT_EQ(be.name(), "gpu:0");
  std::vector<backend::StageReport> where;
  EXPECT_EQ(be.prove_many(b.ws, b.r, b.s, nullptr, &where), b.want);
  EXPECT_EQ(devs[0].calls.load(), 3u);
  EXPECT_EQ(devs[0].device_proofs.load(), 2u);  // the failed one went to the CPU
  ASSERT_EQ(where.size(), 3u);
  EXPECT_EQ(where[0].backend, "gpu:0");
  EXPECT_EQ(where[1].backend, "cpu");
  EXPECT_EQ(where[1].failures.size(), 1u);
  for (size_t i = 0; i < b.wit.size(); ++i) EXPECT_TRUE(f.verifies(b.want[i], b.wit[i]));

  // Other errors are not device failures: no retry.
  const groth16::Witness bad{{}, b.wit[0].aux};
  EXPECT_THROW(be.prove_many({&bad, 1}, {&b.r[0], 1}, {&b.s[0], 1}), std::invalid_argument);

  // Without retries the failure reaches the caller.
  std::vector<FakeDevice> always(1);
  always[0].always_fail = true;
  backend::BatchProver strict(f.pk, f.pce, {.kind = BackendKind::Gpu, .retry = false}, fake_devices(f, always));
  EXPECT_THROW(strict.prove_many({&b.ws[0], 1}, {&b.r[0], 1}, {&b.s[0], 1}), DeviceFailure);
}

TEST(Backend, TheRetryGoesToTheNextDeviceAndTwoFailuresFailTheProof) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 1, 10);
  std::vector<FakeDevice> devs(2);
  devs[0].always_fail = true;
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto}, fake_devices(f, devs));
  std::vector<backend::StageReport> where;
  EXPECT_EQ(be.prove_many(b.ws, b.r, b.s, nullptr, &where), b.want);
  EXPECT_EQ(where.at(0).backend, "gpu:1");
  EXPECT_EQ(devs[1].device_proofs.load(), 1u);

  devs[1].always_fail = true;
  try {
    be.prove_many(b.ws, b.r, b.s);
    FAIL() << "two device failures must fail the proof";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("failed twice"), std::string::npos) << m;
    EXPECT_NE(m.find("gpu:0"), std::string::npos) << m;
    EXPECT_NE(m.find("gpu:1"), std::string::npos) << m;
  }
}

// Another process takes device memory while a built prover proves: the stage runs again once on a
// prover one rung lower (here: one witness slot instead of two), on the GPU, with the right proof;
// a second shortage on the last rung goes to the CPU.
TEST(Backend, AShortageMidProofRetriesOnASmallerProver) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 2, 30);
  std::vector<FakeDevice> devs(1);
  devs[0].short_calls = 1;
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto, .fit = {.witness_slots = 2}}, fake_devices(f, devs));
  std::vector<backend::StageReport> where;
  EXPECT_EQ(be.prove_many(b.ws, b.r, b.s, nullptr, &where), b.want);
  EXPECT_EQ(where.at(0).backend, "gpu:0");
  EXPECT_EQ(where.at(1).backend, "gpu:0");
  EXPECT_EQ(devs[0].device_proofs.load(), 2u);
  // The warm-up built the first rung; after the shortage, the next rung; no other build.
  ASSERT_GE(devs[0].builds.size(), 2u);
  EXPECT_EQ(devs[0].builds.front().witness_slots, 2u);
  EXPECT_EQ(devs[0].builds.back().witness_slots, 1u);
  EXPECT_EQ(be.placement().memory_short_retries(), 1u);

  // At the ladder's last rung there is nothing smaller: the CPU proves it.
  const backend::FitOptions last{.b_g2_on_gpu = false, .streamed = true};
  std::vector<FakeDevice> low(1);
  low[0].short_calls = 100;
  backend::BatchProver bottom(f.pk, f.pce, {.kind = BackendKind::Auto, .fit = last}, fake_devices(f, low));
  where.clear();
  EXPECT_EQ(bottom.prove_many(b.ws, b.r, b.s, nullptr, &where), b.want);
  EXPECT_EQ(where.at(0).backend, "cpu");
}

// A prover built while its upload's progress is reported (the daemon's placement) sees the key
// under its own identity, so that the GPUs of a host share one pinned copy of a streamed key and
// its host memory is reserved once.
TEST(Backend, TheBuildSeesTheKeysIdentityThroughTheProgressWrapper) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 1, 40);
  const groth16::MemoryKeySource source(f.pk);
  std::vector<std::string> seen;
  struct Quiet final : backend::BuildProgress {
    void progress(uint64_t, uint64_t) override {}
  };
  backend::Placement placement({.kind = BackendKind::Auto},
                               {{0},
                                [&](int, const backend::ProverKey& key, const backend::FitOptions&) {
                                  seen.push_back(std::get<backend::PceKey>(key).key->identity());
                                  return backend::make_cpu_prover(f.pk, f.pce);
                                }},
                               [](const std::string&) { return std::make_unique<Quiet>(); });
  const backend::CircuitKey key{"chain:2^10", backend::PceKey{&source, &f.pce}};
  placement.stage1(0, key, groth16::Witness{b.ws[0].inputs, b.ws[0].aux});
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], source.identity());
  EXPECT_EQ(seen[0].rfind("memory:", 0), 0u) << seen[0];
}

TEST(Backend, AProverThatDoesNotFitClimbsTheLadderThenRunsOnTheCpu) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 1, 20);
  std::vector<FakeDevice> devs(1);
  devs[0].room = 0;
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto, .fit = {.msm_table_bits = 12, .witness_slots = 2}},
                          fake_devices(f, devs));
  std::vector<backend::StageReport> where;
  EXPECT_EQ(be.prove_many(b.ws, b.r, b.s, nullptr, &where), b.want);
  EXPECT_EQ(where.at(0).backend, "cpu");
  // The warm-up and the proof: each two slots and tables, one slot, no tables, G2 on the CPU, then
  // streamed with G2 on the device and on the CPU.
  ASSERT_EQ(devs[0].builds.size(), 12u);
  for (size_t k = 0; k < 12; k += 6) {
    const auto& bs = devs[0].builds;
    EXPECT_EQ(bs[k].witness_slots, 2u);
    EXPECT_EQ(bs[k].msm_table_bits, 12u);
    EXPECT_EQ(bs[k + 1].witness_slots, 1u);
    EXPECT_EQ(bs[k + 1].msm_table_bits, 12u);
    EXPECT_TRUE(bs[k + 1].b_g2_on_gpu);
    EXPECT_EQ(bs[k + 2].witness_slots, 1u);
    EXPECT_EQ(bs[k + 2].msm_table_bits, 0u);
    EXPECT_TRUE(bs[k + 2].b_g2_on_gpu);
    EXPECT_EQ(bs[k + 3].msm_table_bits, 0u);
    EXPECT_FALSE(bs[k + 3].b_g2_on_gpu);
    EXPECT_FALSE(bs[k + 3].streamed);
    EXPECT_TRUE(bs[k + 4].streamed);
    EXPECT_TRUE(bs[k + 4].b_g2_on_gpu);
    EXPECT_TRUE(bs[k + 5].streamed);
    EXPECT_FALSE(bs[k + 5].b_g2_on_gpu);
  }
  // With the GPU required, that is the error, naming the setting.
  std::vector<FakeDevice> full(1);
  full[0].room = 0;
  backend::BatchProver required(f.pk, f.pce, {.kind = BackendKind::Gpu}, fake_devices(f, full));
  try {
    required.prove_many(b.ws, b.r, b.s);
    FAIL() << "a prover that does not fit a required GPU must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("device memory full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--backend gpu"), std::string::npos) << e.what();
  }
}

TEST(Backend, WitnessesSpreadOverDevicesKeepTheirOrder) {
  const auto& f = builtin_fixture("filecoin-like:2^10");
  static ThreadPool p1(2), p2(2), p3(2);
  std::vector<FakeDevice> devs(3);
  backend::BatchProver be(f.pk, f.pce, {.kind = BackendKind::Auto}, fake_devices(f, devs, {&p1, &p2, &p3}));
  EXPECT_EQ(be.name(), "gpu:0+gpu:1+gpu:2");
  const Batch b(f, 5, 20);
  groth16::ProveTimings t;
  std::vector<backend::StageReport> where;
  const std::vector<groth16::Proof> got = be.prove_many(b.ws, b.r, b.s, &t, &where);
  ASSERT_EQ(got.size(), b.ws.size());
  for (size_t i = 0; i < b.ws.size(); ++i) {
    EXPECT_EQ(got[i], b.want[i]) << i;
    EXPECT_EQ(where[i].backend, "gpu:" + std::to_string(i % 3)) << i;
  }
  EXPECT_EQ(devs[0].device_proofs + devs[1].device_proofs + devs[2].device_proofs, 5u);
  EXPECT_GT(t.total_s(), 0.0);
  EXPECT_THROW(be.prove_many(b.ws, std::span(b.r).first(2), b.s), std::invalid_argument);
}

// The placement serializes a prover's calls unless the prover takes them at once (a GPU prover with
// two witness slots: one uploads while the other's kernels run).
TEST(Backend, PlacementRunsAProversCallsAtOnceOnlyUpToItsConcurrency) {
  const auto& f = builtin_fixture("chain:2^10");
  const Batch b(f, 4, 40);
  const groth16::MemoryKeySource source(f.pk);
  const backend::CircuitKey key{.circuit = "chain:2^10", .key = backend::PceKey{&source, &f.pce}};
  for (unsigned concurrency : {1u, 2u}) {
    std::vector<FakeDevice> devs(1);
    devs[0].concurrency = concurrency;
    devs[0].hold = std::chrono::milliseconds(150);
    backend::Placement placement({.kind = BackendKind::Auto}, fake_devices(f, devs));
    std::vector<std::thread> callers;
    std::vector<backend::StageMsms> got(b.ws.size());
    for (size_t i = 0; i < b.ws.size(); ++i) {
      callers.emplace_back([&, i] { got[i] = placement.stage1(0, key, b.ws[i]); });
    }
    for (auto& c : callers) c.join();
    EXPECT_EQ(devs[0].most_in_stage.load(), concurrency) << "concurrency " << concurrency;
    for (size_t i = 0; i < b.ws.size(); ++i) {
      EXPECT_EQ(backend::finalize(&f.pk.vk, got[i], b.r[i], b.s[i]), b.want[i]) << i;
    }
  }
}

}  // namespace
