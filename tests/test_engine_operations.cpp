// The daemon's long operations (engine/operations.hpp): the registry on its own (progress, end,
// failure, the log's rate limit), then the engine making test-only keys, extracting a PCE and
// building a (fake) device prover, each seen in status() mid-way with advancing progress, then gone.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "backend/placement.hpp"
#include "captured_log.hpp"
#include "engine/engine.hpp"
#include "groth16/key_source.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;
using namespace std::chrono_literals;

using test::CapturedLog;

TEST(Operations, ListsRunningOperationsWithTheirProgressUntilTheyEnd) {
  CapturedLog log;
  Operations ops;
  {
    Operations::Handle keys = ops.start("test_keys", "chain:2^10", "points");
    Operations::Handle pce = ops.start("pce_extract", "chain:2^12", "steps");
    keys.progress(25, 100);
    auto now = ops.snapshot();
    ASSERT_EQ(now.size(), 2u);
    EXPECT_EQ(now[0].what, "test_keys");  // oldest first
    EXPECT_EQ(now[0].circuit_id, "chain:2^10");
    EXPECT_EQ(now[0].unit, "points");
    EXPECT_EQ(now[0].done, 25u);
    EXPECT_EQ(now[0].total, 100u);
    EXPECT_DOUBLE_EQ(now[0].fraction, 0.25);
    EXPECT_GE(now[0].elapsed_seconds, 0.0);
    EXPECT_EQ(now[1].total, 0u);  // no measure yet: fraction 0, not NaN
    EXPECT_EQ(now[1].fraction, 0.0);
    pce.fail("disk full");
    Operations::Handle moved = std::move(pce);
    moved.end();
    moved.end();  // idempotent
    ASSERT_EQ(ops.snapshot().size(), 1u);
  }
  EXPECT_TRUE(ops.snapshot().empty());
  try {
    Operations::Handle op = ops.start("gpu_prover", "chain:2^10", "points");
    throw std::runtime_error("device error");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(ops.snapshot().empty());
  EXPECT_EQ(log.count("operation_start"), 3u);
  EXPECT_EQ(log.count("operation_end"), 1u);
  EXPECT_EQ(log.count("operation_failed"), 2u);    // "disk full", and the exception
  EXPECT_EQ(log.count("operation_progress"), 0u);  // under the 10 s interval
}

TEST(Operations, LogsAtMostOneProgressLinePerInterval) {
  CapturedLog log;
  Operations ops(40ms);
  const auto t0 = std::chrono::steady_clock::now();
  {
    Operations::Handle op = ops.start("gpu_prover", "porep:32GiB", "points");
    for (uint64_t i = 1; i <= 200; ++i) {
      op.progress(i, 200);
      std::this_thread::sleep_for(1ms);
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const size_t lines = log.count("operation_progress");
  EXPECT_GE(lines, 1u);                                   // 200 ms of work logs progress ...
  EXPECT_LE(lines, static_cast<size_t>(ms / 40.0) + 1u);  // ... but not one line per update
}

// A "device" prover that reads every point of its key through the source (as the daemon's GPU
// provers stream a .params file) and proves on the CPU.
class HostDevice final : public backend::DeviceProver {
 public:
  HostDevice(const groth16::KeySource& key, const pce::Pce& pce)
      : pk_(groth16::collect_key(key)), cpu_(backend::make_cpu_prover(pk_, pce)) {}
  std::string name() const override { return "gpu:0"; }
  uint64_t device_bytes() const override { return 1000; }
  backend::StageMsms stage1(const backend::WitnessRef& w, groth16::ProveTimings* t) override {
    return cpu_->stage1(w, t);
  }

 private:
  groth16::ProvingKey pk_;
  std::unique_ptr<backend::DeviceProver> cpu_;
};

TEST(EngineOperations, KeysPceAndDeviceProverShowInStatusWhileTheyRun) {
  test::TempDir dir;
  Config c;
  c.daemon.data_dir = dir.str();
  c.memory.total_budget = 2ull << 30;
  c.synthesis.workers = 1;
  c.synthesis.threads = 1;
  c.prover.workers = 1;
  ASSERT_TRUE(c.finalize().ok());
  backend::PlacementSetup one_device;
  one_device.devices = {0};
  one_device.factory = [](int, const backend::ProverKey& key, const backend::FitOptions&) {
    const auto& k = std::get<backend::PceKey>(key);
    return std::unique_ptr<backend::DeviceProver>(std::make_unique<HostDevice>(*k.key, *k.pce));
  };
  Engine engine(c, std::move(one_device));
  // What status() says at each progress update, per operation kind (the observer runs on the
  // working thread, outside the registry's lock).
  std::mutex mu;
  std::map<std::string, std::vector<OperationInfo>> seen;
  engine.operations().set_observer([&](const OperationInfo&) {
    for (const OperationInfo& op : engine.status().operations) {
      std::lock_guard lock(mu);
      seen[op.what].push_back(op);
    }
  });
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^10").ok());  // the PCE, the keys, the device prover
  EXPECT_TRUE(engine.status().operations.empty());
  std::lock_guard lock(mu);
  for (const char* what : {"pce_extract", "test_keys", "gpu_prover"}) {
    const std::vector<OperationInfo>& v = seen[what];
    ASSERT_GE(v.size(), 2u) << what;
    EXPECT_EQ(v.front().circuit_id, "chain:1024") << what;  // the canonical id
    EXPECT_GT(v.back().total, 0u) << what;
    EXPECT_EQ(v.back().done, v.back().total) << what;  // the last update: all done
    EXPECT_LT(v.front().done, v.back().done) << what;  // advancing
    for (size_t i = 1; i < v.size(); ++i) {
      EXPECT_LE(v[i - 1].fraction, v[i].fraction) << what;
      EXPECT_LE(v[i].done, v[i].total) << what;
    }
  }
  EXPECT_EQ(seen["test_keys"].back().unit, "points");
  EXPECT_EQ(seen["pce_extract"].back().total, 3u);
}

}  // namespace
