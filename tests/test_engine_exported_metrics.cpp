// The engine's metrics that the Grafana dashboard (deploy/grafana/cuzk.json) reads beyond the
// stage histograms: the wait for the prover and the device stage's parts per partition, key and
// PCE loads by source, sampled totals (memory waits, peak RSS) and each prover lane's busy
// seconds, on the CPU and on (fake) GPUs whose two workers overlap.
#include <gtest/gtest.h>

#include "engine_test_support.hpp"

namespace {

using namespace cuzk::engine_test;

TEST(EngineExportedMetrics, PartitionWaitsPartsLoadsAndSampledTotals) {
  TempDir dir;
  {
    Engine engine(test_config(dir.str()));
    engine.start();
    EXPECT_EQ(metric(engine, "cuzk_srs_load_seconds_count"), 0);
    // Full synthesis on the first job (the PCE is extracted in the background), then the PCE.
    expect_valid(engine, prove_now(engine, "chain:2^9", 2, 1), "chain:2^9");
    engine.pce_cache().wait_idle();
    expect_valid(engine, prove_now(engine, "chain:2^9", 2, 2), "chain:2^9");
    EXPECT_EQ(metric(engine, "cuzk_prover_wait_seconds_count"), 4) << engine.metrics_text();
    EXPECT_EQ(metric(engine, "cuzk_srs_load_seconds_count"), 1) << "the second job found the keys loaded";
    EXPECT_EQ(metric(engine, "cuzk_srs_load_failures_total"), 0);
    EXPECT_EQ(metric(engine, "cuzk_pce_load_seconds_count{source=\"extract\"}"), 1) << engine.metrics_text();
    EXPECT_EQ(metric(engine, "cuzk_pce_load_seconds_count{source=\"file\"}"), 0);
    // A CPU device stage: the MSMs and H, no upload.
    EXPECT_EQ(metric(engine, "cuzk_device_part_seconds_count{part=\"msm_g1\"}"), 4) << engine.metrics_text();
    EXPECT_EQ(metric(engine, "cuzk_device_part_seconds_count{part=\"msm_g2\"}"), 4);
    EXPECT_EQ(metric(engine, "cuzk_device_part_seconds_count{part=\"upload\"}"), 0);
    EXPECT_NE(engine.metrics_text().find("\ncuzk_device_part_seconds_count{part=\"upload\"} 0\n"), std::string::npos)
        << "every part is exported from the start";
    // The CPU's prover lane (one worker: test_config) is busy for exactly its device stages.
    const double busy = metric(engine, "cuzk_prover_busy_seconds_total{backend=\"cpu\"}");
    const double prover_stage = metric(engine, "cuzk_stage_seconds_sum{stage=\"prove\"}");
    EXPECT_GT(busy, 0);
    EXPECT_GE(busy, prover_stage * 0.99);
    EXPECT_LE(busy, metric(engine, "cuzk_uptime_seconds"));
    EXPECT_EQ(engine.metrics_text().find("cuzk_prover_busy_seconds_total{backend=\"gpu"), std::string::npos);
    EXPECT_GT(metric(engine, "cuzk_process_peak_rss_bytes"), 0);
    // Within one scrape (two scrapes sample the resident size twice).
    const std::string scrape = engine.metrics_text();
    EXPECT_GE(metric_in(scrape, "cuzk_process_peak_rss_bytes"), metric_in(scrape, "cuzk_process_rss_bytes"));
    EXPECT_NE(engine.metrics_text().find("\ncuzk_memory_waits_total 0\n"), std::string::npos) << engine.metrics_text();
  }
  // A restarted engine opens the cached PCE: a load from a file.
  {
    Engine again(test_config(dir.str()));
    again.start();
    EXPECT_EQ(metric(again, "cuzk_pce_load_seconds_count{source=\"file\"}"), 1) << again.metrics_text();
  }
  // A cached file that no longer loads (its header intact, its checksums not): failed loads from
  // the file (at the scan, and when the job asks for it), then an extraction.
  const std::string pce = dir.str() + "/pce/chain_512.pce";
  {
    std::fstream f(pce, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-64, std::ios::end);
    f << std::string(64, '\xff');
  }
  Engine third(test_config(dir.str()));
  third.start();
  expect_valid(third, prove_now(third, "chain:2^9", 1, 3), "chain:2^9");
  third.pce_cache().wait_idle();
  EXPECT_GE(metric(third, "cuzk_pce_load_failures_total{source=\"file\"}"), 1) << third.metrics_text();
  EXPECT_EQ(metric(third, "cuzk_pce_load_seconds_count{source=\"file\"}"), 0);
  EXPECT_EQ(metric(third, "cuzk_pce_load_seconds_count{source=\"extract\"}"), 1);
}

// Two workers on one GPU overlap (a witness uploads while the other's kernels run): the GPU's busy
// seconds count that time once, so they stay below the two workers' busy seconds added up.
TEST(EngineExportedMetrics, AGpusBusySecondsCountItsOverlappingWorkersOnce) {
  TempDir dir;
  Config cfg = test_config(dir.str(), 2);
  cfg.synthesis.lookahead = 4;
  cfg.gpus.deadline_workers = 0;
  std::map<int, FakeDevice> devs;
  devs[0].concurrency = 2;
  devs[0].wait = 200ms;
  Engine engine(cfg, fake_devices({0}, devs));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^8").ok());
  expect_valid(engine, prove_now(engine, "chain:2^8", 4, 5), "chain:2^8");
  const double gpu = metric(engine, "cuzk_prover_busy_seconds_total{backend=\"gpu:0\"}");
  const double workers = metric(engine, "cuzk_worker_busy_seconds{worker=\"prover-gpu0-0\"}") +
                         metric(engine, "cuzk_worker_busy_seconds{worker=\"prover-gpu0-1\"}");
  EXPECT_GE(gpu, 0.4) << "four stages of at least 0.2 s, two at a time";
  EXPECT_LT(gpu, workers - 0.1) << engine.metrics_text();
  EXPECT_EQ(engine.metrics_text().find("cuzk_prover_busy_seconds_total{backend=\"cpu\"}"), std::string::npos)
      << "a GPU daemon's lanes are its GPUs";
  EXPECT_EQ(metric(engine, "cuzk_prover_wait_seconds_count"), 4);
}

}  // namespace
