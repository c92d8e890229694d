// The preflight (engine/preflight.hpp) on temporary directories: official parameter files found
// by their computed names and checked by layout and digest, missing ones listed, proof kinds
// sized, the listen socket's directory; and the streaming BLAKE2b the digests use.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/preflight.hpp"
#include "filecoin/blake2b.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "groth16/params_file.hpp"
#include "porep32_shape.hpp"
#include "test_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using cuzk::engine::CheckResult;
using cuzk::engine::CheckStatus;
using cuzk::engine::Config;
using cuzk::test::hex;
using cuzk::test::TempDir;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const CheckResult* find(const std::vector<CheckResult>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Config config_in(const TempDir& dir) {
  Config cfg;
  cfg.daemon.data_dir = dir.str();
  EXPECT_TRUE(cfg.finalize().ok());
  return cfg;
}

std::string porep_2kib_stem() {
  return cuzk::filecoin::porep_parameter_file_stem(cuzk::filecoin::registered_seal_proof("StackedDrg2KiBV1_1"));
}

TEST(Blake2bStream, EqualsOneShotForEverySplit) {
  std::vector<uint8_t> msg(300);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 7 + 1);
  for (size_t len : {0u, 1u, 127u, 128u, 129u, 256u, 300u}) {
    const std::span<const uint8_t> m(msg.data(), len);
    const std::vector<uint8_t> want = cuzk::filecoin::blake2b(m, 64);
    for (size_t cut : {0u, 1u, 64u, 128u, 200u}) {
      if (cut > len) continue;
      cuzk::filecoin::Blake2bStream s(64);
      s.update(m.first(cut));
      s.update(m.subspan(cut));
      EXPECT_EQ(s.digest(), want) << "len " << len << " cut " << cut;
    }
  }
}

TEST(ParameterFiles, DigestIsB2sumPrefix) {
  TempDir dir;
  const auto path = dir.write("abc", "abc");
  // RFC 7693 appendix A: BLAKE2b-512("abc") = ba80a53f981c4d0d6a2797b69f12f6e9...
  EXPECT_EQ(cuzk::filecoin::parameter_file_digest(path.string()), "ba80a53f981c4d0d6a2797b69f12f6e9");
  EXPECT_THROW(cuzk::filecoin::parameter_file_digest((dir.path() / "none").string()), std::runtime_error);
}

// Every name we compute for a PoRep, PoSt or SnapDeals circuit is an entry of parameters.json.
TEST(ParameterFiles, ComputedNamesAreInTheTable) {
  using namespace cuzk::filecoin;
  EXPECT_EQ(official_parameter_files().size(), 44u);
  for (const auto& p : registered_seal_proofs()) {
    for (const char* ext : {".params", ".vk"}) {
      EXPECT_NE(find_official_parameter_file(porep_parameter_file_stem(p) + ext), nullptr) << p.name << ext;
    }
  }
  for (const auto& p : registered_post_proofs()) {
    for (const char* ext : {".params", ".vk"}) {
      EXPECT_NE(find_official_parameter_file(post_parameter_file_stem(p) + ext), nullptr) << p.name << ext;
    }
  }
  // SnapDeals: the identifier's SHA-256 (filecoin-circuits.md 5.4), each size's own file.
  EXPECT_EQ(update_parameter_file_stem(update_proof_of_size(2048)),
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
            "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194");
  for (uint64_t id = 0; id <= 4; ++id) {
    const RegisteredUpdateProof& p = registered_update_proof(id);
    for (const char* ext : {".params", ".vk"}) {
      const OfficialParameterFile* f = find_official_parameter_file(update_parameter_file_stem(p) + ext);
      ASSERT_NE(f, nullptr) << p.name << ext;
      EXPECT_EQ(f->sector_size, p.sector_size) << p.name;
    }
  }
  EXPECT_EQ(find_official_parameter_file("v28-no-such.params"), nullptr);
}

TEST(Preflight, ParamDirWrongContentFailsAndMissingAreListed) {
  TempDir dir;
  Config cfg = config_in(dir);
  const std::string stem = porep_2kib_stem();
  dir.write("params/" + stem + ".params", std::string(4096, 'x'));
  dir.write("params/" + stem + ".vk", std::string(1000, 'y'));
  std::vector<CheckResult> out;
  cuzk::engine::check_parameter_files(cfg, {}, out);
  const CheckResult* params = find(out, stem + ".params");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(params->status, CheckStatus::Fail) << params->message;
  const CheckResult* vk = find(out, stem + ".vk");
  ASSERT_NE(vk, nullptr);
  EXPECT_EQ(vk->status, CheckStatus::Fail) << vk->message;
  const CheckResult* summary = find(out, "srs.param_dir");
  ASSERT_NE(summary, nullptr);
  EXPECT_TRUE(contains(summary->message, "2 of 40 official files present")) << summary->message;
  EXPECT_TRUE(contains(summary->message, "porep:32GiB (.params .vk)")) << summary->message;
  EXPECT_FALSE(contains(summary->message, "porep:2KiB")) << summary->message;
}

TEST(Preflight, DigestMismatchFails) {
  TempDir dir;
  Config cfg = config_in(dir);
  // A verifying key with a consistent layout (no ic points) but not the official bytes.
  std::string vk(cuzk::groth16::VK_FIXED_BYTES + 4, '\0');
  const std::string name = porep_2kib_stem() + ".vk";
  dir.write("params/" + name, vk);
  std::vector<CheckResult> without, with;
  cuzk::engine::check_parameter_files(cfg, {}, without);
  ASSERT_NE(find(without, name), nullptr);
  EXPECT_EQ(find(without, name)->status, CheckStatus::Pass) << find(without, name)->message;
  EXPECT_TRUE(contains(find(without, name)->message, "--digests"));
  cuzk::engine::PreflightOptions opt;
  opt.digests = true;
  uint64_t seen = 0;
  opt.digest_progress = [&](const std::string&, uint64_t done, uint64_t) { seen = done; };
  cuzk::engine::check_parameter_files(cfg, opt, with);
  ASSERT_NE(find(with, name), nullptr);
  EXPECT_EQ(find(with, name)->status, CheckStatus::Fail);
  EXPECT_TRUE(contains(find(with, name)->message, "is not parameters.json's")) << find(with, name)->message;
  EXPECT_EQ(seen, vk.size());
}

TEST(Preflight, PreloadedKindWithoutKeysFails) {
  TempDir dir;
  Config cfg = config_in(dir);
  cfg.srs.preload = {"porep:32GiB"};
  std::vector<CheckResult> out;
  cuzk::engine::check_proof_kinds(cfg, out);
  const CheckResult* kind = find(out, "porep:32GiB");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->status, CheckStatus::Fail);
  EXPECT_TRUE(contains(kind->message, "official parameter file")) << kind->message;
  // With test keys allowed it runs, with a warning.
  cfg.srs.allow_test_keys = true;
  out.clear();
  cuzk::engine::check_proof_kinds(cfg, out);
  ASSERT_NE(find(out, "porep:32GiB"), nullptr);
  EXPECT_EQ(find(out, "porep:32GiB")->status, CheckStatus::Warn);
}

TEST(Preflight, ListenSocketPathThatIsAFileFails) {
  TempDir dir;
  Config cfg = config_in(dir);
  cfg.daemon.listen = "unix://" + dir.str() + "/cuzk.sock";
  std::vector<CheckResult> ok, bad;
  cuzk::engine::check_listen(cfg, ok);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, CheckStatus::Pass) << ok[0].message;
  dir.write("cuzk.sock", "not a socket");
  cuzk::engine::check_listen(cfg, bad);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].status, CheckStatus::Fail);
  EXPECT_TRUE(contains(bad[0].message, "not a socket")) << bad[0].message;
}

TEST(Preflight, AccessReportsTlsTokenAndMetrics) {
  TempDir dir;
  Config cfg = config_in(dir);
  std::vector<CheckResult> out;
  cuzk::engine::check_access(cfg, out);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& c : out) EXPECT_EQ(c.status, CheckStatus::Pass) << c.name << ": " << c.message;
  EXPECT_TRUE(contains(find(out, "unix socket")->message, "mode 0600: only ")) << find(out, "unix socket")->message;
  EXPECT_TRUE(contains(find(out, "bearer token")->message, "off")) << find(out, "bearer token")->message;

  // A remote listener with a token file other users can read, and no TLS.
  cfg.daemon.listen = "0.0.0.0:9820";
  cfg.daemon.allow_remote = true;
  cfg.daemon.auth_token_file = dir.write("token", "0123456789abcdef0123\n").string();
  ASSERT_EQ(::chmod(cfg.daemon.auth_token_file.c_str(), 0644), 0);
  cfg.daemon.metrics_listen = "0.0.0.0:9821";
  out.clear();
  cuzk::engine::check_access(cfg, out);
  const CheckResult* token = find(out, "bearer token");
  ASSERT_NE(token, nullptr);
  EXPECT_EQ(token->status, CheckStatus::Fail);
  EXPECT_TRUE(contains(token->message, "chmod 600")) << token->message;
  EXPECT_EQ(find(out, "metrics endpoint")->status, CheckStatus::Warn);
  EXPECT_TRUE(contains(find(out, "tls")->message, "clear text")) << find(out, "tls")->message;
  // Fixed, the token works but travels in clear text without TLS: a warning.
  ASSERT_EQ(::chmod(cfg.daemon.auth_token_file.c_str(), 0600), 0);
  out.clear();
  cuzk::engine::check_access(cfg, out);
  EXPECT_EQ(find(out, "bearer token")->status, CheckStatus::Warn) << find(out, "bearer token")->message;
  // TLS files that are missing fail, naming the file.
  cfg.daemon.tls_cert = dir.str() + "/missing.pem";
  cfg.daemon.tls_key = dir.str() + "/missing.key";
  out.clear();
  cuzk::engine::check_access(cfg, out);
  EXPECT_EQ(find(out, "tls")->status, CheckStatus::Fail);
  EXPECT_TRUE(contains(find(out, "tls")->message, "missing.pem")) << find(out, "tls")->message;
  EXPECT_EQ(find(out, "bearer token")->status, CheckStatus::Pass) << "with TLS the token is not in clear text";
}

TEST(Preflight, SocketModeGroupAndAllowlistSayWhoCanConnect) {
  TempDir dir;
  Config cfg = config_in(dir);
  cfg.daemon.listen = "unix://" + dir.str() + "/run/cuzk.sock";
  cfg.daemon.socket_mode = 0660;
  cfg.daemon.socket_group = std::to_string(::getegid());
  std::vector<CheckResult> out;
  cuzk::engine::check_access(cfg, out);
  const CheckResult* sock = find(out, "unix socket");
  ASSERT_NE(sock, nullptr);
  // mkdtemp's directory is 0700: the group could not reach a socket inside it.
  EXPECT_EQ(sock->status, CheckStatus::Warn) << sock->message;
  EXPECT_TRUE(contains(sock->message, "and the members of the group can connect")) << sock->message;
  EXPECT_TRUE(contains(sock->message, "but directory " + dir.str() + " (mode 0700")) << sock->message;
  ASSERT_EQ(::chmod(dir.str().c_str(), 0750), 0);
  out.clear();
  cuzk::engine::check_access(cfg, out);
  EXPECT_EQ(find(out, "unix socket")->status, CheckStatus::Pass) << find(out, "unix socket")->message;
  // Anyone may connect: a warning.
  cfg.daemon.socket_mode = 0666;
  out.clear();
  cuzk::engine::check_access(cfg, out);
  EXPECT_EQ(find(out, "unix socket")->status, CheckStatus::Warn);
  EXPECT_TRUE(contains(find(out, "unix socket")->message, "every local user can connect"));
  // A TCP listener with networks that call without authentication: no socket line, a warning.
  cfg.daemon.listen = "0.0.0.0:9820";
  cfg.daemon.allow_remote = true;
  cfg.daemon.allow_unauthenticated_from = {"10.0.0.0/8", "fd00::/8"};
  out.clear();
  cuzk::engine::check_access(cfg, out);
  EXPECT_EQ(find(out, "unix socket"), nullptr);
  const CheckResult* nets = find(out, "unauthenticated networks");
  ASSERT_NE(nets, nullptr);
  EXPECT_EQ(nets->status, CheckStatus::Warn);
  EXPECT_TRUE(contains(nets->message, "clients from 10.0.0.0/8, fd00::/8 call every RPC without TLS or a token"))
      << nets->message;
  // The configuration's warnings (the seed daemon's keys) are one warn line each.
  cfg.warnings.push_back({"pipeline.slot_size", "pipeline.slot_size ... has no effect here"});
  const auto report = cuzk::engine::run_preflight(cfg);
  const CheckResult* w = find(report.checks, "pipeline.slot_size");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->group, "config");
  EXPECT_EQ(w->status, CheckStatus::Warn);
  EXPECT_EQ(w->message, "pipeline.slot_size ... has no effect here");
}

TEST(Preflight, BudgetAboveHostMemoryWarns) {
  TempDir dir;
  Config cfg = config_in(dir);
  cfg.memory.total_budget = 1ull << 50;
  std::vector<CheckResult> out;
  cuzk::engine::check_host_memory(cfg, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, CheckStatus::Warn) << out[0].message;
}

TEST(Preflight, CpuBackendReportReadsWell) {
  TempDir dir;
  Config cfg = config_in(dir);
  cfg.gpus.backend = "cpu";
  const auto report = cuzk::engine::run_preflight(cfg);
  EXPECT_FALSE(report.failed());
  ASSERT_FALSE(report.checks.empty());
  EXPECT_EQ(report.checks[0].group, "config");
  for (const auto& c : report.checks) {
    EXPECT_FALSE(c.message.empty()) << c.group << " " << c.name;
  }
}

}  // namespace

namespace {

// The 32 GiB PoRep key's layout (counts only: the placement needs no file) and its PCE's size.
cuzk::groth16::ParamsLayout porep32_layout() {
  const auto k = cuzk::test::porep32_key();
  cuzk::groth16::ParamsLayout l;
  l.ic.count = k.ic;
  l.h.count = k.h;
  l.l.count = k.l;
  l.a.count = k.a;
  l.b_g1.count = k.b_g1;
  l.b_g2.count = k.b_g2;
  return l;
}

cuzk::backend::DeviceDetails gpu(int ordinal, uint64_t gib) {
  return {.ordinal = ordinal, .name = "test GPU", .total_memory = gib << 30, .free_memory = gib << 30};
}

}  // namespace

// `cuzk doctor`'s per-GPU lines for a kind: resident on a card that holds it, streamed on the
// cards storage providers own, the CPU (a warning) below the streamed prover's floor, and a
// gpus.memory_limit below that floor a failure naming it.
TEST(PreflightKindGpus, EachGpuSaysWhereTheKindProves) {
  TempDir dir;
  Config cfg = config_in(dir);
  const uint64_t pce = cuzk::test::porep32_shape().pce_bytes;
  cuzk::backend::DeviceReport devices;
  devices.devices = {gpu(0, 141), gpu(1, 80), gpu(2, 16), gpu(3, 6)};
  CheckResult r{"kind", "porep:32GiB", CheckStatus::Pass, "host: ...", {}};
  cuzk::engine::check_kind_gpus(cfg, devices, porep32_layout(), pce, r);
  auto fact = [&](const std::string& name) -> std::string {
    for (const auto& [k, v] : r.facts)
      if (k == name) return std::get<std::string>(v);
    return "(none)";
  };
  EXPECT_EQ(fact("gpu:0_placement"), "resident") << r.message;
  EXPECT_EQ(fact("gpu:1_placement"), "streamed") << r.message;
  EXPECT_EQ(fact("gpu:2_placement"), "streamed") << r.message;
  EXPECT_EQ(fact("gpu:3_placement"), "cpu") << r.message;
  EXPECT_EQ(r.status, CheckStatus::Warn) << r.message;
  EXPECT_TRUE(contains(r.message, "gpu:2 (16.0 GiB): streamed")) << r.message;
  EXPECT_TRUE(contains(r.message, "its proofs run on the CPU")) << r.message;

  // gpus.backend = "gpu": the CPU placement is a failure.
  cfg.gpus.backend = "gpu";
  CheckResult strict{"kind", "porep:32GiB", CheckStatus::Pass, "", {}};
  cuzk::engine::check_kind_gpus(cfg, devices, porep32_layout(), pce, strict);
  EXPECT_EQ(strict.status, CheckStatus::Fail) << strict.message;

  // A cap below the streamed prover's smallest workable one on a card large enough: a failure
  // that names the cap to raise it to.
  cfg.gpus.backend = "auto";
  cfg.gpus.memory_limit_per_device[1] = uint64_t{4} << 30;
  devices.devices = {gpu(1, 80)};
  CheckResult capped{"kind", "porep:32GiB", CheckStatus::Pass, "", {}};
  cuzk::engine::check_kind_gpus(cfg, devices, porep32_layout(), pce, capped);
  EXPECT_EQ(capped.status, CheckStatus::Fail) << capped.message;
  EXPECT_TRUE(contains(capped.message, "gpus.memory_limit is below the smallest workable cap")) << capped.message;
  EXPECT_TRUE(contains(capped.message, "gpu:1 (4.0 GiB, gpus.memory_limit)")) << capped.message;

  // The CPU backend: no GPU lines at all.
  cfg.gpus.backend = "cpu";
  CheckResult cpu{"kind", "porep:32GiB", CheckStatus::Pass, "host", {}};
  cuzk::engine::check_kind_gpus(cfg, devices, porep32_layout(), pce, cpu);
  EXPECT_EQ(cpu.message, "host");
  EXPECT_TRUE(cpu.facts.empty());
}
