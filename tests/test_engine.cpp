// The proving engine in-process: jobs end to end (proofs checked by the verifier), idempotency,
// cancellation, priorities, timeouts, bad requests, the PCE cache's life cycle and the memory
// budget. Built-in circuits are small so that every test takes well under a few seconds.
#include <gtest/gtest.h>

#include "engine_test_support.hpp"

namespace {

using namespace cuzk::engine_test;

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

TEST(Engine, ACorruptCachedPceIsExtractedAgain) {
  TempDir dir;
  {
    Engine first(test_config(dir.str()));
    first.start();
    auto s = first.submit(builtin_request("chain:2^9", 1));
    ASSERT_TRUE(s.ok()) << s.error.message;
    expect_valid(first, *first.await(s.value->job_id, 0ms), "chain:2^9");
    first.pce_cache().wait_idle();
  }
  const std::string pce = dir.str() + "/pce/chain_512.pce";
  ASSERT_TRUE(fs::exists(pce));
  std::ofstream(pce, std::ios::trunc) << "not a pce";
  Engine again(test_config(dir.str()));
  again.start();
  // One partition: it takes full synthesis while the extraction runs (a second one could already
  // find the new PCE, which would make the count below depend on timing).
  auto r1 = again.submit(builtin_request("chain:2^9", 1, "", 0, 5));
  ASSERT_TRUE(r1.ok()) << r1.error.message;
  expect_valid(again, *again.await(r1.value->job_id, 0ms), "chain:2^9");
  again.pce_cache().wait_idle();
  EXPECT_GT(fs::file_size(pce), 1000u);  // replaced by a freshly extracted file
  auto r2 = again.submit(builtin_request("chain:2^9", 1, "", 0, 6));
  ASSERT_TRUE(r2.ok()) << r2.error.message;
  expect_valid(again, *again.await(r2.value->job_id, 0ms), "chain:2^9");
  EXPECT_NE(again.metrics_text().find("cuzk_partitions_synthesized_total{path=\"pce\"} 1"), std::string::npos)
      << again.metrics_text();
}

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
    for (const QueueInfo& q : engine.status().stage_queues) {
      EXPECT_NE(q.proof_kind, "generic") << q.stage;
      seen |= q.stage == "scheduler" && q.proof_kind == "porep_c2" && q.pending + q.in_progress == 1;
    }
    if (!seen) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(seen);
  engine.shutdown(/*drain=*/false);  // abandons the key generation
  EXPECT_EQ(engine.await(s.value->job_id, 0ms)->status, JobStatus::Cancelled);
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

}  // namespace
