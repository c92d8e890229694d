// Prover backend selection and the CPU parts of the dispatch, without a GPU (runs in CI):
// parse_backend_kind; select_backend's decisions for cpu/gpu/auto with and without devices;
// make_backend(auto) on this machine proves like groth16::prove (the CPU when there is no device);
// with_cpu_fallback retries a proof whose primary backend hit a device failure on the CPU (and
// only then); spread_round_robin over several backends gives the proofs in order.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/device_report.hpp"
#include "backend/prover_backend.hpp"
#include "builtin_fixture.hpp"
#include "groth16/params_file.hpp"
#include "test_helpers.hpp"
#ifdef CUZK_HAVE_CUDA
#include "gpu/gpu_prover.hpp"
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
  const auto be = backend::make_backend(f.pk, f.pce, {.kind = BackendKind::Auto});
  if (backend::available_devices().ordinals.empty()) {
    EXPECT_EQ(be->name(), "cpu");
  }
  const groth16::Witness ws{w.inputs, w.aux};
  EXPECT_EQ(be->prove_many({&ws, 1}, {&r, 1}, {&s, 1}).at(0), want);
  EXPECT_TRUE(f.verifies(want, w));
}

// `cuzk doctor` sizes a resident GPU prover from a .params layout without loading the key: the
// estimate must be the one the prover itself checks before uploading (no device needed).
TEST(Backend, ResidentEstimateFromTheLayoutIsTheProversOwn) {
  const auto& f = builtin_fixture("filecoin-like:2^10");
  test::TempDir dir;
  const std::string path = (dir.path() / "k.params").string();
  ASSERT_TRUE(groth16::write_params(f.pk, path).ok());
  const auto layout = groth16::scan_params(path);
  ASSERT_TRUE(layout.ok()) << layout.error();
  for (const bool g2_on_gpu : {true, false}) {
    const auto est = backend::resident_prover_bytes(*layout, f.pce.section_bytes_total(), g2_on_gpu, 0);
#ifdef CUZK_HAVE_CUDA
    ASSERT_TRUE(est.has_value());
    const auto want = gpu::GpuProver::memory_needed(f.pk, f.pce, {.b_g2_on_gpu = g2_on_gpu});
    EXPECT_EQ(est->bytes, want.total()) << est->breakdown << " vs " << want.describe();
#else
    EXPECT_FALSE(est.has_value());
#endif
  }
  const backend::DeviceReport report = backend::describe_devices();
  if (report.devices.empty()) {
    EXPECT_FALSE(report.unavailable_reason.empty());
  }
}

TEST(Backend, GpuWithoutDeviceIsAnError) {
  if (!backend::available_devices().ordinals.empty()) GTEST_SKIP() << "this machine has a GPU";
  const auto& f = builtin_fixture("chain:2^10");
  EXPECT_THROW(backend::make_backend(f.pk, f.pce, {.kind = BackendKind::Gpu}), std::runtime_error);
}

// A primary backend whose device fails on chosen calls (and otherwise proves on the CPU).
class FlakyBackend final : public backend::ProverBackend {
 public:
  FlakyBackend(const test::BuiltinFixture& f, std::vector<bool> fail)
      : ProverBackend(f.pk.vk), cpu_(backend::make_cpu_backend(f.pk, f.pce)), fail_(std::move(fail)) {}
  std::string name() const override { return "flaky"; }
  groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* t) override {
    const size_t i = calls_++;
    if (i < fail_.size() && fail_[i]) throw backend::DeviceFailure("injected device failure " + std::to_string(i));
    if (w.inputs.empty()) throw std::invalid_argument("not a device failure");
    ++device_proofs_;
    return cpu_->stage1(w, t);
  }
  std::atomic<size_t> calls_{0}, device_proofs_{0};

 private:
  std::unique_ptr<backend::ProverBackend> cpu_;
  std::vector<bool> fail_;
};

TEST(Backend, DeviceFailureIsRetriedOnTheCpu) {
  const auto& f = builtin_fixture("chain:2^10");
  std::vector<circuits::BuiltinWitness> wit = {f.witness(1), f.witness(2), f.witness(3)};
  std::vector<groth16::Witness> ws;
  std::vector<ec::Fr> r, s;
  std::vector<groth16::Proof> want;
  for (size_t i = 0; i < wit.size(); ++i) {
    ws.push_back({wit[i].inputs, wit[i].aux});
    const auto [ri, si] = test::fixed_rs(100 + i);
    r.push_back(ri), s.push_back(si);
    want.push_back(groth16::prove(f.pk, f.pce, wit[i].inputs, wit[i].aux, ri, si));
  }
  auto flaky = std::make_unique<FlakyBackend>(f, std::vector<bool>{false, true, false});
  FlakyBackend* raw = flaky.get();
  const auto be = backend::with_cpu_fallback(std::move(flaky), backend::make_cpu_backend(f.pk, f.pce));
  EXPECT_EQ(be->name(), "flaky");
  EXPECT_EQ(be->prove_many(ws, r, s), want);
  EXPECT_EQ(raw->calls_.load(), 3u);
  EXPECT_EQ(raw->device_proofs_.load(), 2u);  // the failed one went to the CPU
  for (size_t i = 0; i < wit.size(); ++i) EXPECT_TRUE(f.verifies(want[i], wit[i]));

  // Other errors are not device failures: no retry.
  const groth16::Witness bad{{}, wit[0].aux};
  EXPECT_THROW(be->stage1(bad), std::invalid_argument);

  // Without the wrapper the failure reaches the caller.
  FlakyBackend always(f, {true});
  EXPECT_THROW(always.stage1(ws[0], nullptr), backend::DeviceFailure);
}

TEST(Backend, RoundRobinKeepsProofOrder) {
  const auto& f = builtin_fixture("filecoin-like:2^10");
  static ThreadPool p1(2), p2(2), p3(2);
  std::vector<std::unique_ptr<backend::ProverBackend>> parts;
  for (ThreadPool* p : {&p1, &p2, &p3}) parts.push_back(backend::make_cpu_backend(f.pk, f.pce, p));
  const auto be = backend::spread_round_robin(std::move(parts));
  EXPECT_EQ(be->name(), "cpu+cpu+cpu");
  std::vector<circuits::BuiltinWitness> wit;
  for (uint64_t i = 0; i < 5; ++i) wit.push_back(f.witness(20 + i));
  std::vector<groth16::Witness> ws;
  std::vector<ec::Fr> r, s;
  for (size_t i = 0; i < wit.size(); ++i) {
    ws.push_back({wit[i].inputs, wit[i].aux});
    const auto [ri, si] = test::fixed_rs(200 + i);
    r.push_back(ri), s.push_back(si);
  }
  groth16::ProveTimings t;
  const std::vector<groth16::Proof> got = be->prove_many(ws, r, s, &t);
  ASSERT_EQ(got.size(), ws.size());
  for (size_t i = 0; i < ws.size(); ++i)
    EXPECT_EQ(got[i], groth16::prove(f.pk, f.pce, wit[i].inputs, wit[i].aux, r[i], s[i])) << i;
  EXPECT_GT(t.total_s(), 0.0);
  EXPECT_THROW(backend::spread_round_robin({}), std::invalid_argument);
}

}  // namespace
