// The seed daemon's cuzk.toml (Curio's Rust cuzk) loads here: its keys are read into ours where
// they mean the same, the others accepted with one warning each; the same setting under both names
// with different values is an error naming both; our own unknown keys stay errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/config.hpp"

namespace seed_config_test {

using cuzk::engine::Config;
using cuzk::engine::parse_config;

const std::string kFixture = std::string(CUZK_SOURCE_DIR) + "/tests/config/seed-cuzk.toml";

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string seed_error(const std::string& toml) {
  auto cfg = parse_config(toml, "s.toml");
  if (!cfg) return cfg.error();
  auto r = cfg->finalize();
  return r ? "" : r.error();
}

std::map<std::string, std::string> warnings_by_key(const Config& c) {
  std::map<std::string, std::string> out;
  for (const auto& w : c.warnings) {
    EXPECT_EQ(out.count(w.key), 0u) << "one warning per key: " << w.key;
    out[w.key] = w.message;
  }
  return out;
}

TEST(SeedConfig, TheSeedsExampleFileLoadsWithItsKeysMapped) {
  auto loaded = cuzk::engine::load_config(kFixture);
  ASSERT_FALSE(loaded.ok()) << "its listen is 0.0.0.0:9820, which needs an explicit opt-in here";
  EXPECT_TRUE(has(loaded.error(), "daemon.listen = \"0.0.0.0:9820\"")) << loaded.error();
  EXPECT_TRUE(has(loaded.error(), "daemon.allow_unauthenticated_from")) << loaded.error();

  std::ifstream in(kFixture);
  std::stringstream text;
  text << in.rdbuf();
  auto cfg = parse_config(text.str(), "seed.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  const Config& c = *cfg;
  // Mapped: the seed's name, our key.
  EXPECT_EQ(c.daemon.listen, "0.0.0.0:9820");
  EXPECT_EQ(c.daemon.metrics_listen, "0.0.0.0:9821");  // daemon.status_listen
  EXPECT_EQ(c.prover.threads, 32u);                    // gpus.gpu_threads
  EXPECT_EQ(c.gpus.workers_per_device, 2u);            // gpus.gpu_workers_per_device
  EXPECT_EQ(c.synthesis.workers, 18u);                 // pipeline.max_parallel_synthesis
  EXPECT_EQ(c.srs.param_dir, "/data/zk/params");       // srs.param_cache
  // The same keys as ours.
  EXPECT_EQ(c.memory.total_budget, 0u);  // "auto"
  EXPECT_EQ(c.memory.safety_margin, 5ull << 30);
  EXPECT_EQ(c.memory.eviction_min_idle_s, 300.0);
  EXPECT_TRUE(c.gpus.devices.empty());
  EXPECT_EQ(c.synthesis.threads, 0u);
  EXPECT_EQ(c.logging.level, "info");
  EXPECT_EQ(c.logging.format, "json");
  // Not preloaded (the seed ignored preload): dropped with a warning.
  EXPECT_TRUE(c.srs.preload.empty());
  EXPECT_EQ(c.seed_names,
            (std::map<std::string, std::string>{{"daemon.metrics_listen", "daemon.status_listen"},
                                                {"gpus.workers_per_device", "gpus.gpu_workers_per_device"},
                                                {"prover.threads", "gpus.gpu_threads"},
                                                {"srs.param_dir", "srs.param_cache"},
                                                {"synthesis.workers", "pipeline.max_parallel_synthesis"}}));
  for (const char* k :
       {"daemon.metrics_listen", "prover.threads", "gpus.workers_per_device", "synthesis.workers", "srs.param_dir"}) {
    EXPECT_EQ(c.explicit_keys.count(k), 1u) << k << ": set by the file, under the seed's name";
  }

  const auto w = warnings_by_key(c);
  std::vector<std::string> keys;
  for (const auto& [k, m] : w) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"memory.pinned_budget", "memory.working_memory_budget", "pipeline.enabled",
                                            "pipeline.max_gpu_queue_depth", "pipeline.slot_size",
                                            "pipeline.synthesis_concurrency", "pipeline.synthesis_lookahead",
                                            "scheduler.max_batch_size", "scheduler.max_batch_wait_ms",
                                            "scheduler.sort_by_type", "srs.preload", "synthesis.partition_workers"}));
  for (const auto& [k, m] : w) {
    if (k == "srs.preload") continue;
    EXPECT_EQ(m.rfind(k + " (a key of the seed daemon's configuration) has no effect here: ", 0), 0u) << m;
  }
  EXPECT_EQ(w.at("scheduler.max_batch_wait_ms"),
            "scheduler.max_batch_wait_ms (a key of the seed daemon's configuration) has no effect here: the seed's "
            "batch fill timeout; nothing is batched here");
  EXPECT_EQ(w.at("srs.preload"),
            "srs.preload: \"porep-32g\" (the seed daemon's circuit ids) are not preloaded: the seed ignored "
            "srs.preload and loaded keys on first use, and so does this daemon; to load them at start here, list "
            "\"porep:32GiB\"");

  // With the opt-in Curio's remote setup needs, it finalizes.
  auto opted = parse_config(text.str(), "seed.toml");
  ASSERT_TRUE(opted.ok());
  opted->daemon.allow_remote = true;
  opted->daemon.allow_unauthenticated_from = {"10.0.0.0/8"};
  const auto r = opted->finalize();
  EXPECT_TRUE(r.ok()) << r.error();
}

TEST(SeedConfig, BothNamesWithDifferentValuesAreAnError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[daemon]\nstatus_listen = \"127.0.0.1:9821\"\nmetrics_listen = \"127.0.0.1:9822\"\n",
       "daemon.status_listen = \"127.0.0.1:9821\" and daemon.metrics_listen = \"127.0.0.1:9822\""},
      {"[gpus]\ngpu_threads = 32\n[prover]\nthreads = 16\n", "gpus.gpu_threads = 32 and prover.threads = 16"},
      {"[gpus]\ngpu_workers_per_device = 2\nworkers_per_device = 3\n",
       "gpus.gpu_workers_per_device = 2 and gpus.workers_per_device = 3"},
      {"[pipeline]\nmax_parallel_synthesis = 6\n[synthesis]\nworkers = 4\n",
       "pipeline.max_parallel_synthesis = 6 and synthesis.workers = 4"},
      {"[srs]\nparam_cache = \"/data/zk/params\"\nparam_dir = \"/var/tmp/params\"\n",
       "srs.param_cache = \"/data/zk/params\" and srs.param_dir = \"/var/tmp/params\""},
  };
  for (const auto& [toml, both] : cases) {
    SCOPED_TRACE(toml);
    const std::string e = seed_error(toml);
    EXPECT_TRUE(has(e, "s.toml:2:")) << e;
    EXPECT_TRUE(has(e, both + " set the same thing")) << e;
    EXPECT_TRUE(has(e, "to different values; keep one of them")) << e;
  }
  // The same value under both names (parsed, so any spelling of it) is fine.
  EXPECT_EQ(seed_error("[gpus]\ngpu_threads = 8\n[prover]\nthreads = 8\n"), "");
  EXPECT_EQ(seed_error("[srs]\nparam_cache = \"/p\"\nparam_dir = \"/p\"\n"), "");
  auto both = parse_config("[gpus]\ngpu_workers_per_device = 3\nworkers_per_device = 3\n", "s.toml");
  ASSERT_TRUE(both.ok()) << both.error();
  EXPECT_EQ(both->gpus.workers_per_device, 3u);
  EXPECT_TRUE(both->seed_names.empty()) << "our own key was given: messages name it";
}

TEST(SeedConfig, OnlyTheSeedsKnownKeysAreLenient) {
  std::string e = seed_error("[gpus]\ngpu_thread = 32\n");
  EXPECT_TRUE(has(e, "s.toml:2:1: unknown key 'gpu_thread' in [gpus]")) << e;
  e = seed_error("[pipeline]\nenable = true\n");
  EXPECT_TRUE(has(e, "unknown key 'enable' in [pipeline]")) << e;
  EXPECT_TRUE(has(e, "did you mean 'enabled'") || has(e,
                                                      "enabled, synthesis_lookahead, synthesis_concurrency, "
                                                      "max_parallel_synthesis, slot_size, max_gpu_queue_depth"))
      << e;
  e = seed_error("[daemon]\nstatus_listen = \"127.0.0.1:1\"\nlistne = \"x\"\n");
  EXPECT_TRUE(has(e, "unknown key 'listne' in [daemon]")) << e;
  // A seed key in another section than the seed's is not one.
  e = seed_error("[memory]\ngpu_threads = 4\n");
  EXPECT_TRUE(has(e, "unknown key 'gpu_threads' in [memory]")) << e;
}

TEST(SeedConfig, SeedValuesAreStillChecked) {
  std::string e = seed_error("[pipeline]\nenabled = 1\n");
  EXPECT_TRUE(has(e, "s.toml:2:11: pipeline.enabled: expected a boolean (true or false), got an integer")) << e;
  e = seed_error("[memory]\npinned_budget = \"50 gigs\"\n");
  EXPECT_TRUE(has(e, "memory.pinned_budget: invalid size \"50 gigs\"")) << e;
  e = seed_error("[gpus]\ngpu_threads = -1\n");
  EXPECT_TRUE(has(e, "gpus.gpu_threads (the seed daemon's name for prover.threads): expected a non-negative integer"))
      << e;
  // A mapped key's later checks name the seed's key the file used.
  e = seed_error("[gpus]\ngpu_workers_per_device = 0\n");
  EXPECT_EQ(e, "gpus.gpu_workers_per_device (gpus.workers_per_device here) must be at least 1");
  e = seed_error("[daemon]\nstatus_listen = \"0.0.0.0:9821\"\n");
  EXPECT_TRUE(has(e, "daemon.status_listen (daemon.metrics_listen here) = \"0.0.0.0:9821\"")) << e;
  EXPECT_TRUE(has(e, "daemon.allow_remote = true")) << e;
  // The seed's size and duration strings go through our parsers.
  auto c = parse_config(
      "[memory]\ntotal_budget = \"140GiB\"\nsafety_margin = \"626MiB\"\neviction_min_idle = \"10m\"\n", "s.toml");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->memory.total_budget, 140ull << 30);
  EXPECT_EQ(c->memory.safety_margin, 626ull << 20);
  EXPECT_EQ(c->memory.eviction_min_idle_s, 600.0);
  EXPECT_EQ(*cuzk::engine::parse_duration("300s"), 300.0);
  EXPECT_EQ(*cuzk::engine::parse_duration("60"), 60.0);
  EXPECT_EQ(*cuzk::engine::parse_size("50GB"), 50'000'000'000ull);
}

TEST(SeedConfig, SeedCircuitIdsInPreloadAreDroppedWithOneWarning) {
  auto c = parse_config(
      "[srs]\npreload = [\"porep-32g\", \"chain:2^10\", \"wpost-32g\", \"winning-32g\", \"snap-32g\", "
      "\"porep-64g\", \"snap-64g\", \"porep:2KiB\"]\n",
      "s.toml");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->srs.preload, (std::vector<std::string>{"chain:2^10", "porep:2KiB"}));
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0].key, "srs.preload");
  EXPECT_TRUE(has(c->warnings[0].message,
                  "srs.preload: \"porep-32g\", \"wpost-32g\", \"winning-32g\", \"snap-32g\", \"porep-64g\", "
                  "\"snap-64g\" (the seed daemon's circuit ids) are not preloaded"))
      << c->warnings[0].message;
  EXPECT_TRUE(has(c->warnings[0].message,
                  "list \"porep:32GiB\", \"window-post:32GiB\", \"winning-post:32GiB\", \"snap:32GiB\", "
                  "\"porep:64GiB\", \"snap:64GiB\""))
      << c->warnings[0].message;
  // Our own ids, and a file without seed keys: no warnings.
  auto ours = parse_config("[srs]\npreload = [\"porep:32GiB\"]\n[prover]\nthreads = 4\n", "s.toml");
  ASSERT_TRUE(ours.ok());
  EXPECT_TRUE(ours->warnings.empty());
  EXPECT_EQ(ours->srs.preload, std::vector<std::string>{"porep:32GiB"});
}

TEST(SeedConfig, ThePrintedConfigurationLoadsBackWithoutSeedKeys) {
  auto c = parse_config("[gpus]\ngpu_threads = 12\n[pipeline]\nslot_size = 3\n", "s.toml");
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_TRUE(c->finalize().ok());
  const std::string printed = cuzk::engine::config_to_toml(*c);
  EXPECT_FALSE(has(printed, "gpu_threads")) << printed;
  EXPECT_FALSE(has(printed, "[pipeline]")) << printed;
  auto again = parse_config(printed, "printed.toml");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->prover.threads, 12u);
  EXPECT_TRUE(again->warnings.empty());
}

}  // namespace seed_config_test
