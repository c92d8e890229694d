// The engine's device stage on GPUs (engine/gpu_pool) with fake devices that prove on the CPU:
// placement over devices, retries on another device or the CPU, device memory as a budget, keys
// streamed from their file, deadline workers; and on the machine's real GPUs (EngineGpuDevice,
// skipped without one).
#include <gtest/gtest.h>

#include "engine_test_support.hpp"

namespace {

using namespace cuzk::engine_test;

TEST(EngineGpuPool, PartitionsRunOnEveryDeviceAndProofsVerify) {
  TwoBusyDevices t;
  Engine& engine = t.engine;
  std::map<int, FakeDevice>& devs = t.devs;
  t.start_and_prove("chain:2^10", 6, 1);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}") +
                metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:1\"}"),
            6);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0);
  // One resident prover per device that took work, reused by every partition.
  EXPECT_LE(devs[0].built + devs[1].built, 2);
  EXPECT_GE(
      metric(engine, "cuzk_gpu_resident_bytes{device=\"0\"}") + metric(engine, "cuzk_gpu_resident_bytes{device=\"1\"}"),
      1000);
  // Two prover workers per device (gpus.workers_per_device), and a deadline worker on each.
  int gpu_workers = 0, deadline = 0;
  for (const auto& w : engine.status().workers) {
    gpu_workers += w.name.rfind("prover-gpu", 0) == 0 && w.name.find("-deadline-") == std::string::npos;
    deadline += w.name.find("-deadline-") != std::string::npos;
  }
  EXPECT_EQ(gpu_workers, 4);
  EXPECT_EQ(deadline, 2);
}

// Two partitions at once on a device (a prover of two witness slots): the time one waits for the
// other's kernels is reported as device_wait_ms and counted as waiting for the prover, not as its
// device stage (prove_ms), so that the device stage's time stays the sum of its parts.
TEST(EngineGpuPool, AWitnessWaitingForTheOthersKernelsIsNotDeviceTime) {
  TempDir dir;
  Config cfg = test_config(dir.str(), 2);
  cfg.synthesis.lookahead = 4;
  std::map<int, FakeDevice> devs;
  devs[0].concurrency = 2;
  devs[0].wait = 400ms;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^8").ok());
  const JobResult r = prove_now(engine, "chain:2^8", 4, 3);
  expect_valid(engine, r, "chain:2^8");
  ASSERT_EQ(r.partition_timings.size(), 4u);
  for (const PartitionTiming& t : r.partition_timings) {
    SCOPED_TRACE("partition " + std::to_string(t.index));
    EXPECT_EQ(t.device_wait_ms, 400.0);
    // The stage itself is a CPU proof of 2^8 constraints: far less than the wait it excludes.
    EXPECT_LT(t.prove_ms, 400.0);
    EXPECT_GE(t.prove_start_ms, t.synthesis_start_ms + t.synthesis_ms + 400.0);
  }
}

// [gpus] is how a device's prover is made: the G2 MSM's place, the window tables, two witness
// slots from two or more workers, and H beside the MSMs.
TEST(EngineGpuPool, TheGpusSectionIsHowAProverIsFit) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.gpus.workers_per_device = 3;
  cfg.gpus.g2_msm = "cpu";
  cfg.gpus.msm_table_bits = 12;
  cfg.gpus.overlap_h = true;
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^8").ok());
  ASSERT_TRUE(devs[0].fit.has_value());
  EXPECT_FALSE(devs[0].fit->b_g2_on_gpu);
  EXPECT_EQ(devs[0].fit->msm_table_bits, 12u);
  EXPECT_EQ(devs[0].fit->witness_slots, 2u);
  EXPECT_TRUE(devs[0].fit->overlap_h);
}

TEST(EngineGpuPool, ADeviceErrorIsRetriedOnTheOtherDevice) {
  TwoBusyDevices t;
  Engine& engine = t.engine;
  std::map<int, FakeDevice>& devs = t.devs;
  devs[0].fail_calls = -1;  // device 0 always fails
  t.start_and_prove("chain:2^9", 8, 2);
  // Every partition ended on device 1; those that tried device 0 first were counted as errors.
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:1\"}"), 8);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 0);
  EXPECT_GE(metric(engine, "cuzk_device_errors_total"), 1);
}

// A device that fails in the middle of a batch, after proving its first partitions: that
// partition is retried (one GPU: on the CPU), the rest stay on the device, the proof verifies, and
// the error and the retry are in the metrics.
TEST(EngineGpuPool, AnErrorMidBatchIsRetriedOnTheCpuAndCounted) {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Engine engine(test_config(dir.str()), fake_devices({0}, devs));
  devs[0].fail_call = [](int call) { return call == 3; };
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  const JobResult r = prove_now(engine, "chain:2^9", 6, 21);
  expect_valid(engine, r, "chain:2^9");
  EXPECT_EQ(devs[0].calls, 6);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 5);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 1);
  EXPECT_EQ(metric(engine, "cuzk_device_errors_total"), 1);
  EXPECT_EQ(metric(engine, "cuzk_device_retries_total"), 1);
  EXPECT_EQ(metric(engine, "cuzk_proofs_failed_total"), 0);
  EXPECT_EQ(metric(engine, "cuzk_proofs_completed_total"), 1);
  // Exactly one partition says it ran on the CPU.
  int on_cpu = 0;
  for (const PartitionTiming& t : r.partition_timings) on_cpu += t.backend == "cpu";
  EXPECT_EQ(on_cpu, 1);
}

// A device lost mid-batch (every call from its second on fails): its partitions move to the other
// device, none to the CPU, and every error is one retry.
TEST(EngineGpuPool, ADeviceLostMidBatchHandsItsPartitionsToTheOther) {
  TwoBusyDevices t;
  Engine& engine = t.engine;
  std::map<int, FakeDevice>& devs = t.devs;
  devs[0].fail_call = [](int call) { return call >= 2; };
  t.start_and_prove("chain:2^9", 8, 22);
  EXPECT_GE(devs[0].calls, 2) << "device 0 never met its failure";
  const double on0 = metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}");
  EXPECT_EQ(on0, 1);
  EXPECT_EQ(on0 + metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:1\"}"), 8);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0);
  const double errors = metric(engine, "cuzk_device_errors_total");
  EXPECT_EQ(errors, devs[0].calls - 1);
  EXPECT_EQ(metric(engine, "cuzk_device_retries_total"), errors);
}

TEST(EngineGpuPool, OneDeviceRetriesOnTheCpuAndTwoFailuresFailTheJob) {
  {
    TempDir dir;
    std::map<int, FakeDevice> devs;
    Engine engine(test_config(dir.str()), fake_devices({0}, devs));
    devs[0].fail_calls = 1;  // the first call fails, then the device works again
    engine.start();
    ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
    expect_valid(engine, prove_now(engine, "chain:2^9", 3, 3), "chain:2^9");
    EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 1);
    EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 2);
    EXPECT_EQ(metric(engine, "cuzk_device_errors_total"), 1);
  }
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Engine engine(test_config(dir.str()), fake_devices({0, 1}, devs));
  devs[0].fail_calls = -1;
  devs[1].fail_calls = -1;
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  const JobResult r = prove_now(engine, "chain:2^9", 1, 4);
  EXPECT_EQ(r.status, JobStatus::Failed);
  EXPECT_NE(r.error_message.find("failed twice"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("gpu:0"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("gpu:1"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.proof.size(), 0u);
  // Two errors, one retry (which failed), one failed proof.
  EXPECT_EQ(metric(engine, "cuzk_device_errors_total"), 2);
  EXPECT_EQ(metric(engine, "cuzk_device_retries_total"), 1);
  EXPECT_EQ(metric(engine, "cuzk_proofs_failed_total"), 1);
  // The engine keeps serving.
  devs[0].fail_calls = 0;
  devs[1].fail_calls = 0;
  expect_valid(engine, prove_now(engine, "chain:2^9", 2, 5), "chain:2^9");
}

// While GPUs prove, the keys stay in their file: the devices read the bases from it, the host
// holds no copy (at 32 GiB 47 GiB); a partition that falls back to the CPU loads the copy then,
// and it stays for the next.
TEST(EngineGpuPool, KeysStayInTheirFileUntilACpuNeedsThem) {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Engine engine(test_config(dir.str()), fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  EXPECT_EQ(devs[0].built, 1);  // the preload built the device prover
  ASSERT_EQ(engine.status().srs.size(), 1u);
  EXPECT_EQ(srs_host_bytes(engine, "chain:512"), 0u);
  expect_valid(engine, prove_now(engine, "chain:2^9", 2, 3), "chain:2^9");
  EXPECT_EQ(devs[0].built, 1);
  EXPECT_EQ(srs_host_bytes(engine, "chain:512"), 0u);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 2);

  devs[0].fail_calls = 1;  // one partition's device stage fails and is proven on the CPU
  expect_valid(engine, prove_now(engine, "chain:2^9", 1, 4), "chain:2^9");
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 1);
  const uint64_t host = srs_host_bytes(engine, "chain:512");
  EXPECT_GT(host, 0u);
  // The copy is accounted in the memory budget, and kept.
  EXPECT_GE(engine.status().memory_used_bytes, host);
  expect_valid(engine, prove_now(engine, "chain:2^9", 1, 5), "chain:2^9");
  EXPECT_EQ(srs_host_bytes(engine, "chain:512"), host);
}

// A key made in memory has no file to stream from: the devices upload its bases from the key in
// memory, which stays (and stays accounted) while the GPUs prove.
TEST(EngineGpuPool, AKeyMadeInMemoryFeedsTheDevices) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.srs.test_keys = "memory";
  ASSERT_TRUE(cfg.finalize().ok());
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  EXPECT_EQ(devs[0].built, 1);
  expect_valid(engine, prove_now(engine, "chain:2^9", 2, 6), "chain:2^9");
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 2);
  EXPECT_GT(srs_host_bytes(engine, "chain:512"), 0u);
  EXPECT_EQ(srs_info(engine, "chain:512").storage, "memory");
  EXPECT_EQ(key_files(dir.str()), std::vector<std::string>{});
}

// Without GPUs the keys are loaded whole at preload, as before.
TEST(EngineGpuPool, WithoutGpusTheKeysAreLoadedAtPreload) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.gpus.backend = "cpu";
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  EXPECT_EQ(devs[0].built, 0);
  EXPECT_GT(srs_host_bytes(engine, "chain:512"), 0u);
}

// A CRITICAL partition (a WinningPoSt's default) while a long NORMAL one holds the device's prover
// worker and the batch holds every lookahead slot: it passes the lookahead without a slot, and the
// device's deadline worker proves it beside the long one (another circuit: another resident
// prover) instead of after it.
TEST(EngineGpuPool, ACriticalPartitionRunsBesideALongOne) {
  TempDir dir;
  Config cfg = test_config(dir.str(), 2);
  cfg.synthesis.lookahead = 2;
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  devs[0].delay = 400ms;
  engine.start();
  for (const char* c : {"chain:2^9", "chain:2^10"}) ASSERT_TRUE(engine.preload_srs(c).ok());
  auto b = engine.submit(builtin_request("chain:2^9", 6, "", 0, 1));
  ASSERT_TRUE(b.ok()) << b.error.message;
  // Wait until the batch holds every slot (partitions wait for the busy prover). One status
  // snapshot for both counts, and the prover busy too: two partitions queued before the device
  // worker takes the first is a passing moment, not that state.
  const auto until = std::chrono::steady_clock::now() + 30s;
  auto prover_busy_and_two_waiting = [&] {
    uint32_t pending = 0, running = 0;
    for (const QueueInfo& q : engine.status().stage_queues) {
      if (q.stage != "prove") continue;
      pending += q.pending;
      running += q.in_progress;
    }
    return pending >= 2 && running >= 1;
  };
  bool held = false;
  while (!(held = prover_busy_and_two_waiting()) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_TRUE(held) << "the batch never held the prover and two waiting partitions";
  auto c = engine.submit(builtin_request("chain:2^10", 1, "", static_cast<int>(Priority::Critical), 2));
  ASSERT_TRUE(c.ok()) << c.error.message;
  const JobResult cr = *engine.await(c.value->job_id, 60s);
  expect_valid(engine, cr, "chain:2^10");
  ASSERT_EQ(cr.partition_timings.size(), 1u);
  const PartitionTiming& t = cr.partition_timings[0];
  // Synthesized at once (no slot to wait for: the batch's would free only every 400 ms), and on
  // the device at once after that (not after the long partition).
  EXPECT_LT(t.synthesis_start_ms, 200) << "waited for a lookahead slot";
  EXPECT_LT(t.prove_start_ms - (t.synthesis_start_ms + t.synthesis_ms), 200) << "waited for the prover worker";
  EXPECT_EQ(t.backend, "gpu:0");
  expect_valid(engine, *engine.await(b.value->job_id, 60s), "chain:2^9");
}

TEST(EngineGpuPool, DeviceMemoryIsABudgetOfItsOwn) {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  devs[0].capacity = 1;  // one circuit's prover at a time
  Engine engine(test_config(dir.str()), fake_devices({0}, devs));
  engine.start();
  for (const char* c : {"chain:2^9", "chain:2^10"}) ASSERT_TRUE(engine.preload_srs(c).ok());
  expect_valid(engine, prove_now(engine, "chain:2^9", 1, 6), "chain:2^9");
  expect_valid(engine, prove_now(engine, "chain:2^10", 1, 7), "chain:2^10");  // evicts chain:2^9's prover
  expect_valid(engine, prove_now(engine, "chain:2^9", 1, 8), "chain:2^9");    // and back
  EXPECT_EQ(devs[0].built, 3);
  EXPECT_EQ(devs[0].resident, 1);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 3);
  EXPECT_EQ(metric(engine, "cuzk_gpu_resident_bytes{device=\"0\"}"), 1000);
  // Evicting a circuit's keys drops its device prover too.
  ASSERT_TRUE(engine.evict_srs("chain:2^9").ok());
  EXPECT_EQ(devs[0].resident, 0);
}

TEST(EngineGpuPool, IdleDeviceProversLetTheHostBudgetEvictTheirKeys) {
  TempDir dir;
  const uint64_t largest = largest_keys_and_pce(dir.str(), {"chain:2^11", "filecoin-like:2^11"});
  ASSERT_GT(largest, 0u);
  // Room for one circuit's keys and PCE and its partitions, not for two circuits.
  Config cfg = test_config(dir.str());
  cfg.memory.total_budget = largest + (1ull << 20);
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  expect_valid(engine, prove_now(engine, "chain:2^11", 1, 14), "chain:2^11");
  EXPECT_EQ(devs[0].resident, 1);
  // The second circuit needs the first one's host memory, held by its idle device prover.
  expect_valid(engine, prove_now(engine, "filecoin-like:2^11", 1, 15), "filecoin-like:2^11");
  EXPECT_LE(engine.budget().peak_used(), engine.budget().limit());
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}") +
                metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"),
            2);
}

TEST(EngineGpuPool, ARecentlyUsedProverSurvivesMemoryPressure) {
  // Room for the keys, the PCE and about one partition on the GPU path: partitions wait for each
  // other's memory and ask the evictor, while the device prover is idle between them. It was
  // used within eviction_min_idle, so dropping it would free nothing (its keys stay cached) and
  // cost a rebuild each time (at 32 GiB, a 10 s upload per partition).
  TempDir dir;
  const uint64_t largest = largest_keys_and_pce(dir.str(), {"chain:2^11"});
  Config cfg = test_config(dir.str());
  cfg.memory.eviction_min_idle_s = 300;
  cfg.memory.total_budget = largest + (400ull << 10);
  cfg.synthesis.lookahead = 4;
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  expect_valid(engine, prove_now(engine, "chain:2^11", 6, 21), "chain:2^11");
  expect_valid(engine, prove_now(engine, "chain:2^11", 4, 22), "chain:2^11");
  EXPECT_EQ(devs[0].built, 1);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:0\"}"), 10);
  EXPECT_LE(engine.budget().peak_used(), engine.budget().limit());
}

TEST(EngineGpuPool, PartitionsOnTheGpuReserveOnlyTheirHostMemory) {
  auto spec = circuits::parse_builtin("chain:2^11");
  ASSERT_TRUE(spec.ok());
  auto pce = std::make_shared<const pce::Pce>(pce::build_pce(circuits::record_builtin(*spec), {"t", {}, false}));
  CircuitDef def;
  def.id = "chain:2048";
  const auto rt = make_runtime(def, nullptr, pce);
  const uint64_t vars = pce->num_inputs() + pce->num_aux(), m = poly::Domain::size_for(pce->num_constraints());
  // On a GPU: the witness (32 B a variable) and the CPU G2 MSM's digits (16 B); on the CPU also
  // a, b, c and H at the domain size.
  EXPECT_EQ(partition_bytes(*rt, 0, true), vars * 48 + (256u << 10));
  EXPECT_EQ(partition_bytes(*rt, 0, false), vars * 48 + 4 * m * 32 + (256u << 10));
}

TEST(EngineGpuPool, ACircuitThatDoesNotFitRunsOnTheCpuUnlessTheGpuIsRequired) {
  {
    TempDir dir;
    std::map<int, FakeDevice> devs;
    devs[0].capacity = 0;
    Engine engine(test_config(dir.str()), fake_devices({0}, devs));
    engine.start();
    ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
    expect_valid(engine, prove_now(engine, "chain:2^9", 2, 9), "chain:2^9");
    EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 2);
  }
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.gpus.backend = "gpu";
  std::map<int, FakeDevice> devs;
  devs[0].capacity = 0;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  const JobResult r = prove_now(engine, "chain:2^9", 1, 10);
  EXPECT_EQ(r.status, JobStatus::Failed);
  EXPECT_NE(r.error_message.find("device memory full"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("gpus.backend = \"gpu\""), std::string::npos) << r.error_message;
}

TEST(EngineGpuPool, ZkeyCircuitsProveOnTheDevicesToo) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  add_zkey_circuit(cfg, "mix-zkey", "mix");
  std::map<int, FakeDevice> devs;
  Engine engine(cfg, fake_devices({0, 1}, devs));
  devs[0].fail_calls = -1;  // every attempt on device 0 fails and is retried on device 1
  engine.start();
  auto s = engine.submit(wtns_request("mix-zkey", "mix", 3));
  ASSERT_TRUE(s.ok()) << s.error.message;
  expect_valid(engine, *engine.await(s.value->job_id, 60s), "mix-zkey");
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"gpu:1\"}"), 3) << engine.metrics_text();
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0);
  EXPECT_EQ(devs[1].built, 1);  // one resident zkey prover, reused
}

TEST(EngineGpuPool, BackendSelection) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.gpus.backend = "gpu";
  std::map<int, FakeDevice> devs;
  Engine none(cfg, fake_devices({}, devs));
  EXPECT_THROW(none.start(), std::runtime_error);
  // "cpu" ignores the devices: every partition on the CPU, MatVec included.
  cfg.gpus.backend = "cpu";
  Engine cpu(cfg, fake_devices({0}, devs));
  cpu.start();
  ASSERT_TRUE(cpu.preload_srs("chain:2^9").ok());
  expect_valid(cpu, prove_now(cpu, "chain:2^9", 1, 11), "chain:2^9");
  EXPECT_EQ(metric(cpu, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 1);
  EXPECT_EQ(devs[0].built, 0);
  Config bad = test_config(dir.str());
  bad.gpus.backend = "tpu";
  EXPECT_FALSE(bad.finalize().ok());
  bad.gpus.backend = "auto";
  bad.gpus.g2_msm = "fpga";
  EXPECT_FALSE(bad.finalize().ok());
  bad.gpus.g2_msm = "gpu";
  for (unsigned bits : {1u, 25u}) {
    bad.gpus.msm_table_bits = bits;
    const auto r = bad.finalize();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("gpus.msm_table_bits"), std::string::npos) << r.error();
  }
  for (unsigned bits : {0u, 2u, 20u, 24u}) {
    bad.gpus.msm_table_bits = bits;
    EXPECT_TRUE(bad.finalize().ok()) << bits;
  }
}

// On a machine with GPUs (ctest label gpu): the real devices, a built-in circuit and a sealed 2 KiB
// PoRep sector, every proof verified. Skipped without a device.
TEST(EngineGpuDevice, ProvesOnTheRealDevices) {
  if (backend::available_devices().ordinals.empty()) GTEST_SKIP() << "no GPU";
  TempDir dir;
  Config cfg = test_config(dir.str(), 2);
  cfg.gpus.backend = "gpu";
  cfg.synthesis.lookahead = 4;
  Engine engine(cfg);
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^12").ok());
  expect_valid(engine, prove_now(engine, "chain:2^12", 8, 12), "chain:2^12");
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0) << engine.metrics_text();
  EXPECT_GT(metric(engine, "cuzk_gpu_resident_bytes{device=\"0\"}"), 0);
  {
    // A zkey circuit: the snarkjs-convention proof made on the device.
    TempDir dz;
    Config cz = test_config(dz.str());
    cz.gpus.backend = "gpu";
    add_zkey_circuit(cz, "mix-zkey", "mix");
    Engine ez(cz);
    ez.start();
    auto s = ez.submit(wtns_request("mix-zkey", "mix", 2));
    ASSERT_TRUE(s.ok()) << s.error.message;
    expect_valid(ez, *ez.await(s.value->job_id, 60s), "mix-zkey");
    EXPECT_EQ(metric(ez, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0) << ez.metrics_text();
  }
  for (const char* g2 : {"gpu", "cpu", "gpu+tables"}) {
    TempDir d2;
    Config c2 = test_config(d2.str(), 2);
    c2.gpus.backend = "gpu";
    c2.gpus.g2_msm = std::string(g2) == "cpu" ? "cpu" : "gpu";
    c2.gpus.msm_table_bits = std::string(g2) == "gpu+tables" ? 9 : 0;  // MSM window tables
    Engine e2(c2);
    e2.start();
    ASSERT_TRUE(e2.preload_srs("chain:2^10").ok());
    expect_valid(e2, prove_now(e2, "chain:2^10", 2, 13), "chain:2^10");
    EXPECT_EQ(metric(e2, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0) << g2;
  }
}

}  // namespace
