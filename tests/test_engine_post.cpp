// WINDOW_POST_PARTITION and WINNING_POST requests at submit (engine/post_request.hpp): a valid
// request decodes to its circuit with a witness whose inputs are exactly those a verifier derives,
// and every malformed one is refused (InvalidArgument) naming the field, the proof and its sector.
// Proving them through the daemon is tests/post_e2e_test.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/engine.hpp"
#include "engine/request_decoder.hpp"
#include "engine_request_fixture.hpp"
#include "filecoin/post_challenges.hpp"
#include "filecoin/replica_id.hpp"
#include "post_fixture.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;
using filecoin::Bytes32;

// Valid 2 KiB proofs over random trees R (post_fixture.hpp), as a request carries them.
struct PostRequests {
  Bytes32 randomness = filecoin::test::random_fr_bytes(31);
  filecoin::DenseTree tree = filecoin::test::random_tree_r({8, 0, 0}, 64, 7);
  Bytes32 comm_c = filecoin::test::random_fr_bytes(41);

  ProofRequest window(uint32_t sectors = 2) const {
    const auto& proof = filecoin::registered_post_proof("StackedDrgWindow2KiBV1_1");
    ProofRequest r;
    r.kind = ProofKind::WindowPostPartition;
    r.registered_proof = proof.id;
    r.miner_id = 1000;
    r.randomness = test::bytes(randomness);
    for (uint32_t i = 0; i < sectors; ++i) {
      r.vanilla_proofs.push_back(test::bytes(
          filecoin::to_bincode(filecoin::build_post_sector_proof(proof, tree, comm_c, 1 + i, randomness, i))));
    }
    return r;
  }
  ProofRequest winning(uint64_t miner_id) const {
    const auto& proof = filecoin::registered_post_proof("StackedDrgWinning2KiBV1");
    ProofRequest r;
    r.kind = ProofKind::WinningPost;
    r.registered_proof = proof.id;
    r.miner_id = miner_id;
    r.randomness = test::bytes(randomness);
    r.vanilla_proofs.push_back(
        test::bytes(filecoin::to_bincode(filecoin::build_post_sector_proof(proof, tree, comm_c, 5, randomness, 0))));
    return r;
  }
};

TEST(EnginePost, AValidRequestDecodesToItsCircuitAndTheVerifiersInputs) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), true));
  const DecodeContext ctx{registry, {}};
  const PostRequests p;
  for (const bool winning : {false, true}) {
    ProofRequest r = winning ? p.winning(1000) : p.window(1);
    auto d = decode_request(r, ctx);
    ASSERT_TRUE(d.ok()) << d.error.message;
    EXPECT_EQ(d.value->def.id, winning ? "winning-post:2KiB" : "window-post:2KiB");
    EXPECT_EQ(d.value->def.source, CircuitSource::Post);
    EXPECT_TRUE(d.value->def.test_setup);
    ASSERT_EQ(d.value->payloads.size(), 1u);
    // The witness's inputs (after ONE) are what a verifier derives: the last sector repeated to
    // fill the Window partition, the one sector listed 66 times for Winning.
    const PartitionAssignment a = d.value->vanilla->assignment(0, ThreadPool::global());
    const std::vector<ff::Fr> want = d.value->vanilla->verifier_inputs(0);
    EXPECT_EQ(want.size(), winning ? 132u : 22u);
    ASSERT_EQ(a.inputs.size(), want.size() + 1);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), a.inputs.begin() + 1));
    EXPECT_TRUE(r.vanilla_proofs.empty());  // moved into the decoded request
  }
}

TEST(EnginePost, BadRequestsAreRefusedNamingTheField) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), true));
  const DecodeContext ctx{registry, {}};
  const PostRequests p;
  auto expect_invalid = [&](ProofRequest r, const std::string& needle) {
    auto d = decode_request(r, ctx);
    ASSERT_FALSE(d.ok()) << needle;
    EXPECT_EQ(d.error.code, ErrorCode::InvalidArgument) << d.error.message;
    EXPECT_NE(d.error.message.find(needle), std::string::npos) << d.error.message;
  };
  ProofRequest r = p.window();
  r.registered_proof = 99;
  expect_invalid(r, "registered_proof: ");
  r = p.window();
  r.registered_proof = 0;  // StackedDrgWinning2KiBV1
  expect_invalid(r, "is not a WindowPoSt proof");
  r = p.window();
  r.sector_size = 4096;
  expect_invalid(r, "sector_size 4096 does not match");
  r = p.window();
  r.randomness.pop_back();
  expect_invalid(r, "randomness has 31 bytes");
  r = p.window();
  r.randomness = std::string(32, '\xff');
  expect_invalid(r, "randomness: not a canonical field element");
  r = p.window();
  r.miner_id = 0;
  expect_invalid(r, "miner_id is required");
  r = p.window();
  r.vanilla_proofs.clear();
  expect_invalid(r, "no vanilla_proofs");
  r = p.window();
  r.vanilla_proof = "{}";
  expect_invalid(r, "not vanilla_proof");
  r = p.window();
  r.vanilla_proofs[1].pop_back();
  expect_invalid(r, "vanilla_proofs[1] (sector 2)");
  r = p.window();
  r.vanilla_proofs[0][140] ^= 1;  // a sibling hash of the first path
  expect_invalid(r, "vanilla_proofs[0] (sector 1): vanilla_proof.sectors[0].inclusion_proofs[0]");
  r = p.window(3);
  expect_invalid(r, "vanilla_proofs: 3 sector proofs");
  r = p.window();
  r.vanilla_proofs[1] = r.vanilla_proofs[0];
  expect_invalid(r, "vanilla_proofs[1] (sector 1): sector_id: the request has this sector twice");
  r = p.window();
  r.circuit_id = "porep:2KiB";
  expect_invalid(r, "does not match registered_proof");
  // Other randomness: the proofs are of other leaves than the challenged ones.
  r = p.window();
  r.randomness[0] ^= 1;
  expect_invalid(r, "(from the randomness and the sector id) is leaf");
  // WinningPoSt has one partition.
  r = p.winning(1000);
  r.partition_index = 1;
  expect_invalid(r, "partition_index");
  // The PoSt circuits only through their kinds.
  ProofRequest g;
  g.kind = ProofKind::Generic;
  g.circuit_id = "window-post:2KiB";
  g.partition_inputs = {"x"};
  expect_invalid(g, "is a PoSt circuit");
}

TEST(EnginePost, WithoutTestKeysTheOfficialParameterFileIsNamed) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), false));
  for (const char* id : {"window-post:2KiB", "winning-post:32GiB"}) {
    auto d = registry.find(id);
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().find("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-"), std::string::npos)
        << d.error();
    EXPECT_NE(d.error().find("srs.allow_test_keys"), std::string::npos) << d.error();
  }
  EXPECT_FALSE(registry.find("window-post:3KiB").ok());
}

// The seed's default priorities: WinningPoSt CRITICAL, WindowPoSt HIGH, the rest NORMAL; a wire
// priority 1..4 overrides them, anything else is NORMAL.
TEST(EnginePost, DefaultPrioritiesPutDeadlinesFirst) {
  EXPECT_EQ(effective_priority(ProofKind::WinningPost, 0), Priority::Critical);
  EXPECT_EQ(effective_priority(ProofKind::WindowPostPartition, 0), Priority::High);
  EXPECT_EQ(effective_priority(ProofKind::PorepSealCommit, 0), Priority::Normal);
  EXPECT_EQ(effective_priority(ProofKind::Generic, 0), Priority::Normal);
  EXPECT_EQ(effective_priority(ProofKind::WinningPost, 1), Priority::Low);
  EXPECT_EQ(effective_priority(ProofKind::PorepSealCommit, 4), Priority::Critical);
  EXPECT_EQ(effective_priority(ProofKind::WinningPost, 9), Priority::Normal);
}

// Deadline first: a CRITICAL request (a WinningPoSt's default) submitted while a batch of NORMAL
// partitions (a PoRep's) waits for the prover goes to the prover next, ahead of every partition
// still queued; the batch resumes after it. One prover worker, a lookahead large enough that the
// batch is synthesized and waiting. Built-in circuits stand in for both kinds (the 2 KiB
// WinningPoSt's test-only setup alone takes ~20 s here): what is tested is the queues' order,
// which knows priorities, not kinds.
TEST(EnginePost, ACriticalRequestOvertakesQueuedPartitions) {
  test::TempDir dir;
  Config cfg = test::engine_config(dir.str(), true);
  cfg.prover.workers = 1;
  cfg.synthesis.workers = 2;
  cfg.synthesis.lookahead = 16;
  ASSERT_TRUE(cfg.finalize().ok());
  Engine engine(cfg);
  engine.start();
  for (const char* c : {"chain:2^12", "chain:2^10"}) ASSERT_TRUE(engine.preload_srs(c).ok());

  using Clock = std::chrono::steady_clock;
  auto request = [](const char* circuit, int partitions, int wire_priority) {
    ProofRequest r;
    r.kind = ProofKind::Generic;
    r.circuit_id = circuit;
    r.wire_priority = wire_priority;
    for (int i = 0; i < partitions; ++i) r.partition_inputs.push_back("p" + std::to_string(i));
    return r;
  };
  const auto batch_at = Clock::now();
  auto b = engine.submit(request("chain:2^12", 12, 0));
  ASSERT_TRUE(b.ok()) << b.error.message;
  // Wait until several of the batch's partitions wait for the prover.
  auto waiting = [&] {
    uint32_t n = 0;
    for (const QueueInfo& q : engine.status().stage_queues) {
      if (q.stage == "prove") n += q.pending;
    }
    return n;
  };
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (waiting() < 4 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_GE(waiting(), 4u) << "the batch never queued at the prover";

  const auto critical_at = Clock::now();
  auto c = engine.submit(request("chain:2^10", 1, static_cast<int>(Priority::Critical)));
  ASSERT_TRUE(c.ok()) << c.error.message;
  const JobResult cr = *engine.await(c.value->job_id, std::chrono::seconds(60));
  const JobResult br = *engine.await(b.value->job_id, std::chrono::seconds(120));
  ASSERT_EQ(cr.status, JobStatus::Completed) << cr.error_message;
  ASSERT_EQ(br.status, JobStatus::Completed) << br.error_message;
  ASSERT_EQ(cr.partition_timings.size(), 1u);
  ASSERT_EQ(br.partition_timings.size(), 12u);

  // Times on one clock (ms since the batch's submission); the submit calls' own duration (well
  // under the 2 ms margin) is the only error. "ready" is the end of the critical partition's
  // synthesis, stamped before it reaches the prover's queue: on a loaded machine the one prover
  // worker may take a batch partition in between (CI saw one start 2.7 ms after "ready"), and
  // that partition runs before the critical one. A second cannot: it would need the critical
  // partition to reach the queue more than a whole batch proof after its synthesis ended.
  const double offset = std::chrono::duration<double, std::milli>(critical_at - batch_at).count();
  const PartitionTiming& ct = cr.partition_timings[0];
  const double ready = offset + ct.synthesis_start_ms + ct.synthesis_ms;  // queued for the prover
  const double started = offset + ct.prove_start_ms;
  size_t between = 0, after = 0;
  std::string starts;
  for (const PartitionTiming& t : br.partition_timings) {
    if (t.prove_start_ms > ready + 2 && t.prove_start_ms < started - 2) ++between;
    if (t.prove_start_ms > started) ++after;
    starts += " " + std::to_string(t.prove_start_ms);
  }
  // At most one batch partition started between the critical one's synthesis and its start.
  EXPECT_LE(between, 1u) << "the critical partition was ready at " << ready << " ms and started at " << started
                         << " ms; the batch's partitions started at (ms):" << starts;
  // It overtook the queue: partitions that were waiting before it ran after it.
  EXPECT_GE(after, 3u) << "the critical partition started at " << started << " ms; the batch's at (ms):" << starts;
}

}  // namespace
