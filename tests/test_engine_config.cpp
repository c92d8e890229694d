#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "engine/circuit_registry.hpp"
#include "engine/config.hpp"
#include "engine/test_keys.hpp"
#include "filecoin/registered_proof.hpp"
#include "test_helpers.hpp"

namespace fs = std::filesystem;
using cuzk::engine::Config;
using cuzk::engine::config_to_toml;
using cuzk::engine::default_config;
using cuzk::engine::load_config;
using cuzk::engine::parse_config;
using cuzk::engine::parse_duration;
using cuzk::engine::parse_size;

namespace {

using cuzk::test::TempDir;

// Sets or unsets an environment variable for one test and restores it afterwards.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// parse_config + finalize(); returns the error message, or "" on success.
std::string finalize_error(const std::string& toml) {
  auto cfg = parse_config(toml, "t.toml");
  if (!cfg) return "parse: " + cfg.error();
  auto r = cfg->finalize();
  return r ? "" : r.error();
}

std::string parse_error(const std::string& toml) {
  auto cfg = parse_config(toml, "t.toml");
  return cfg ? "" : cfg.error();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Sizes and durations

TEST(EngineConfig, ParseSizeExactValues) {
  EXPECT_EQ(*parse_size("5GiB"), 5ull << 30);
  EXPECT_EQ(*parse_size("512MiB"), 512ull << 20);
  EXPECT_EQ(*parse_size("2GB"), 2000000000ull);
  EXPECT_EQ(*parse_size("100MB"), 100000000ull);
  EXPECT_EQ(*parse_size("4096"), 4096ull);
  EXPECT_EQ(*parse_size("4096B"), 4096ull);
  EXPECT_EQ(*parse_size("3KiB"), 3072ull);
  EXPECT_EQ(*parse_size("3KB"), 3000ull);
  EXPECT_EQ(*parse_size("2TiB"), 2ull << 40);
  EXPECT_EQ(*parse_size("1TB"), 1000000000000ull);
  EXPECT_EQ(*parse_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*parse_size("0.25MB"), 250000ull);
  EXPECT_EQ(*parse_size(" 8 gib "), 8ull << 30);
  EXPECT_EQ(*parse_size("0"), 0ull);
  EXPECT_EQ(*parse_size("18446744073709551615"), ~0ull);
}

TEST(EngineConfig, ParseSizeErrors) {
  for (const char* bad :
       {"", "GiB", "5XB", "5GB2", "-1", "1.5", "1.GiB", "5 G", "18446744073709551616", "16777216TiB", "auto"}) {
    auto r = parse_size(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(contains(r.error(), "size")) << r.error();
  }
  EXPECT_TRUE(contains(parse_size("5XB").error(), "GiB")) << "the message lists the units";
  EXPECT_TRUE(contains(parse_size("16777216TiB").error(), "too large"));
}

TEST(EngineConfig, ParseDurationExactValues) {
  EXPECT_EQ(*parse_duration("5m"), 300.0);
  EXPECT_EQ(*parse_duration("30s"), 30.0);
  EXPECT_EQ(*parse_duration("250ms"), 0.25);
  EXPECT_EQ(*parse_duration("2h"), 7200.0);
  EXPECT_EQ(*parse_duration("1d"), 86400.0);
  EXPECT_EQ(*parse_duration("10"), 10.0);
  EXPECT_EQ(*parse_duration("1.5h"), 5400.0);
  EXPECT_EQ(*parse_duration(" 0.5 s "), 0.5);
  EXPECT_EQ(*parse_duration("0"), 0.0);
}

TEST(EngineConfig, ParseDurationErrors) {
  for (const char* bad : {"", "m", "5x", "-1s", "1.s", "5 minutes", "1e3"}) {
    auto r = parse_duration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(contains(r.error(), "duration")) << r.error();
  }
}

// ---------------------------------------------------------------------------------------------
// Defaults

TEST(EngineConfig, DefaultsFromXdgDataHome) {
  EnvVar xdg("XDG_DATA_HOME", "/xdg/data");
  auto cfg = default_config();
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->daemon.data_dir, "/xdg/data/cuzk");
  EXPECT_EQ(cfg->daemon.listen, "unix:///xdg/data/cuzk/cuzk.sock");
  EXPECT_EQ(cfg->srs.param_dir, "/xdg/data/cuzk/params");
  EXPECT_EQ(cfg->pce.dir, "/xdg/data/cuzk/pce");
  EXPECT_FALSE(cfg->daemon.allow_remote);
  EXPECT_EQ(cfg->daemon.max_message_bytes, 256ull << 20);
  EXPECT_TRUE(cfg->daemon.metrics_listen.empty());
  EXPECT_TRUE(cfg->daemon.builtin_circuits);
  EXPECT_FALSE(cfg->srs.allow_test_keys);  // no silent test-only keys
  EXPECT_EQ(cfg->srs.test_keys, "auto");
  EXPECT_EQ(cfg->memory.total_budget, 0u);
  EXPECT_EQ(cfg->memory.safety_margin, 5ull << 30);
  EXPECT_EQ(cfg->memory.eviction_min_idle_s, 300.0);
  EXPECT_EQ(cfg->prover.workers, 1u);
  EXPECT_EQ(cfg->prover.finalize_workers, 1u);
  EXPECT_EQ(cfg->logging.level, "info");
  EXPECT_EQ(cfg->logging.format, "text");
  EXPECT_TRUE(cfg->circuits.empty());
}

TEST(EngineConfig, DefaultsFromHomeThenTmp) {
  {
    EnvVar xdg("XDG_DATA_HOME", "relative/ignored");  // XDG says: relative values are invalid
    EnvVar home("HOME", "/home/prover");
    auto cfg = default_config();
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    EXPECT_EQ(cfg->daemon.data_dir, "/home/prover/.local/share/cuzk");
    EXPECT_EQ(cfg->daemon.listen, "unix:///home/prover/.local/share/cuzk/cuzk.sock");
  }
  {
    EnvVar xdg("XDG_DATA_HOME", nullptr);
    EnvVar home("HOME", nullptr);
    auto cfg = default_config();
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    EXPECT_EQ(cfg->daemon.data_dir, "/tmp/cuzk-" + std::to_string(getuid()));
  }
}

TEST(EngineConfig, EmptyTextIsDefaults) {
  auto cfg = parse_config("", "t.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_TRUE(cfg->daemon.listen.empty()) << "parse_config does not finalize";
  EXPECT_EQ(finalize_error(""), "");
}

// ---------------------------------------------------------------------------------------------
// Every section

TEST(EngineConfig, EverySectionParsed) {
  const std::string toml = R"(
[daemon]
listen = "0.0.0.0:9000"
allow_remote = true
tls_cert = "/etc/cuzk/server.pem"
tls_key = "/etc/cuzk/server.key"
tls_client_ca = "/etc/cuzk/clients-ca.pem"
auth_token_file = "/etc/cuzk/token"
max_message_bytes = "64MiB"
metrics_listen = "[::1]:9100"
data_dir = "/srv/cuzk"
builtin_circuits = false

[memory]
total_budget = "100GiB"
safety_margin = 1073741824
eviction_min_idle = "90s"

[gpus]
devices = [0, 2]
workers_per_device = 3
msm_table_bits = 20
overlap_h = true

[scheduler]
max_pending_jobs = 7
completed_retention = 45.5

[synthesis]
workers = 4
threads = 8
lookahead = 5
nice = 7

[prover]
workers = 2
threads = 16
finalize_workers = 3

[srs]
param_dir = "/srv/params"
preload = ["a", "b"]
check_subgroups = true
allow_test_keys = true
test_keys = "memory"

[pce]
dir = "/srv/pce"
extract_on_first_use = false
verify_checksums = false

[logging]
level = "debug"
format = "json"

[[circuits]]
id = "a"
builtin = "chain:2^10"
test_setup = true

[[circuits]]
id = "b"
r1cs = "/c/b.r1cs"
params = "/k/b.params"
vk = "/k/b.vk"

[[circuits]]
id = "c"
pce = "/c/c.pce"
params = "/k/c.params"

[[circuits]]
id = "d"
zkey = "/k/d.zkey"
)";
  auto cfg = parse_config(toml, "t.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  ASSERT_TRUE(cfg->finalize().ok());
  const Config& c = *cfg;
  EXPECT_EQ(c.daemon.listen, "0.0.0.0:9000");
  EXPECT_TRUE(c.daemon.allow_remote);
  EXPECT_EQ(c.daemon.tls_cert, "/etc/cuzk/server.pem");
  EXPECT_EQ(c.daemon.tls_key, "/etc/cuzk/server.key");
  EXPECT_EQ(c.daemon.tls_client_ca, "/etc/cuzk/clients-ca.pem");
  EXPECT_EQ(c.daemon.auth_token_file, "/etc/cuzk/token");
  EXPECT_EQ(c.daemon.max_message_bytes, 64ull << 20);
  EXPECT_EQ(c.daemon.metrics_listen, "[::1]:9100");
  EXPECT_EQ(c.daemon.data_dir, "/srv/cuzk");
  EXPECT_FALSE(c.daemon.builtin_circuits);
  EXPECT_EQ(c.memory.total_budget, 100ull << 30);
  EXPECT_EQ(c.memory.safety_margin, 1ull << 30);
  EXPECT_EQ(c.memory.eviction_min_idle_s, 90.0);
  EXPECT_EQ(c.gpus.devices, (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(c.gpus.workers_per_device, 3u);
  EXPECT_EQ(c.gpus.msm_table_bits, 20u);
  EXPECT_TRUE(c.gpus.overlap_h);
  EXPECT_EQ(c.scheduler.max_pending_jobs, 7u);
  EXPECT_EQ(c.scheduler.completed_retention_s, 45.5);
  EXPECT_EQ(c.synthesis.workers, 4u);
  EXPECT_EQ(c.synthesis.threads, 8u);
  EXPECT_EQ(c.synthesis.lookahead, 5u);
  EXPECT_EQ(c.synthesis.nice, 7u);
  EXPECT_EQ(c.prover.workers, 2u);
  EXPECT_EQ(c.prover.threads, 16u);
  EXPECT_EQ(c.prover.finalize_workers, 3u);
  EXPECT_EQ(c.srs.param_dir, "/srv/params");
  EXPECT_EQ(c.srs.preload, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(c.srs.check_subgroups);
  EXPECT_TRUE(c.srs.allow_test_keys);
  EXPECT_EQ(c.srs.test_keys, "memory");
  EXPECT_EQ(c.pce.dir, "/srv/pce");
  EXPECT_FALSE(c.pce.extract_on_first_use);
  EXPECT_FALSE(c.pce.verify_checksums);
  EXPECT_EQ(c.logging.level, "debug");
  EXPECT_EQ(c.logging.format, "json");
  ASSERT_EQ(c.circuits.size(), 4u);
  EXPECT_EQ(c.circuits[0].id, "a");
  EXPECT_EQ(c.circuits[0].builtin, "chain:2^10");
  EXPECT_TRUE(c.circuits[0].test_setup);
  EXPECT_EQ(c.circuits[1].r1cs, "/c/b.r1cs");
  EXPECT_EQ(c.circuits[1].params, "/k/b.params");
  EXPECT_EQ(c.circuits[1].vk, "/k/b.vk");
  EXPECT_EQ(c.circuits[2].pce, "/c/c.pce");
  EXPECT_EQ(c.circuits[3].zkey, "/k/d.zkey");
  EXPECT_FALSE(c.circuits[3].test_setup);
}

TEST(EngineConfig, TotalBudgetAutoAndNumbers) {
  auto budget = [](const std::string& v) { return parse_config("[memory]\ntotal_budget = " + v + "\n", "t.toml"); };
  EXPECT_EQ(budget("\"auto\"")->memory.total_budget, 0u);
  EXPECT_EQ(budget("\"16GiB\"")->memory.total_budget, 16ull << 30);
  EXPECT_EQ(budget("123456")->memory.total_budget, 123456u);
  auto bad = budget("\"lots\"");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error(), "t.toml:2:")) << bad.error();
  EXPECT_TRUE(contains(bad.error(), "memory.total_budget")) << bad.error();
  EXPECT_TRUE(contains(bad.error(), "\"auto\"")) << bad.error();
}

// ---------------------------------------------------------------------------------------------
// Errors with locations

TEST(EngineConfig, UnknownKeyNamesLineKeyAndValidKeys) {
  const std::string e = parse_error("[memory]\ntotal_budget = \"8GiB\"\n  total_budgit = 1\n");
  EXPECT_TRUE(contains(e, "t.toml:3:3:")) << e;
  EXPECT_TRUE(contains(e, "unknown key 'total_budgit' in [memory]")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'total_budget'")) << e;
  EXPECT_TRUE(contains(e, "valid keys: total_budget, safety_margin, eviction_min_idle")) << e;
}

TEST(EngineConfig, UnknownSectionAndTopLevelKey) {
  std::string e = parse_error("[daemon]\nlisten = \"127.0.0.1:1\"\n\n[batching]\nenabled = true\n");
  EXPECT_TRUE(contains(e, "t.toml:4:")) << e;
  EXPECT_TRUE(contains(e, "'batching'")) << e;
  EXPECT_TRUE(contains(e, "valid sections: daemon, memory")) << e;
  e = parse_error("verbose = true\n");
  EXPECT_TRUE(contains(e, "t.toml:1:1:")) << e;
  EXPECT_TRUE(contains(e, "'verbose'")) << e;
  e = parse_error("[loging]\n");
  EXPECT_TRUE(contains(e, "did you mean [logging]")) << e;
}

TEST(EngineConfig, UnknownKeyInCircuits) {
  const std::string e = parse_error("[[circuits]]\nid = \"x\"\nparam = \"p\"\n");
  EXPECT_TRUE(contains(e, "t.toml:3:1:")) << e;
  EXPECT_TRUE(contains(e, "'param' in [circuits]")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'params'")) << e;
  EXPECT_TRUE(contains(e, "valid keys: id, builtin, pce, r1cs, params, vk, zkey, test_setup")) << e;
}

TEST(EngineConfig, TypeErrorsNameKeyAndExpectedType) {
  std::string e = parse_error("[prover]\nworkers = \"2\"\n");
  EXPECT_TRUE(contains(e, "t.toml:2:")) << e;
  EXPECT_TRUE(contains(e, "prover.workers: expected a non-negative integer, got a string")) << e;
  e = parse_error("[prover]\nworkers = -1\n");
  EXPECT_TRUE(contains(e, "prover.workers")) << e;
  e = parse_error("[daemon]\nallow_remote = \"yes\"\n");
  EXPECT_TRUE(contains(e, "daemon.allow_remote: expected a boolean")) << e;
  e = parse_error("[daemon]\nlisten = 9820\n");
  EXPECT_TRUE(contains(e, "daemon.listen: expected a string, got an integer")) << e;
  e = parse_error("[gpus]\ndevices = [0, \"1\"]\n");
  EXPECT_TRUE(contains(e, "gpus.devices")) << e;
  e = parse_error("[srs]\npreload = \"a\"\n");
  EXPECT_TRUE(contains(e, "srs.preload: expected an array of strings")) << e;
  e = parse_error("[memory]\neviction_min_idle = true\n");
  EXPECT_TRUE(contains(e, "memory.eviction_min_idle: expected a duration")) << e;
  e = parse_error("[memory]\neviction_min_idle = -3\n");
  EXPECT_TRUE(contains(e, "memory.eviction_min_idle")) << e;
  e = parse_error("[memory]\nsafety_margin = 1.5\n");
  EXPECT_TRUE(contains(e, "memory.safety_margin: expected a size")) << e;
  e = parse_error("[memory]\nsafety_margin = \"5 gigs\"\n");
  EXPECT_TRUE(contains(e, "memory.safety_margin: invalid size \"5 gigs\"")) << e;
  e = parse_error("[scheduler]\ncompleted_retention = \"10 mins\"\n");
  EXPECT_TRUE(contains(e, "scheduler.completed_retention: invalid duration")) << e;
  e = parse_error("daemon = 1\n");
  EXPECT_TRUE(contains(e, "'daemon' must be a section")) << e;
  e = parse_error("[circuits]\nid = \"x\"\n");
  EXPECT_TRUE(contains(e, "[[circuits]]")) << e;
}

TEST(EngineConfig, NumericDurations) {
  auto cfg = parse_config("[memory]\neviction_min_idle = 42\n[scheduler]\ncompleted_retention = 1.5\n", "t.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->memory.eviction_min_idle_s, 42.0);
  EXPECT_EQ(cfg->scheduler.completed_retention_s, 1.5);
}

TEST(EngineConfig, SyntaxErrorHasLocation) {
  const std::string e = parse_error("[daemon]\nlisten = \"unterminated\n");
  EXPECT_TRUE(contains(e, "t.toml:2:")) << e;
  EXPECT_TRUE(contains(e, "TOML syntax error")) << e;
}

// ---------------------------------------------------------------------------------------------
// finalize() rules

TEST(EngineConfig, ListenValidation) {
  // `remote`: allow_remote = true with a token file (remote access needs authentication).
  auto listen = [](const std::string& v, bool remote = false) {
    return finalize_error("[daemon]\nlisten = \"" + v + "\"\nallow_remote = " + (remote ? "true" : "false") + "\n" +
                          (remote ? "auth_token_file = \"/etc/cuzk/token\"\n" : ""));
  };
  EXPECT_EQ(listen("unix:///run/cuzk/cuzk.sock"), "");
  EXPECT_EQ(listen("127.0.0.1:9820"), "");
  EXPECT_EQ(listen("localhost:1"), "");
  EXPECT_EQ(listen("[::1]:65535"), "");
  EXPECT_EQ(listen("0.0.0.0:9820", true), "");
  EXPECT_EQ(listen("[::]:9820", true), "");
  EXPECT_EQ(listen("prover.example.com:9820", true), "");

  EXPECT_TRUE(contains(listen("unix://run/cuzk.sock"), "absolute")) << listen("unix://run/cuzk.sock");
  EXPECT_TRUE(contains(listen("unix:///" + std::string(120, 'x')), "at most 107"));
  EXPECT_TRUE(contains(listen("127.0.0.1"), "port"));
  EXPECT_TRUE(contains(listen("127.0.0.1:0"), "1 to 65535"));
  EXPECT_TRUE(contains(listen("127.0.0.1:65536"), "1 to 65535"));
  EXPECT_TRUE(contains(listen("127.0.0.1:9x"), "1 to 65535"));
  EXPECT_TRUE(contains(listen(":9820"), "missing host"));
  EXPECT_TRUE(contains(listen("::1:9820"), "brackets"));
  EXPECT_TRUE(contains(listen("http://127.0.0.1:9820"), "scheme"));
  EXPECT_TRUE(contains(listen(""), "")) << "empty means default";

  // The remote rule: a non-loopback TCP address needs daemon.allow_remote = true.
  for (const char* remote : {"0.0.0.0:9820", "[::]:9820", "10.1.2.3:9820", "prover.example.com:1"}) {
    const std::string e = listen(remote);
    EXPECT_TRUE(contains(e, "daemon.listen")) << e;
    EXPECT_TRUE(contains(e, "daemon.allow_remote = true")) << e;
  }
  // The same applies to metrics_listen, which is TCP only.
  std::string e = finalize_error("[daemon]\nmetrics_listen = \"0.0.0.0:9821\"\n");
  EXPECT_TRUE(contains(e, "daemon.metrics_listen")) << e;
  EXPECT_TRUE(contains(e, "allow_remote")) << e;
  e = finalize_error("[daemon]\nmetrics_listen = \"unix:///tmp/m.sock\"\n");
  EXPECT_TRUE(contains(e, "only TCP")) << e;
  EXPECT_EQ(finalize_error("[daemon]\nmetrics_listen = \"127.0.0.1:9821\"\n"), "");
}

TEST(EngineConfig, AccessRules) {
  const std::string remote = "[daemon]\nlisten = \"0.0.0.0:9820\"\nallow_remote = true\n";
  // Remote without authentication: refused, naming both ways to authenticate.
  std::string e = finalize_error(remote);
  EXPECT_TRUE(contains(e, "without authentication")) << e;
  EXPECT_TRUE(contains(e, "daemon.tls_cert + daemon.tls_key")) << e;
  EXPECT_TRUE(contains(e, "daemon.auth_token_file")) << e;
  EXPECT_EQ(finalize_error(remote + "auth_token_file = \"/t\"\n"), "");
  EXPECT_EQ(finalize_error(remote + "tls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\n"), "");
  EXPECT_EQ(finalize_error(remote + "tls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\ntls_client_ca = \"/ca.pem\"\n"), "");
  // Without allow_remote, authentication does not make a remote address acceptable.
  e = finalize_error("[daemon]\nlisten = \"0.0.0.0:9820\"\nauth_token_file = \"/t\"\n");
  EXPECT_TRUE(contains(e, "daemon.allow_remote = true")) << e;
  // TLS files come in pairs, client CAs only with TLS, TLS only on TCP.
  e = finalize_error("[daemon]\nlisten = \"127.0.0.1:9820\"\ntls_cert = \"/c.pem\"\n");
  EXPECT_TRUE(contains(e, "daemon.tls_cert is set without daemon.tls_key")) << e;
  e = finalize_error("[daemon]\nlisten = \"127.0.0.1:9820\"\ntls_key = \"/k.pem\"\n");
  EXPECT_TRUE(contains(e, "daemon.tls_key is set without daemon.tls_cert")) << e;
  e = finalize_error("[daemon]\nlisten = \"127.0.0.1:9820\"\ntls_client_ca = \"/ca.pem\"\n");
  EXPECT_TRUE(contains(e, "tls_client_ca is set without")) << e;
  e = finalize_error("[daemon]\ntls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\n");  // default: unix socket
  EXPECT_TRUE(contains(e, "TLS is for TCP listeners")) << e;
  // Loopback TCP and unix sockets need nothing, and may use either.
  EXPECT_EQ(finalize_error("[daemon]\nlisten = \"127.0.0.1:9820\"\n"), "");
  EXPECT_EQ(finalize_error("[daemon]\nlisten = \"[::1]:9820\"\ntls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\n"), "");
  EXPECT_EQ(finalize_error("[daemon]\nauth_token_file = \"/t\"\n"), "");

  // --check-config prints the access keys so that the printed file loads back to the same values.
  auto cfg = parse_config(remote + "tls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\ntls_client_ca = \"/ca.pem\"\n" +
                              "auth_token_file = \"/t\"\n",
                          "a.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  ASSERT_TRUE(cfg->finalize().ok());
  auto again = parse_config(config_to_toml(*cfg), "printed.toml");
  ASSERT_TRUE(again.ok()) << again.error();
  ASSERT_TRUE(again->finalize().ok());
  EXPECT_EQ(again->daemon.tls_cert, "/c.pem");
  EXPECT_EQ(again->daemon.tls_key, "/k.pem");
  EXPECT_EQ(again->daemon.tls_client_ca, "/ca.pem");
  EXPECT_EQ(again->daemon.auth_token_file, "/t");
  EXPECT_TRUE(again->daemon.allow_remote);
}

// gpus.memory_limit: one size for every device, a table by device ordinal, or "none"; printed and
// read back the same; every malformed value an error naming the key.
TEST(EngineConfig, GpuMemoryLimit) {
  auto all = parse_config("[gpus]\nmemory_limit = \"16GiB\"\n", "t.toml");
  ASSERT_TRUE(all) << all.error();
  EXPECT_EQ(all->gpus.memory_limit, 16ull << 30);
  EXPECT_EQ(all->gpus.memory_limit_of(0), 16ull << 30);
  EXPECT_EQ(all->gpus.memory_limit_of(7), 16ull << 30);
  auto per = parse_config("[gpus]\nmemory_limit = { \"0\" = \"16GiB\", \"2\" = 25769803776 }\n", "t.toml");
  ASSERT_TRUE(per) << per.error();
  EXPECT_EQ(per->gpus.memory_limit, 0u);
  EXPECT_EQ(per->gpus.memory_limit_of(0), 16ull << 30);
  EXPECT_EQ(per->gpus.memory_limit_of(1), 0u) << "a device not named has no cap";
  EXPECT_EQ(per->gpus.memory_limit_of(2), 24ull << 30);
  auto none = parse_config("[gpus]\nmemory_limit = \"none\"\n", "t.toml");
  ASSERT_TRUE(none) << none.error();
  EXPECT_EQ(none->gpus.memory_limit_of(0), 0u);
  for (Config* c : {&*all, &*per, &*none}) {
    ASSERT_TRUE(c->finalize().ok());
    auto back = parse_config(config_to_toml(*c), "printed.toml");
    ASSERT_TRUE(back) << back.error() << "\n" << config_to_toml(*c);
    EXPECT_EQ(back->gpus.memory_limit, c->gpus.memory_limit);
    EXPECT_EQ(back->gpus.memory_limit_per_device, c->gpus.memory_limit_per_device);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"memory_limit = \"0\"", "a cap of 0 bytes leaves no room for any prover"},
      {"memory_limit = 0", "a cap of 0 bytes"},
      {"memory_limit = \"16 apples\"", "invalid size \"16 apples\""},
      {"memory_limit = true", "expected a size"},
      {"memory_limit = { \"gpu0\" = \"16GiB\" }", "\"gpu0\" is not a device ordinal"},
      {"memory_limit = { \"0\" = \"0GiB\" }", "device 0: a cap of 0 bytes"},
      {"memory_limit = { \"1\" = \"lots\" }", "device 1: invalid size \"lots\""},
  };
  for (const auto& [line, needle] : bad) {
    const std::string e = parse_error(std::string("[gpus]\n") + line + "\n");
    EXPECT_TRUE(contains(e, "gpus.memory_limit")) << line << ": " << e;
    EXPECT_TRUE(contains(e, needle)) << line << ": " << e;
  }
}

TEST(EngineConfig, FinalizeRanges) {
  EXPECT_TRUE(contains(finalize_error("[logging]\nlevel = \"verbose\"\n"), "trace, debug, info, warn, error"));
  EXPECT_TRUE(contains(finalize_error("[logging]\nformat = \"xml\"\n"), "\"text\" or \"json\""));
  EXPECT_TRUE(contains(finalize_error("[prover]\nworkers = 0\n"), "prover.workers must be at least 1"));
  EXPECT_TRUE(
      contains(finalize_error("[prover]\nfinalize_workers = 0\n"), "prover.finalize_workers must be at least 1"));
  EXPECT_TRUE(contains(finalize_error("[daemon]\nmax_message_bytes = \"512KiB\"\n"), "1 MiB"));
  EXPECT_EQ(finalize_error("[daemon]\nmax_message_bytes = \"1MiB\"\n"), "");
  EXPECT_TRUE(contains(finalize_error("[gpus]\ndevices = [1, 1]\n"), "twice"));
  EXPECT_TRUE(contains(finalize_error("[gpus]\nmsm_table_bits = 25\n"), "2..24"));
  EXPECT_EQ(finalize_error("[gpus]\nmsm_table_bits = 24\n"), "");
  EXPECT_TRUE(contains(finalize_error("[synthesis]\nnice = 20\n"), "0 (the daemon's own priority) to 19"));
  EXPECT_EQ(finalize_error("[synthesis]\nnice = 19\n"), "");
}

// srs.test_keys: "file", "memory" or "auto"; anything else is refused naming the three, and the
// printed config loads back to the same value.
TEST(EngineConfig, TestKeysStorage) {
  for (const char* mode : {"file", "memory", "auto"}) {
    auto cfg = parse_config(std::string("[srs]\ntest_keys = \"") + mode + "\"\n", "t.toml");
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    ASSERT_TRUE(cfg->finalize().ok()) << mode;
    EXPECT_EQ(cfg->srs.test_keys, mode);
    auto again = parse_config(config_to_toml(*cfg), "printed.toml");
    ASSERT_TRUE(again.ok()) << again.error();
    ASSERT_TRUE(again->finalize().ok());
    EXPECT_EQ(again->srs.test_keys, mode);
  }
  EXPECT_EQ(finalize_error("[srs]\ntest_keys = \"disk\"\n"),
            "srs.test_keys = \"disk\": expected \"file\" (TEST-ONLY keys written to srs.param_dir), \"memory\" "
            "(held in memory only, never written) or \"auto\" (a file when srs.param_dir's filesystem has room, else "
            "memory)");
  EXPECT_TRUE(contains(finalize_error("[srs]\ntest_keys = \"Memory\"\n"), "srs.test_keys = \"Memory\": expected"));
  EXPECT_EQ(parse_error("[srs]\ntest_keys = true\n"), "t.toml:2:13: srs.test_keys: expected a string, got a boolean");
  // Set where no circuit can get TEST-ONLY keys, it would be ignored: an error.
  const std::string none = "[daemon]\nbuiltin_circuits = false\n[srs]\ntest_keys = \"memory\"\n";
  EXPECT_EQ(finalize_error(none),
            "srs.test_keys has no effect: no circuit gets TEST-ONLY keys here (srs.allow_test_keys = false, "
            "daemon.builtin_circuits = false and no [[circuits]] sets test_setup); remove it");
  EXPECT_EQ(finalize_error(none + "allow_test_keys = true\n"), "");
  EXPECT_EQ(finalize_error(none + "[[circuits]]\nid = \"a\"\nbuiltin = \"chain:2^10\"\ntest_setup = true\n"), "");
  EXPECT_EQ(finalize_error("[daemon]\nbuiltin_circuits = false\n"), "");  // the default is not "set"
}

// "auto" compares the filesystem's free bytes with the key file plus 1 GiB + 5 %; the explicit
// modes do not look.
TEST(EngineConfig, TestKeysAutoPicksTheFileOnlyWhenItFits) {
  using cuzk::engine::choose_test_key_store;
  using cuzk::engine::TestKeyStore;
  const uint64_t file = 100ull << 30;                        // 100 GiB
  const uint64_t need = file + (1ull << 30) + (5ull << 30);  // + 1 GiB + 5 %
  EXPECT_EQ(cuzk::engine::test_key_disk_margin(file), need - file);
  auto c = choose_test_key_store("auto", file, need);
  EXPECT_EQ(c.store, TestKeyStore::File);
  EXPECT_EQ(c.reason,
            "srs.test_keys = \"auto\": the key file needs 100.0 GiB + a margin of 6.0 GiB, the parameter "
            "directory's filesystem has 106.0 GiB free");
  c = choose_test_key_store("auto", file, need - 1);
  EXPECT_EQ(c.store, TestKeyStore::Memory);
  EXPECT_TRUE(contains(c.reason, "the key file needs 100.0 GiB")) << c.reason;
  c = choose_test_key_store("auto", file, std::nullopt);
  EXPECT_EQ(c.store, TestKeyStore::File);
  EXPECT_TRUE(contains(c.reason, "free space of the parameter directory's filesystem is unknown")) << c.reason;
  c = choose_test_key_store("memory", 1, uint64_t{1} << 62);
  EXPECT_EQ(c.store, TestKeyStore::Memory);
  EXPECT_EQ(c.reason, "srs.test_keys = \"memory\"");
  c = choose_test_key_store("file", file, 0);
  EXPECT_EQ(c.store, TestKeyStore::File);
  EXPECT_EQ(c.reason, "srs.test_keys = \"file\"");
  EXPECT_STREQ(cuzk::engine::test_key_store_name(TestKeyStore::Memory), "memory");
  // The free space of a directory not made yet is its nearest existing ancestor's.
  TempDir dir;
  const auto here = cuzk::engine::free_disk_bytes(dir.str());
  ASSERT_TRUE(here.has_value());
  EXPECT_GT(*here, 0u);
  const auto below = cuzk::engine::free_disk_bytes(dir.str() + "/params/not/yet");
  ASSERT_TRUE(below.has_value());
  EXPECT_FALSE(fs::exists(dir.str() + "/params"));
}

TEST(EngineConfig, CircuitRules) {
  auto circuit = [](const std::string& body) { return finalize_error("[[circuits]]\n" + body); };
  EXPECT_EQ(circuit("id = \"a\"\nbuiltin = \"chain:2^10\"\ntest_setup = true\n"), "");
  EXPECT_EQ(circuit("id = \"a\"\nr1cs = \"/a.r1cs\"\nparams = \"/a.params\"\n"), "");
  EXPECT_EQ(circuit("id = \"a\"\npce = \"/a.pce\"\nparams = \"/a.params\"\nvk = \"/a.vk\"\n"), "");
  EXPECT_EQ(circuit("id = \"a\"\nzkey = \"/a.zkey\"\n"), "");

  EXPECT_TRUE(contains(circuit("builtin = \"chain:16\"\ntest_setup = true\n"), "has no id"));
  EXPECT_TRUE(contains(circuit("id = \"a\"\ntest_setup = true\n"), "exactly one of builtin, pce, r1cs or zkey"));
  std::string e = circuit("id = \"a\"\nbuiltin = \"chain:16\"\npce = \"/a.pce\"\ntest_setup = true\n");
  EXPECT_TRUE(contains(e, "both builtin and pce")) << e;
  e = circuit("id = \"a\"\nzkey = \"/a.zkey\"\nparams = \"/a.params\"\n");
  EXPECT_TRUE(contains(e, "remove params and vk")) << e;
  e = circuit("id = \"a\"\nzkey = \"/a.zkey\"\nvk = \"/a.vk\"\n");
  EXPECT_TRUE(contains(e, "remove params and vk")) << e;
  e = circuit("id = \"a\"\nr1cs = \"/a.r1cs\"\n");
  EXPECT_TRUE(contains(e, "circuit 'a'")) << e;
  EXPECT_TRUE(contains(e, "test_setup = true")) << e;
  e = circuit("id = \"a\"\nr1cs = \"/a.r1cs\"\nvk = \"/a.vk\"\ntest_setup = true\n");
  EXPECT_TRUE(contains(e, "vk is given without params")) << e;
  e = circuit("id = \"a\"\nbuiltin = \"sha:2^10\"\ntest_setup = true\n");
  EXPECT_TRUE(contains(e, "builtin = \"sha:2^10\"")) << e;

  e = finalize_error("[[circuits]]\nid = \"a\"\nzkey = \"/a.zkey\"\n[[circuits]]\nid = \"a\"\nzkey = \"/b.zkey\"\n");
  EXPECT_TRUE(contains(e, "'a' is defined more than once")) << e;
}

// ---------------------------------------------------------------------------------------------
// Files

TEST(EngineConfig, RelativePathsResolveAgainstTheFilesDirectory) {
  TempDir dir;
  const fs::path file = dir.write("conf/cuzk.toml", R"(
[daemon]
data_dir = "state"
auth_token_file = "secrets/token"
[srs]
param_dir = "../params"
[pce]
dir = "/abs/pce"
[[circuits]]
id = "r"
r1cs = "c/r.r1cs"
params = "k/r.params"
vk = "./k/r.vk"
[[circuits]]
id = "z"
zkey = "/abs/z.zkey"
[[circuits]]
id = "b"
builtin = "chain:2^10"
test_setup = true
)");
  auto cfg = load_config(file.string());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  const fs::path conf = fs::absolute(dir.path() / "conf");
  EXPECT_EQ(cfg->daemon.data_dir, (conf / "state").string());
  EXPECT_EQ(cfg->daemon.listen, "unix://" + (conf / "state" / "cuzk.sock").string());
  EXPECT_EQ(cfg->daemon.auth_token_file, (conf / "secrets/token").string());
  EXPECT_EQ(cfg->srs.param_dir, (dir.path() / "params").lexically_normal().string());
  EXPECT_EQ(cfg->pce.dir, "/abs/pce");
  EXPECT_EQ(cfg->circuits[0].r1cs, (conf / "c/r.r1cs").string());
  EXPECT_EQ(cfg->circuits[0].params, (conf / "k/r.params").string());
  EXPECT_EQ(cfg->circuits[0].vk, (conf / "k/r.vk").string());
  EXPECT_EQ(cfg->circuits[1].zkey, "/abs/z.zkey");
  EXPECT_EQ(cfg->circuits[2].builtin, "chain:2^10") << "a builtin spec is not a path";
}

TEST(EngineConfig, LoadConfigErrorsNameTheFile) {
  TempDir dir;
  auto missing = load_config((dir.path() / "nope.toml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(contains(missing.error(), "nope.toml")) << missing.error();

  const fs::path file = dir.write("bad.toml", "[logging]\nlevel = \"loud\"\n");
  auto bad = load_config(file.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error(), file.string() + ": logging.level")) << bad.error();

  const fs::path typo = dir.write("typo.toml", "[daemon]\nlisen = \"x\"\n");
  auto t = load_config(typo.string());
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), typo.string() + ":2:1: unknown key 'lisen'")) << t.error();
}

TEST(EngineConfig, ExampleConfigParses) {
  const std::string path = std::string(CUZK_SOURCE_DIR) + "/docs/cuzk.example.toml";
  auto cfg = load_config(path);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->daemon.listen, "127.0.0.1:9820");
  EXPECT_EQ(cfg->daemon.metrics_listen, "127.0.0.1:9821");
  EXPECT_EQ(cfg->memory.total_budget, 0u);
  EXPECT_EQ(cfg->memory.safety_margin, 5ull << 30);
  EXPECT_EQ(cfg->memory.eviction_min_idle_s, 300.0);
  EXPECT_EQ(cfg->scheduler.completed_retention_s, 600.0);
  ASSERT_EQ(cfg->circuits.size(), 4u);
  const fs::path docs = fs::absolute(fs::path(CUZK_SOURCE_DIR) / "docs").lexically_normal();
  EXPECT_EQ(cfg->circuits[1].r1cs, (docs / "circuits/my_circuit.r1cs").string());

  // Every valid key of every section is documented in the example: the valid keys come from the
  // parser's own "unknown key" message, the example's keys from its "[section]" and "key = " lines.
  std::set<std::string> documented;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("[[", 0) == 0) {
      section = line.substr(2, line.find("]]") - 2);
    } else if (line.rfind("[", 0) == 0) {
      section = line.substr(1, line.find(']') - 1);
    } else if (!line.empty() && line[0] != '#' && line.find(" = ") != std::string::npos) {
      documented.insert(section + "." + line.substr(0, line.find(" = ")));
    }
  }
  for (const std::string sec :
       {"daemon", "memory", "gpus", "scheduler", "synthesis", "prover", "srs", "pce", "logging", "circuits"}) {
    const std::string header = sec == "circuits" ? "[[circuits]]" : "[" + sec + "]";
    const std::string e = parse_error(header + "\nno_such_key = 1\n");
    const size_t at = e.find("valid keys: ");
    ASSERT_NE(at, std::string::npos) << e;
    std::string keys = e.substr(at + 12) + ", ";
    for (size_t pos; (pos = keys.find(", ")) != std::string::npos; keys.erase(0, pos + 2)) {
      EXPECT_TRUE(documented.count(sec + "." + keys.substr(0, pos))) << sec << "." << keys.substr(0, pos);
    }
  }
}

// deploy/: both example configurations load, and Curio's [Cuzk] Address in the snippet is the
// daemon's listen address character for character (they must agree for Curio to connect).
TEST(EngineConfig, DeployExamplesLoad) {
  const fs::path deploy = fs::path(CUZK_SOURCE_DIR) / "deploy";
  std::ifstream snippet(deploy / "curio-cuzk.toml");
  std::string line, address;
  while (std::getline(snippet, line)) {
    const size_t at = line.find("Address = \"");
    if (at != std::string::npos && line.find('#') > at) address = line.substr(at + 11, line.rfind('"') - at - 11);
  }
  ASSERT_FALSE(address.empty());
  for (const char* name : {"cuzk.1gpu.toml", "cuzk.multi-gpu.toml"}) {
    auto cfg = load_config((deploy / name).string());
    ASSERT_TRUE(cfg.ok()) << name << ": " << cfg.error();
    EXPECT_EQ(cfg->daemon.listen, address) << name;
    EXPECT_EQ(cfg->gpus.backend, "gpu") << name;
    EXPECT_FALSE(cfg->srs.allow_test_keys) << name;
    EXPECT_EQ(cfg->srs.param_dir, "/var/tmp/filecoin-proof-parameters") << name;
    EXPECT_NE(cfg->memory.total_budget, 0u) << name << ": explicit, below the unit's MemoryHigh";
  }
}

// PoRep circuits: "porep:<size>" resolves to the official parameter file when it is in the
// parameter directory (filecoin's v28 name), else to test-only keys there; bad sizes are errors.
TEST(CircuitRegistry, PorepKeysOfficialOrTestOnly) {
  TempDir dir;
  Config cfg;
  cfg.daemon.data_dir = dir.str();
  cfg.srs.param_dir = dir.str() + "/params";
  cfg.pce.dir = dir.str() + "/pce";
  fs::create_directories(cfg.srs.param_dir);
  ASSERT_TRUE(cfg.finalize().ok());
  const std::string stem =
      cfg.srs.param_dir + "/" + cuzk::filecoin::porep_parameter_file_stem(cuzk::filecoin::default_seal_proof(2048));
  {
    // No official file and no srs.allow_test_keys: an error naming the file and the directory.
    const cuzk::engine::CircuitRegistry reg(cfg);
    EXPECT_FALSE(reg.test_keys_allowed());
    auto d = reg.find("porep:2KiB");
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().find(fs::path(stem).filename().string() + ".params is not in the parameter directory " +
                             cfg.srs.param_dir),
              std::string::npos)
        << d.error();
    EXPECT_NE(d.error().find("srs.allow_test_keys = true"), std::string::npos) << d.error();
  }
  cfg.srs.allow_test_keys = true;
  {
    const cuzk::engine::CircuitRegistry reg(cfg);
    EXPECT_TRUE(reg.test_keys_allowed());
    auto d = reg.find("porep:2KiB");
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d->source, cuzk::engine::CircuitSource::Porep);
    EXPECT_EQ(d->porep_sector_size, 2048u);
    EXPECT_TRUE(d->test_setup);
    EXPECT_EQ(d->params_path, cfg.srs.param_dir + "/porep_2KiB.params");
    EXPECT_FALSE(d->takes_wtns());
    EXPECT_TRUE(d->synthesizable());
    EXPECT_FALSE(reg.find("porep:3KiB").ok());
    EXPECT_EQ(reg.find("porep:2048")->id, "porep:2KiB");
  }
  // The official files, found whether or not test keys are allowed.
  cfg.srs.allow_test_keys = false;
  std::ofstream(stem + ".params") << "x";
  std::ofstream(stem + ".vk") << "x";
  const cuzk::engine::CircuitRegistry reg(cfg);
  auto d = reg.find("porep:2KiB");
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_FALSE(d->test_setup);
  EXPECT_EQ(d->params_path, stem + ".params");
  EXPECT_EQ(d->vk_path, stem + ".vk");
}

// [tuning]: the kernels' switches as data; the environment overrides them, read in one place.
TEST(Config, TuningSection) {
  auto cfg = parse_config(
      "[tuning]\nmsm_simd = false\nmatvec_stream = false\ngpu_msm_reduce_threads = 512\ngpu_msm_prefetch = "
      "\"auto\"\n",
      "t.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_FALSE(cfg->tuning.msm_simd);
  EXPECT_TRUE(cfg->tuning.msm_glv);
  EXPECT_FALSE(cfg->tuning.matvec_stream);
  EXPECT_EQ(cfg->tuning.gpu_msm_reduce_threads, 512u);
  EXPECT_FALSE(cfg->tuning.gpu_msm_prefetch.has_value());
  EXPECT_FALSE(cfg->tuning.gpu_msm_affine.has_value());
  cfg = parse_config("[tuning]\ngpu_msm_prefetch = false\ngpu_msm_reduce_threads = \"auto\"\ngpu_msm_affine = true\n",
                     "t.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->tuning.gpu_msm_prefetch, false);
  EXPECT_EQ(cfg->tuning.gpu_msm_affine, true);
  EXPECT_FALSE(cfg->tuning.gpu_msm_reduce_threads.has_value());
  const std::pair<const char*, const char*> bad[] = {
      {"gpu_msm_reduce_threads = 8", "tuning.gpu_msm_reduce_threads: expected \"auto\" or an integer 32..4096"},
      {"msm_glv = \"no\"", "tuning.msm_glv: expected a boolean"},
      {"gpu_msm_prefetch = 2", "expected true, false or \"auto\""},
      {"gpu_msm_affine = \"yes\"", "expected true, false or \"auto\""},
      {"msm_simdd = true", "did you mean 'msm_simd'"}};
  for (const auto& [line, want] : bad) {
    const std::string e = parse_error(std::string("[tuning]\n") + line + "\n");
    EXPECT_TRUE(contains(e, want)) << line << ": " << e;
  }
}

TEST(Config, TuningEnvironmentOverrides) {
  {
    EnvVar glv("CUZK_MSM_GLV", "0"), red("CUZK_GPU_MSM_REDUCE_THREADS", "1024"), simd("CUZK_MSM_SIMD", nullptr);
    cuzk::Tuning t;
    t.msm_simd = false;  // as a config would say
    const auto applied = cuzk::apply_env_tuning(t);
    EXPECT_FALSE(t.msm_glv);
    EXPECT_FALSE(t.msm_simd);  // no variable: the config's value stays
    EXPECT_EQ(t.gpu_msm_reduce_threads, 1024u);
    ASSERT_EQ(applied.size(), 2u);
    const auto all = cuzk::describe_tuning(t, applied, "config");
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all[1].key, "msm_glv");
    EXPECT_EQ(all[1].source, "CUZK_MSM_GLV");
    EXPECT_EQ(all[0].source, "config");
    EXPECT_EQ(all[4].value, "auto");
  }
  for (const char* bad : {"2", "yes", ""}) {
    EnvVar v("CUZK_MATVEC_STREAM", bad);
    cuzk::Tuning t;
    if (*bad == '\0') {
      EXPECT_NO_THROW(cuzk::apply_env_tuning(t));  // empty: unset
      continue;
    }
    try {
      cuzk::apply_env_tuning(t);
      ADD_FAILURE() << "CUZK_MATVEC_STREAM=" << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), "CUZK_MATVEC_STREAM")) << e.what();
    }
  }
  EnvVar v("CUZK_GPU_MSM_REDUCE_THREADS", "31");
  cuzk::Tuning t;
  EXPECT_THROW(cuzk::apply_env_tuning(t), std::invalid_argument);
}

// A knob the chosen backend would ignore is an error, not a silent no-op.
TEST(Config, IgnoredKnobsAreErrors) {
  for (const char* k :
       {"devices = [0]", "workers_per_device = 2", "g2_msm = \"cpu\"", "msm_table_bits = 20", "overlap_h = true"}) {
    const std::string e = finalize_error(std::string("[gpus]\nbackend = \"cpu\"\n") + k + "\n");
    const std::string key = std::string("gpus.") + std::string(k).substr(0, std::string(k).find(' '));
    EXPECT_TRUE(contains(e, key + " has no effect with gpus.backend = \"cpu\"")) << k << ": " << e;
  }
  std::string e = finalize_error("[gpus]\nbackend = \"gpu\"\n[prover]\nworkers = 2\n");
  EXPECT_TRUE(contains(e, "prover.workers has no effect with gpus.backend = \"gpu\"")) << e;
  EXPECT_TRUE(contains(e, "gpus.workers_per_device")) << e;
  // Where they apply, or may (auto decides at start and logs config_ignored), they are fine.
  EXPECT_EQ(finalize_error("[gpus]\nbackend = \"cpu\"\n[prover]\nworkers = 2\n"), "");
  EXPECT_EQ(finalize_error("[gpus]\nbackend = \"gpu\"\nworkers_per_device = 2\nmsm_table_bits = 20\n"), "");
  EXPECT_EQ(finalize_error("[gpus]\nmsm_table_bits = 20\n[prover]\nworkers = 2\n"), "");
}
