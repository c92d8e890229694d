// The proving engine in-process: jobs end to end (proofs checked by the verifier), idempotency,
// cancellation, priorities, timeouts, bad requests, the PCE cache's life cycle and the memory
// budget. Built-in circuits are small so that every test takes well under a few seconds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "backend/placement.hpp"
#include "circuits/builtin.hpp"
#include "engine/engine.hpp"
#include "engine/partition_work.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/setup_file.hpp"
#include "groth16/verifier.hpp"
#include "pce/build.hpp"
#include "poly/domain.hpp"
#include "test_helpers.hpp"
#include "util/tuning.hpp"

namespace {

using cuzk::test::TempDir;

using namespace cuzk;
using namespace cuzk::engine;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

Config test_config(const std::string& dir, unsigned synth_workers = 1) {
  Config c;
  c.daemon.data_dir = dir;
  c.memory.total_budget = 2ull << 30;
  c.memory.eviction_min_idle_s = 0;
  c.synthesis.workers = synth_workers;
  c.synthesis.threads = 1;
  c.synthesis.lookahead = 1;
  c.prover.workers = 1;
  c.prover.finalize_workers = 1;
  c.scheduler.completed_retention_s = 600;
  c.srs.allow_test_keys = true;  // the PoRep cases prove with test-only keys
  EXPECT_TRUE(c.finalize().ok());
  return c;
}

ProofRequest builtin_request(const std::string& circuit, size_t partitions, const std::string& request_id = "",
                             int priority = 0, uint64_t salt = 0) {
  ProofRequest r;
  r.kind = ProofKind::Generic;
  r.circuit_id = circuit;
  r.request_id = request_id;
  r.wire_priority = priority;
  for (size_t i = 0; i < partitions; ++i)
    r.partition_inputs.push_back("input-" + std::to_string(salt) + "-" + std::to_string(i));
  return r;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The checkout: CUZK_SOURCE_DIR in the environment on a device machine (where the build's own source
// path does not exist), else the build's.
std::string source_dir() {
  const char* env = std::getenv("CUZK_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : CUZK_SOURCE_DIR;
}

// Registers tests/zkey/<name>.zkey as circuit `id` (the config is finalized again).
void add_zkey_circuit(Config& cfg, const std::string& id, const std::string& name) {
  CircuitSection z;
  z.id = id;
  z.zkey = source_dir() + "/tests/zkey/" + name + ".zkey";
  cfg.circuits.push_back(z);
  ASSERT_TRUE(cfg.finalize().ok());
}

// Registers tests/circom/<name>.r1cs as circuit `id` with test-only keys (the config is finalized again).
void add_r1cs_circuit(Config& cfg, const std::string& id, const std::string& name) {
  CircuitSection c;
  c.id = id;
  c.r1cs = source_dir() + "/tests/circom/" + name + ".r1cs";
  c.test_setup = true;
  cfg.circuits.push_back(c);
  ASSERT_TRUE(cfg.finalize().ok());
}

// `count` copies of tests/circom/<name>.wtns for circuit `id`.
ProofRequest wtns_request(const std::string& id, const std::string& name, size_t count) {
  ProofRequest w;
  w.kind = ProofKind::Generic;
  w.circuit_id = id;
  const std::string root = source_dir();
  const std::string wtns = read_file(root + "/tests/circom/" + name + ".wtns");
  if (wtns.empty()) ADD_FAILURE() << root << "/tests/circom/" << name << ".wtns is missing or empty";
  w.witnesses.assign(count, wtns);
  return w;
}

// Decodes the job's proofs and public inputs and checks them with the circuit's verifying key.
void expect_valid(Engine& engine, const JobResult& r, const std::string& circuit) {
  ASSERT_EQ(r.status, JobStatus::Completed) << r.error_message;
  ASSERT_EQ(r.proof.size(), 192u * r.partitions);
  ASSERT_EQ(r.public_inputs.size(), r.partitions);
  auto vk_info = engine.verifying_key(circuit);
  ASSERT_TRUE(vk_info.ok()) << vk_info.error.message;
  const std::string& vkb = vk_info.value->vk_bytes;
  auto vk = groth16::parse_vk(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(vkb.data()), vkb.size()), "vk");
  ASSERT_TRUE(vk.ok()) << vk.error();
  auto proofs = groth16::decode_proofs(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(r.proof.data()), r.proof.size()));
  ASSERT_TRUE(proofs.ok()) << proofs.error();
  const auto pvk = groth16::prepare(*vk);
  for (uint32_t i = 0; i < r.partitions; ++i) {
    const std::string& pub = r.public_inputs[i];
    ASSERT_EQ(pub.size(), 32u * vk_info.value->num_public_inputs);
    std::vector<ec::Fr> xs;
    for (size_t k = 0; k < pub.size(); k += 32) {
      xs.push_back(ec::Fr::from_bytes_le(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pub.data()) + k, 32))
                       .value());
    }
    auto ok = groth16::verify(pvk, (*proofs)[i], xs);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_TRUE(*ok) << "partition " << i;
  }
}

TEST(Engine, ProvesBuiltinPartitionsEndToEndAndExtractsThePce) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  auto s = engine.submit(builtin_request("chain:2^10", 3, "job-a"));
  ASSERT_TRUE(s.ok()) << s.error.message;
  EXPECT_EQ(s.value->job_id, "job-a");
  auto r = engine.await("job-a", 0ms);
  ASSERT_TRUE(r.has_value());
  expect_valid(engine, *r, "chain:2^10");
  EXPECT_GT(r->timings.total_ms + 1, r->timings.synthesis_ms / 3);
  // Partition inputs differ, so do the statements.
  EXPECT_NE(r->public_inputs[0], r->public_inputs[1]);

  // The test-only keys were generated and cached; the PCE was extracted and persisted.
  EXPECT_TRUE(fs::exists(dir.str() + "/params/chain_1024.params"));
  engine.pce_cache().wait_idle();
  EXPECT_TRUE(fs::exists(dir.str() + "/pce/chain_1024.pce"));
  auto r2 = engine.submit(builtin_request("chain:1024", 2, "", 0, 7));  // same circuit, other spelling
  ASSERT_TRUE(r2.ok()) << r2.error.message;
  auto res2 = engine.await(r2.value->job_id, 0ms);
  expect_valid(engine, *res2, "chain:2^10");
  bool pce_loaded = false;
  for (const auto& p : engine.status().pce) pce_loaded |= p.circuit_id == "chain:1024" && p.state == "loaded";
  EXPECT_TRUE(pce_loaded);
  EXPECT_NE(engine.metrics_text().find("cuzk_partitions_synthesized_total{path=\"pce\"} 5"), std::string::npos)
      << engine.metrics_text();
  engine.shutdown(true);

  // Keys cached but no PCE: the first job is served by full synthesis while the PCE is extracted
  // in the background; later jobs use it.
  fs::remove(dir.str() + "/pce/chain_1024.pce");
  {
    Engine fresh(test_config(dir.str()));
    fresh.start();
    auto f1 = fresh.submit(builtin_request("chain:2^10", 1, "", 0, 8));
    expect_valid(fresh, *fresh.await(f1.value->job_id, 0ms), "chain:2^10");
    EXPECT_NE(fresh.metrics_text().find("cuzk_partitions_synthesized_total{path=\"full_synthesis\"} 1"),
              std::string::npos)
        << fresh.metrics_text();
    fresh.pce_cache().wait_idle();
    EXPECT_TRUE(fs::exists(dir.str() + "/pce/chain_1024.pce"));
    auto f2 = fresh.submit(builtin_request("chain:2^10", 2, "", 0, 9));
    expect_valid(fresh, *fresh.await(f2.value->job_id, 0ms), "chain:2^10");
    EXPECT_NE(fresh.metrics_text().find("cuzk_partitions_synthesized_total{path=\"pce\"} 2"), std::string::npos)
        << fresh.metrics_text();
  }

  // A restarted engine finds the PCE at start; a corrupt .pce next to it is skipped.
  std::ofstream(dir.str() + "/pce/garbage.pce") << "not a pce";
  Engine again(test_config(dir.str()));
  again.start();
  bool found = false;
  for (const auto& p : again.status().pce) found |= p.circuit_id == "chain:1024" && p.state == "loaded";
  EXPECT_TRUE(found);
  auto r3 = again.submit(builtin_request("chain:2^10", 1));
  ASSERT_TRUE(r3.ok());
  expect_valid(again, *again.await(r3.value->job_id, 0ms), "chain:2^10");
}

TEST(Engine, RequestIdIsAnIdempotencyKey) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  auto a = engine.submit(builtin_request("chain:2^9", 1, "same"));
  auto b = engine.submit(builtin_request("chain:2^9", 1, "same"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value->job_id, b.value->job_id);
  EXPECT_FALSE(a.value->existing);
  EXPECT_TRUE(b.value->existing);
  auto c = engine.submit(builtin_request("chain:2^9", 2, "same"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error.code, ErrorCode::InvalidArgument);
  EXPECT_NE(c.error.message.find("was used for another request"), std::string::npos);
  expect_valid(engine, *engine.await("same", 0ms), "chain:2^9");
  EXPECT_EQ(engine.status().completed, 1u);
}

// A hostile 100 MiB request is refused in well under a second in Release; under the sanitizers
// every byte access is instrumented and CI's two cores are shared, so the bound only rules out a hang.
#if defined(CUZK_SANITIZE_BUILD)
constexpr double kRefuseBoundS = 60.0;
#else
constexpr double kRefuseBoundS = 5.0;
#endif

TEST(Engine, BadRequestsAreRejectedWithClearMessages) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  add_r1cs_circuit(cfg, "mix", "mix");
  Engine engine(cfg);
  engine.start();
  auto expect_invalid = [&](ProofRequest r, const std::string& needle) {
    auto s = engine.submit(std::move(r));
    ASSERT_FALSE(s.ok()) << needle;
    EXPECT_EQ(s.error.code, ErrorCode::InvalidArgument) << s.error.message;
    EXPECT_NE(s.error.message.find(needle), std::string::npos) << s.error.message;
  };
  ProofRequest r = builtin_request("chain:2^9", 1);
  r.kind = ProofKind::Unspecified;
  expect_invalid(r, "proof_kind is required");
  r.kind = static_cast<ProofKind>(77);
  expect_invalid(r, "unknown proof_kind 77");
  r.kind = ProofKind::PorepSealCommit;
  expect_invalid(r, "vanilla_proof is empty");
  r.vanilla_proof = "{\"SectorNum\": 1}";
  expect_invalid(r, "vanilla_proof: ");
  for (const bool wrapped : {false, true}) {
    // 100 MiB of hostile JSON (one huge string): refused at once, quoted by a short prefix only.
    const std::string big(100u << 20, 'S');
    r.vanilla_proof = wrapped ? "{\"SectorNum\": 1, \"Phase1Out\": \"" + big + "\", \"SectorSize\": 2048}"
                              : "{\"registered_proof\": \"" + big + "\"}";
    const auto t0 = std::chrono::steady_clock::now();
    auto s = engine.submit(r);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error.code, ErrorCode::InvalidArgument);
    EXPECT_LT(s.error.message.size(), 2000u) << s.error.message.substr(0, 2000);
    EXPECT_LT(secs, kRefuseBoundS) << "a 100 MiB vanilla_proof took " << secs << " s to refuse";
    std::printf("100 MiB hostile vanilla_proof (%s) refused in %.3f s: %s\n", wrapped ? "wrapper" : "C1", secs,
                s.error.message.substr(0, 200).c_str());
  }
  {
    // A sealed sector's C1 with one byte of comm_d flipped: refused at submit, naming the field.
    const auto& proof = cuzk::filecoin::registered_seal_proof("StackedDrg2KiBV1_1");
    cuzk::filecoin::SealParams sp;
    sp.sector_id = 1;
    sp.prover_id = cuzk::filecoin::prover_id_from_actor_id(1000);
    sp.ticket.fill(1);
    sp.seed.fill(2);
    cuzk::filecoin::SealCommitPhase1Output c1 =
        cuzk::filecoin::seal_sector(proof, cuzk::filecoin::random_sector_data(proof.shape.nodes, 3), sp).c1;
    c1.comm_d[5] ^= 1;
    r.vanilla_proof = cuzk::filecoin::to_wrapper_json(c1, 1);
    expect_invalid(r, "comm_d");
    c1.comm_d[5] ^= 1;  // valid again, but not the size the request states
    r.vanilla_proof = cuzk::filecoin::to_wrapper_json(c1, 1);
    r.sector_size = 4096;
    expect_invalid(r, "sector_size 4096 does not match");
    r.sector_size = 0;
    // sector_number and miner_id, as Curio sends them, against the wrapper and C1's replica_id.
    r.miner_id = 1001;
    expect_invalid(r, "the C1 output's replica_id is not that of miner f01001's sector 1");
    r.miner_id = 1000;
    r.sector_number = 2;
    expect_invalid(r, "sector_number 2 does not match the wrapper's SectorNum 1");
    r.sector_number = 0;
    r.vanilla_proof = cuzk::filecoin::to_wrapper_json(c1, 5);
    expect_invalid(r, "is not that of miner f01000's sector 5");
    r.vanilla_proof = cuzk::filecoin::to_json(c1);
    r.sector_number = 3;
    expect_invalid(r, "is not that of miner f01000's sector 3");
    r.sector_number = 0;
    r.miner_id = 0;
  }
  r.vanilla_proof = {};
  r.kind = ProofKind::SnapDealsUpdate;  // served, from its vanilla proofs only (test_engine_snap)
  expect_invalid(r, "SnapDeals computes its witness from vanilla_proofs");
  expect_invalid(builtin_request("nope", 1), "unknown circuit id \"nope\"");
  expect_invalid(builtin_request("", 1), "circuit_id is required");
  expect_invalid(builtin_request("chain:2^9", 0), "no partitions");
  r = builtin_request("chain:2^9", 1);
  r.partition_inputs[0] = std::string(65, 'x');
  expect_invalid(r, "at most 64");
  r = builtin_request("chain:2^9", 1);
  r.witnesses.push_back("x");
  expect_invalid(r, "computes its own witness");
  // circom circuit: garbage and wrong-size witnesses.
  ProofRequest w;
  w.kind = ProofKind::Generic;
  w.circuit_id = "mix";
  expect_invalid(w, "no witnesses");
  w.witnesses = {"garbage"};
  expect_invalid(w, "witness 0");
  ASSERT_TRUE(engine.preload_srs("mix").ok());
  w.witnesses = {read_file(source_dir() + "/tests/circom/mul3.wtns")};
  expect_invalid(w, "needs");
  // ...and the engine still serves good requests.
  w.witnesses = {read_file(source_dir() + "/tests/circom/mix.wtns")};
  auto ok = engine.submit(w);
  ASSERT_TRUE(ok.ok()) << ok.error.message;
  expect_valid(engine, *engine.await(ok.value->job_id, 0ms), "mix");
}

TEST(Engine, ProvesFromAZkey) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  add_zkey_circuit(cfg, "mul3-zkey", "mul3");
  Engine engine(cfg);
  engine.start();
  auto s = engine.submit(wtns_request("mul3-zkey", "mul3", 2));
  ASSERT_TRUE(s.ok()) << s.error.message;
  expect_valid(engine, *engine.await(s.value->job_id, 0ms), "mul3-zkey");
}

// A witness that does not satisfy its circuit (one aux value changed) yields no proof on either
// convention: the daemon verifies every proof before it returns it.
TEST(Engine, AWitnessThatDoesNotSatisfyTheCircuitGetsNoProof) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  add_r1cs_circuit(cfg, "mix", "mix");
  add_zkey_circuit(cfg, "mix-zkey", "mix");
  Engine engine(cfg);
  engine.start();
  for (const char* id : {"mix", "mix-zkey"}) {
    ProofRequest w = wtns_request(id, "mix", 2);
    w.witnesses[1][w.witnesses[1].size() - 32] ^= 1;  // partition 1's last aux value
    auto s = engine.submit(w);
    ASSERT_TRUE(s.ok()) << s.error.message;
    auto r = engine.await(s.value->job_id, 0ms);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, JobStatus::Failed) << id;
    EXPECT_NE(r->error_message.find("does not satisfy the circuit"), std::string::npos) << r->error_message;
    EXPECT_TRUE(r->proof.empty()) << id;
    // The good witness still proves.
    auto ok = engine.submit(wtns_request(id, "mix", 1));
    ASSERT_TRUE(ok.ok()) << ok.error.message;
    expect_valid(engine, *engine.await(ok.value->job_id, 0ms), id);
  }
}

TEST(Engine, AwaitTimesOutAndUnknownJobsAreNotFound) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  EXPECT_FALSE(engine.await("nope", 10ms).has_value());
  auto s = engine.submit(builtin_request("chain:2^13", 1));
  ASSERT_TRUE(s.ok());
  auto r = engine.await(s.value->job_id, 1ms);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, JobStatus::Timeout);
  EXPECT_EQ(engine.await(s.value->job_id, 0ms)->status, JobStatus::Completed);
}

TEST(Engine, CancelRemovesQueuedWorkAndStopsRunningWork) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^12").ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    auto s = engine.submit(builtin_request("chain:2^12", 3, "", 0, i));
    ASSERT_TRUE(s.ok());
    ids.push_back(s.value->job_id);
  }
  // The last job is still queued; the first is running (or about to).
  auto c = engine.cancel(ids.back());
  EXPECT_TRUE(c.found);
  EXPECT_TRUE(c.cancelled);
  EXPECT_EQ(engine.await(ids.back(), 0ms)->status, JobStatus::Cancelled);
  std::this_thread::sleep_for(20ms);
  auto c0 = engine.cancel(ids.front());
  EXPECT_TRUE(c0.cancelled);
  EXPECT_EQ(engine.await(ids.front(), 0ms)->status, JobStatus::Cancelled);
  // Cancelling twice, or an unknown job.
  EXPECT_FALSE(engine.cancel(ids.front()).cancelled);
  EXPECT_FALSE(engine.cancel("nope").found);
  // The others complete, and all partition memory returns to the budget.
  for (size_t i = 1; i + 1 < ids.size(); ++i) expect_valid(engine, *engine.await(ids[i], 0ms), "chain:2^12");
  const uint64_t resident = engine.budget().used();
  for (int i = 0; i < 100 && engine.status().memory_used_bytes > resident; ++i) std::this_thread::sleep_for(10ms);
  uint64_t caches = 0;
  for (const auto& s : engine.status().srs) caches += s.size_bytes;
  for (const auto& p : engine.status().pce) caches += p.state == "loaded" ? p.size_bytes : 0;
  EXPECT_EQ(engine.budget().used(), caches);
  EXPECT_EQ(engine.status().cancelled, 2u);
}

TEST(Engine, CriticalOvertakesQueuedNormalWork) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^12").ok());
  std::vector<std::string> normal;
  for (int i = 0; i < 6; ++i) normal.push_back(engine.submit(builtin_request("chain:2^12", 1, "", 2, i)).value->job_id);
  auto crit = engine.submit(builtin_request("chain:2^12", 1, "", 4, 99));
  ASSERT_TRUE(crit.ok());
  ASSERT_EQ(engine.await(crit.value->job_id, 0ms)->status, JobStatus::Completed);
  // When the CRITICAL job is done, most NORMAL jobs queued before it are not.
  int normal_done = 0;
  for (const auto& id : normal) normal_done += engine.await(id, 1ms)->status == JobStatus::Completed;
  EXPECT_LE(normal_done, 2);
  for (const auto& id : normal) EXPECT_EQ(engine.await(id, 0ms)->status, JobStatus::Completed);
}

TEST(Engine, MemoryBudgetBackpressureAndTooLargePartitions) {
  TempDir dir;
  Config cfg = test_config(dir.str(), 2);
  cfg.synthesis.lookahead = 2;
  // Room for the keys and PCE of chain:2^12 and about one partition at a time.
  cfg.memory.total_budget = 6ull << 20;
  Engine engine(cfg);
  engine.start();
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(engine.submit(builtin_request("chain:2^12", 2, "", 0, i)).value->job_id);
  for (const auto& id : ids) expect_valid(engine, *engine.await(id, 0ms), "chain:2^12");
  EXPECT_LE(engine.budget().peak_used(), engine.budget().limit());
  // A partition larger than the whole budget fails with a message naming both sizes.
  auto big = engine.submit(builtin_request("chain:2^16", 1));
  ASSERT_TRUE(big.ok());
  auto r = engine.await(big.value->job_id, 0ms);
  EXPECT_EQ(r->status, JobStatus::Failed);
  EXPECT_FALSE(r->error_message.empty());
}

TEST(Engine, EvictAndDrain) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  auto s = engine.submit(builtin_request("chain:2^9", 1));
  ASSERT_EQ(engine.await(s.value->job_id, 0ms)->status, JobStatus::Completed);
  ASSERT_EQ(engine.status().srs.size(), 1u);
  auto e = engine.evict_srs("chain:2^9");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e.value->was_loaded);
  EXPECT_GT(e.value->freed_bytes, 0u);
  EXPECT_TRUE(engine.status().srs.empty());
  EXPECT_FALSE(engine.evict_srs("chain:2^9").value->was_loaded);
  EXPECT_EQ(engine.evict_srs("nope").error.code, ErrorCode::NotFound);
  // Queued work is finished by a draining shutdown, and new work is refused.
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(engine.submit(builtin_request("chain:2^9", 2, "", 0, i)).value->job_id);
  std::thread stopper([&] { engine.shutdown(true); });
  stopper.join();
  for (const auto& id : ids) EXPECT_EQ(engine.await(id, 0ms)->status, JobStatus::Completed);
  auto late = engine.submit(builtin_request("chain:2^9", 1));
  EXPECT_EQ(late.error.code, ErrorCode::Unavailable);
}

// ---- the device stage on GPUs (engine/gpu_pool): fake devices that prove on the CPU ----

// A "device" that proves on the CPU, holds `bytes` of pretend device memory, and fails its calls
// while `fail_calls` (shared per device) is positive (or always, when it is negative).
struct FakeDevice {
  std::atomic<int> fail_calls{0};
  // Or, set before the engine starts: fails the calls for which this says so (numbered from 1 in
  // the order they reach the device), e.g. one in the middle of a batch.
  std::function<bool(int)> fail_call;
  std::atomic<int> calls{0};
  std::atomic<int> resident{0};
  int capacity = 8;  // provers that fit at once
  std::atomic<int> built{0};
  std::chrono::milliseconds delay{0};  // each device stage takes at least this long
  // As a GPU prover with two witness slots: calls at once, each first "waiting for the other's
  // kernels" this long (reported as ProveTimings::device_wait_s).
  unsigned concurrency = 1;
  std::chrono::milliseconds wait{0};
  std::optional<backend::FitOptions> fit;  // what its last prover was built with
};

// Both conventions: a bellperson key's points collected from the source (the daemon's GPUs stream
// them from the file), or the zkey; the stage computed on the CPU.
class FakeDeviceProver final : public backend::DeviceProver {
 public:
  FakeDeviceProver(int ordinal, FakeDevice& dev, const backend::ProverKey& key) : ordinal_(ordinal), dev_(dev) {
    if (const auto* k = std::get_if<backend::PceKey>(&key)) {
      pk_ = groth16::collect_key(*k->key);
      cpu_ = backend::make_cpu_prover(pk_, *k->pce);
    } else {
      cpu_ = backend::make_cpu_prover(*std::get<backend::ZkeyKey>(key).zkey);
    }
    ++dev_.resident;
  }
  ~FakeDeviceProver() override { --dev_.resident; }
  std::string name() const override { return "gpu:" + std::to_string(ordinal_); }
  uint64_t device_bytes() const override { return 1000; }
  unsigned concurrency() const override { return dev_.concurrency; }
  backend::StageMsms stage1(const backend::WitnessRef& w, groth16::ProveTimings* t) override {
    if (dev_.wait.count() > 0) {
      std::this_thread::sleep_for(dev_.wait);
      if (t) t->device_wait_s += std::chrono::duration<double>(dev_.wait).count();
    }
    const int call = ++dev_.calls;
    int f = dev_.fail_calls.load();
    if (f < 0 || (f > 0 && dev_.fail_calls.fetch_sub(1) > 0) || (dev_.fail_call && dev_.fail_call(call))) {
      throw DeviceFailure(name() + ": injected launch failure (call " + std::to_string(call) + ")");
    }
    std::this_thread::sleep_for(dev_.delay);
    return cpu_->stage1(w, t);
  }

 private:
  int ordinal_;
  FakeDevice& dev_;
  groth16::ProvingKey pk_;
  std::unique_ptr<backend::DeviceProver> cpu_;
};

backend::PlacementSetup fake_devices(std::vector<int> ordinals, std::map<int, FakeDevice>& devs) {
  for (int d : ordinals) devs[d];
  return {ordinals, [&devs](int d, const backend::ProverKey& key, const backend::FitOptions& fit) {
            FakeDevice& dev = devs.at(d);
            if (dev.resident.load() >= dev.capacity) {
              throw DeviceMemoryShort("gpu:" + std::to_string(d) + ": injected: device memory full");
            }
            ++dev.built;
            dev.fit = fit;
            return std::unique_ptr<backend::DeviceProver>(std::make_unique<FakeDeviceProver>(d, dev, key));
          }};
}

double metric(Engine& engine, const std::string& line_prefix) {
  const std::string text = engine.metrics_text();
  const size_t at = text.find("\n" + line_prefix + " ");
  if (at == std::string::npos) return 0;
  return std::stod(text.substr(at + line_prefix.size() + 2));
}

// The job's result; a job still running after a minute (a stuck pipeline) fails the test.
JobResult prove_now(Engine& engine, const std::string& circuit, size_t partitions, uint64_t salt) {
  auto s = engine.submit(builtin_request(circuit, partitions, "", 0, salt));
  EXPECT_TRUE(s.ok()) << s.error.message;
  JobResult r = *engine.await(s.value->job_id, 60s);
  if (r.status == JobStatus::Timeout) {
    ADD_FAILURE() << circuit << ": the job did not finish within 60 s";
    engine.cancel(s.value->job_id);
  }
  return r;
}

// ---- TEST-ONLY keys held in memory (srs.test_keys = "memory") ----

// The key files in the parameter directory (none when it was never made).
std::vector<std::string> key_files(const std::string& data_dir) {
  std::vector<std::string> out;
  const fs::path params = fs::path(data_dir) / "params";
  if (!fs::exists(params)) return out;
  for (const auto& e : fs::directory_iterator(params)) out.push_back(e.path().filename().string());
  return out;
}

// The circuit's loaded key as status() describes it; fails the test when absent.
SrsInfo srs_info(Engine& engine, const std::string& circuit) {
  for (const SrsInfo& i : engine.status().srs) {
    if (i.circuit_id == circuit) return i;
  }
  ADD_FAILURE() << circuit << " is not loaded";
  return {};
}

std::string vk_of(Engine& engine, const std::string& circuit) {
  auto vk = engine.verifying_key(circuit);
  EXPECT_TRUE(vk.ok()) << vk.error.message;
  return vk.ok() ? vk.value->vk_bytes : std::string();
}

// Proved and verified (before return, and here) with a key that never touches the disk; the key
// is described as TEST-ONLY and in memory, its bytes are held in the memory budget, and an evicted
// one is made again on the next use, the same key.
TEST(Engine, TestKeysInMemoryProveAndLeaveNoFile) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.srs.test_keys = "memory";
  ASSERT_TRUE(cfg.finalize().ok());
  Engine engine(cfg);
  engine.start();
  expect_valid(engine, prove_now(engine, "chain:2^10", 3, 1), "chain:2^10");
  EXPECT_EQ(key_files(dir.str()), std::vector<std::string>{});
  const SrsInfo info = srs_info(engine, "chain:1024");
  EXPECT_TRUE(info.test_only);
  EXPECT_EQ(info.storage, "memory");
  // Its host bytes are the whole key's, reserved in the budget until it goes.
  circuits::BuiltinSpec spec = circuits::parse_builtin("chain:2^10").value();
  auto pce = pce::build_pce(circuits::record_builtin(spec));
  const uint64_t key_bytes = groth16::setup_key_sizes(pce).host_bytes();
  EXPECT_EQ(info.size_bytes, key_bytes);
  const std::string vk = vk_of(engine, "chain:2^10");
  // The budget holds the key and the PCE, nothing else once the job's last work item is gone.
  auto pce_bytes = [&] {
    uint64_t n = 0;
    for (const auto& p : engine.status().pce) n += p.state == "loaded" ? p.size_bytes : 0;
    return n;
  };
  auto settled = [&](uint64_t want) {
    for (int i = 0; i < 500 && engine.budget().used() != want; ++i) std::this_thread::sleep_for(10ms);
    return engine.budget().used();
  };
  EXPECT_EQ(settled(key_bytes + pce_bytes()), key_bytes + pce_bytes());

  auto e = engine.evict_srs("chain:2^10");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e.value->was_loaded);
  EXPECT_EQ(e.value->freed_bytes, key_bytes);
  EXPECT_EQ(settled(pce_bytes()), pce_bytes());
  // Made again on the next use: the same key (seeded by the circuit id), still no file.
  expect_valid(engine, prove_now(engine, "chain:2^10", 1, 2), "chain:2^10");
  EXPECT_EQ(srs_info(engine, "chain:1024").storage, "memory");
  EXPECT_EQ(vk_of(engine, "chain:2^10"), vk);
  EXPECT_EQ(key_files(dir.str()), std::vector<std::string>{});
}

// The same circuit's keys made to a file by one engine and in memory by another are one key: the
// verifying keys are byte for byte the same (and the .vk file's bytes), and each engine's proofs
// verify with the other's key.
TEST(Engine, TestKeysInMemoryAreTheKeysOfTheFile) {
  TempDir file_dir, mem_dir;
  Config file_cfg = test_config(file_dir.str());
  file_cfg.srs.test_keys = "file";
  ASSERT_TRUE(file_cfg.finalize().ok());
  Config mem_cfg = test_config(mem_dir.str());
  mem_cfg.srs.test_keys = "memory";
  ASSERT_TRUE(mem_cfg.finalize().ok());
  Engine from_file(file_cfg), in_memory(mem_cfg);
  from_file.start();
  in_memory.start();
  const JobResult fr = prove_now(from_file, "chain:2^9", 2, 3);
  const JobResult mr = prove_now(in_memory, "chain:2^9", 2, 4);
  ASSERT_EQ(srs_info(from_file, "chain:512").storage, "file");
  ASSERT_EQ(srs_info(in_memory, "chain:512").storage, "memory");
  const std::string vk = vk_of(from_file, "chain:2^9");
  ASSERT_FALSE(vk.empty());
  EXPECT_EQ(vk_of(in_memory, "chain:2^9"), vk);
  EXPECT_EQ(read_file(file_dir.str() + "/params/chain_512.vk"), vk);
  expect_valid(from_file, mr, "chain:2^9");
  expect_valid(in_memory, fr, "chain:2^9");
  EXPECT_EQ(key_files(mem_dir.str()), std::vector<std::string>{});
  // A key cached in the parameter directory is loaded from there whatever the mode (the same key).
  fs::create_directories(mem_dir.path() / "params");
  for (const char* f : {"chain_512.params", "chain_512.vk"}) {
    fs::copy_file(file_dir.path() / "params" / f, mem_dir.path() / "params" / f);
  }
  ASSERT_TRUE(in_memory.evict_srs("chain:2^9").ok());
  expect_valid(in_memory, prove_now(in_memory, "chain:2^9", 1, 5), "chain:2^9");
  EXPECT_EQ(srs_info(in_memory, "chain:512").storage, "file");
  EXPECT_EQ(vk_of(in_memory, "chain:2^9"), vk);
}

// A key that cannot fit the memory budget is refused at once, before any work, saying what to do;
// nothing is written.
TEST(Engine, ATestKeyInMemoryLargerThanTheBudgetIsRefused) {
  TempDir dir;
  circuits::BuiltinSpec spec = circuits::parse_builtin("chain:2^10").value();
  auto pce = pce::build_pce(circuits::record_builtin(spec));
  Config cfg = test_config(dir.str());
  cfg.srs.test_keys = "memory";
  cfg.memory.total_budget = groth16::setup_key_sizes(pce).host_bytes();  // no room for the working set
  ASSERT_TRUE(cfg.finalize().ok());
  Engine engine(cfg);
  engine.start();
  auto r = engine.preload_srs("chain:2^10");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.code, ErrorCode::FailedPrecondition);
  EXPECT_TRUE(r.error.message.find("the TEST-ONLY key of 'chain:1024' in memory (srs.test_keys = \"memory\"): ") !=
              std::string::npos)
      << r.error.message;
  EXPECT_NE(r.error.message.find("more than the whole memory budget of 614.8 KiB (raise memory.total_budget"),
            std::string::npos)
      << r.error.message;
  EXPECT_NE(r.error.message.find("; it needs 614.8 KiB, and "), std::string::npos) << r.error.message;
  EXPECT_NE(r.error.message.find("or keep it in a file: give srs.param_dir's filesystem room for 575.7 KiB and set "
                                 "srs.test_keys = \"file\""),
            std::string::npos)
      << r.error.message;
  EXPECT_TRUE(engine.status().srs.empty());
  EXPECT_EQ(key_files(dir.str()), std::vector<std::string>{});
}

// Every way out of the pipeline gives back the partition's lookahead slot and memory (RAII
// tokens, not hand-written releases): a proof that fails verification, a cancelled job's queued
// and running partitions, a completed job. A leaked slot would show here and, with few slots,
// stall the engine.
TEST(Engine, LookaheadSlotsAndMemoryComeBackOnEveryPath) {
  TempDir dir;
  Config cfg = test_config(dir.str());  // one synthesis worker
  cfg.synthesis.lookahead = 2;
  add_r1cs_circuit(cfg, "mix", "mix");
  Engine engine(cfg);
  engine.start();
  auto expect_idle = [&](const char* after) {
    SCOPED_TRACE(after);
    auto caches = [&] {
      uint64_t bytes = 0;
      const EngineStatus st = engine.status();
      for (const auto& x : st.srs) bytes += x.size_bytes;
      for (const auto& p : st.pce) bytes += p.state == "loaded" ? p.size_bytes : 0;
      return bytes;
    };
    // The idle synthesis worker holds one slot while it waits for its next partition.
    for (int i = 0; i < 200 && (engine.lookahead().free_slots() != 1 || engine.budget().used() != caches()); ++i) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(engine.lookahead().free_slots(), 1u);
    EXPECT_EQ(engine.budget().used(), caches());
  };
  ProofRequest bad = wtns_request("mix", "mix", 3);
  bad.witnesses[1][bad.witnesses[1].size() - 32] ^= 1;
  auto s = engine.submit(bad);
  ASSERT_TRUE(s.ok()) << s.error.message;
  EXPECT_EQ(engine.await(s.value->job_id, 60s)->status, JobStatus::Failed);
  expect_idle("a proof that does not verify");
  ASSERT_TRUE(engine.preload_srs("chain:2^12").ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(engine.submit(builtin_request("chain:2^12", 4, "", 0, i)).value->job_id);
  std::this_thread::sleep_for(20ms);
  for (const auto& id : ids) engine.cancel(id);
  for (const auto& id : ids) EXPECT_EQ(engine.await(id, 60s)->status, JobStatus::Cancelled);
  expect_idle("cancelled jobs");
  expect_valid(engine, prove_now(engine, "chain:2^12", 3, 40), "chain:2^12");
  expect_idle("a completed job");
}

// GetStatus reports queued and running work under its job's proof kind (it said "generic" for
// every job): a PoRep job is seen in the load stage, where it makes its test-only keys.
TEST(Engine, StatusReportsEachJobsProofKind) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  const auto& proof = cuzk::filecoin::registered_seal_proof("StackedDrg2KiBV1_1");
  cuzk::filecoin::SealParams sp;
  sp.sector_id = 1;
  sp.prover_id = cuzk::filecoin::prover_id_from_actor_id(1000);
  sp.ticket.fill(1);
  sp.seed.fill(2);
  ProofRequest r;
  r.kind = ProofKind::PorepSealCommit;
  r.vanilla_proof = cuzk::filecoin::to_wrapper_json(
      cuzk::filecoin::seal_sector(proof, cuzk::filecoin::random_sector_data(proof.shape.nodes, 3), sp).c1, 1);
  auto s = engine.submit(r);
  ASSERT_TRUE(s.ok()) << s.error.message;
  bool seen = false;
  for (int i = 0; i < 1000 && !seen; ++i) {
    for (const QueueInfo& q : engine.status().queues) {
      EXPECT_NE(q.proof_kind, "generic") << q.stage;
      seen |= q.stage == "scheduler" && q.proof_kind == "porep_c2" && q.pending + q.in_progress == 1;
    }
    if (!seen) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(seen);
  engine.shutdown(/*drain=*/false);  // abandons the key generation
  EXPECT_EQ(engine.await(s.value->job_id, 0ms)->status, JobStatus::Cancelled);
}

// Two fake devices, with both prover workers kept busy (two synthesis workers, lookahead 4) so
// that device 0 takes partitions too.
struct TwoBusyDevices {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Engine engine{config(dir.str()), fake_devices({0, 1}, devs)};

  static Config config(const std::string& dir) {
    Config cfg = test_config(dir, 2);
    cfg.synthesis.lookahead = 4;
    return cfg;
  }
  // Starts the engine (a test sets its faults on `devs` first), makes the keys and PCE before the
  // job (the GPU path from its first partition) and proves; the proof must verify.
  void start_and_prove(const std::string& circuit, size_t partitions, uint64_t salt) {
    engine.start();
    ASSERT_TRUE(engine.preload_srs(circuit).ok());
    expect_valid(engine, prove_now(engine, circuit, partitions, salt), circuit);
  }
};

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

// Host memory of a circuit's keys (status().srs size_bytes), 0 when absent.
uint64_t srs_host_bytes(Engine& engine, const std::string& circuit) {
  for (const SrsInfo& i : engine.status().srs) {
    if (i.circuit_id == circuit) return i.size_bytes;
  }
  return 0;
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
    for (const QueueInfo& q : engine.status().queues) {
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

// The largest host bytes of one circuit's keys + PCE, as the engine counts them.
uint64_t largest_keys_and_pce(const std::string& dir, std::initializer_list<const char*> ids) {
  Engine probe(test_config(dir));
  probe.start();
  for (const char* c : ids) EXPECT_TRUE(probe.preload_srs(c).ok());
  const EngineStatus st = probe.status();
  std::map<std::string, uint64_t> per;
  for (const auto& x : st.srs) per[x.circuit_id] += x.size_bytes;
  for (const auto& x : st.pce) per[x.circuit_id] += x.size_bytes;
  EXPECT_EQ(per.size(), ids.size());
  uint64_t largest = 0;
  for (const auto& [id, b] : per) largest = std::max(largest, b);
  return largest;
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

TEST(Engine, TuningIsAppliedAndReported) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.tuning.matvec_stream = false;
  {
    Engine engine(cfg);
    engine.start();
    EXPECT_FALSE(tuning().matvec_stream);  // the process's kernels now use it
    const EngineStatus st = engine.status();
    ASSERT_EQ(st.tuning.size(), 6u);
    EXPECT_EQ(st.tuning[2], "matvec_stream=false (config)");
    EXPECT_EQ(st.tuning[1], "msm_glv=true (default)");
    // Proofs are the same with ordinary stores.
    expect_valid(engine, prove_now(engine, "chain:2^9", 1, 31), "chain:2^9");
  }
  set_tuning(Tuning{});
}

TEST(Engine, AForcedStopAbandonsAKeyGenerationAndLeavesNoFile) {
  TempDir dir;
  auto engine = std::make_unique<Engine>(test_config(dir.str()));
  engine->start();
  std::atomic<bool> done{false};
  Outcome<PreloadResult> pre = Outcome<PreloadResult>::failure(ErrorCode::Internal, "not run");
  std::thread t([&] {
    pre = engine->preload_srs("filecoin-like:2^17");  // seconds of key generation on a small machine
    done = true;
  });
  const fs::path params = fs::path(dir.str()) / "params";
  // Stop once the key file is being written (or when the generation is already over).
  for (int i = 0; i < 400 && !done; ++i) {
    bool writing = false;
    if (fs::exists(params)) {
      for (const auto& e : fs::directory_iterator(params))
        writing |= e.path().filename().string().find(".tmp-") != std::string::npos;
    }
    if (writing) break;
    std::this_thread::sleep_for(25ms);
  }
  const bool stopped_while_writing = !done;
  engine->shutdown(/*drain=*/false);
  t.join();
  if (!stopped_while_writing) GTEST_SKIP() << "the key generation finished before the stop";
  EXPECT_FALSE(pre.ok());
  EXPECT_NE(pre.error.message.find("interrupted"), std::string::npos) << pre.error.message;
  // Neither the key files nor their temporary files remain.
  for (const auto& e : fs::directory_iterator(params)) {
    EXPECT_EQ(e.path().filename().string().find("filecoin-like"), std::string::npos) << e.path();
  }
}

TEST(Engine, KeysOfAnotherCircuitAreRefusedBeforeAnyWork) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^10").ok());
  // chain:2^9's key files replaced by chain:2^10's (a misplaced or renamed .params).
  const fs::path params = fs::path(dir.str()) / "params";
  fs::copy_file(params / "chain_1024.params", params / "chain_512.params");
  fs::copy_file(params / "chain_1024.vk", params / "chain_512.vk");
  // Before the circuit's PCE exists (full synthesis) the prover finds the mismatch.
  JobResult r = prove_now(engine, "chain:2^9", 2, 33);
  EXPECT_EQ(r.status, JobStatus::Failed);
  EXPECT_NE(r.error_message.find("does not fit the circuit: l (num_aux) has 1020 elements, expected 508"),
            std::string::npos)
      << r.error_message;
  EXPECT_EQ(r.proof.size(), 0u);
  // Once it exists (extracted in the background on first use), the loader refuses the job before
  // any synthesis, naming the file.
  for (int i = 0; i < 200 && !engine.pce_cache().peek("chain:512"); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(engine.pce_cache().peek("chain:512"));
  r = prove_now(engine, "chain:2^9", 2, 34);
  EXPECT_EQ(r.status, JobStatus::Failed);
  EXPECT_NE(r.error_message.find("the keys of circuit 'chain:512' (" + (params / "chain_512.params").string() +
                                 "): proving key does not fit the circuit"),
            std::string::npos)
      << r.error_message;
  EXPECT_EQ(r.timings.synthesis_ms, 0u);
  EXPECT_EQ(metric(engine, "cuzk_partitions_proved_total{backend=\"cpu\"}"), 0);
}

TEST(Engine, EveryPartitionReportsItsStageTimes) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  const JobResult r = prove_now(engine, "chain:2^9", 3, 32);
  expect_valid(engine, r, "chain:2^9");
  ASSERT_EQ(r.partition_timings.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    const PartitionTiming& p = r.partition_timings[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(p.index, i);
    EXPECT_EQ(p.backend, "cpu");
    EXPECT_GT(p.synthesis_ms, 0);
    EXPECT_GT(p.prove_ms, 0);
    EXPECT_GT(p.finalize_ms, 0);
    // Stages in order, on the job's clock (1 ms of slack for the rounding of separate clocks reads).
    EXPECT_GE(p.prove_start_ms + 1, p.synthesis_start_ms + p.synthesis_ms);
    EXPECT_GE(p.finalize_start_ms + 1, p.prove_start_ms + p.prove_ms);
    EXPECT_LE(p.finalize_start_ms + p.finalize_ms, static_cast<double>(r.timings.total_ms) + 1);
    // The device stage's parts on the CPU: MatVec ran in synthesis, nothing was uploaded; H and the
    // G1 MSMs run one after the other inside the stage (the G2 MSM may run beside them).
    EXPECT_EQ(p.upload_ms, 0);
    EXPECT_EQ(p.matvec_ms, 0);
    EXPECT_GT(p.h_ms, 0);
    EXPECT_GT(p.msm_g1_ms, 0);
    EXPECT_GT(p.msm_g2_ms, 0);
    EXPECT_LE(p.h_ms + p.msm_g1_ms, p.prove_ms + 1);
  }
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
