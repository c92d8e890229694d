// A request_id joins an earlier job only for an equal request (engine/request_ids.hpp): the id
// shapes Curio sends (curio lib/ffi/cuzk_funcs.go) reuse ids across different content, and a proof
// of other inputs must never answer a request. Every proof here is checked against the inputs of
// the request it answers.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "engine/request_digest.hpp"
#include "engine/request_ids.hpp"
#include "engine_test_support.hpp"
#include "gadgets/sha256_native.hpp"

namespace cuzk::engine_test {
namespace {

// The public inputs a chain:N partition's input gives (the circuit's own derivation), to check that
// a job answered the request it was given and not another one under the same id.
std::string publics_of(Engine& engine, const std::string& circuit, const std::string& input) {
  ProofRequest r = builtin_request(circuit, 1);
  r.partition_inputs = {input};
  auto s = engine.submit(r);
  EXPECT_TRUE(s.ok()) << s.error.message;
  const JobResult j = *engine.await(s.value->job_id, 60s);
  EXPECT_EQ(j.status, JobStatus::Completed) << j.error_message;
  return j.public_inputs.empty() ? std::string() : j.public_inputs[0];
}

TEST(RequestDigest, EveryFieldThatDeterminesTheProofChangesIt) {
  ProofRequest base;
  base.kind = ProofKind::WindowPostPartition;
  base.vanilla_proofs = {"ab", "c"};
  const RequestDigest d0 = request_digest(base);
  ProofRequest same = base;
  same.request_id = "wdpost-1000-0-[1 2 3 4 5 6 7 8]";
  same.wire_priority = 4;
  EXPECT_EQ(request_digest(same), d0) << "the name and the urgency are not the request";
  const std::vector<std::function<void(ProofRequest&)>> changes = {
      [](ProofRequest& r) { r.kind = ProofKind::WinningPost; },
      [](ProofRequest& r) { r.circuit_id = "x"; },
      [](ProofRequest& r) { r.sector_size = 2048; },
      [](ProofRequest& r) { r.registered_proof = 1; },
      [](ProofRequest& r) { r.sector_number = 1; },
      [](ProofRequest& r) { r.miner_id = 1000; },
      [](ProofRequest& r) { r.vanilla_proof = "{}"; },
      [](ProofRequest& r) {
        r.vanilla_proofs = {"a", "bc"};
      },  // the same bytes, split otherwise
      [](ProofRequest& r) { r.vanilla_proofs = {"abc"}; },
      [](ProofRequest& r) { r.vanilla_proofs.push_back(""); },
      [](ProofRequest& r) { r.randomness = std::string(32, '\1'); },
      [](ProofRequest& r) { r.partition_index = 1; },
      [](ProofRequest& r) { r.comm_r_old = "r"; },
      [](ProofRequest& r) { r.comm_r_new = "r"; },
      [](ProofRequest& r) { r.comm_d_new = "r"; },
      [](ProofRequest& r) { r.witnesses = {"w"}; },
      [](ProofRequest& r) { r.partition_inputs = {"i"}; },
  };
  std::set<RequestDigest> seen = {d0};
  for (size_t i = 0; i < changes.size(); ++i) {
    ProofRequest r = base;
    changes[i](r);
    EXPECT_TRUE(seen.insert(request_digest(r)).second) << "change " << i << " left the digest as another request's";
  }
}

// The streaming hash equals SHA-256 of the same encoding hashed in one piece (gadgets::sha256_native:
// FIPS 180-4, checked against its test vectors in test_sha256_native), across block boundaries.
TEST(RequestDigest, IsTheSha256OfTheTaggedFields) {
  auto field = [](std::string& out, uint8_t tag, const std::string& bytes) {
    out += static_cast<char>(tag);
    for (int i = 0; i < 8; ++i) out += static_cast<char>((bytes.size() >> (8 * i)) & 0xff);
    out += bytes;
  };
  auto u64 = [](uint64_t v) {
    std::string le;
    for (int i = 0; i < 8; ++i) le += static_cast<char>((v >> (8 * i)) & 0xff);
    return le;
  };
  for (size_t len : {0u, 1u, 40u, 55u, 63u, 64u, 65u, 1000u, 100000u}) {
    ProofRequest r;
    r.kind = ProofKind::PorepSealCommit;
    r.vanilla_proof.resize(len);
    for (size_t i = 0; i < len; ++i) r.vanilla_proof[i] = static_cast<char>(i * 7 + 3);
    r.sector_number = 5;
    std::string enc;
    field(enc, 1, u64(1));
    field(enc, 2, "");
    field(enc, 3, u64(0));
    field(enc, 4, u64(0));
    field(enc, 5, u64(5));
    field(enc, 6, u64(0));
    field(enc, 7, r.vanilla_proof);
    field(enc, 8, u64(0));
    field(enc, 9, "");
    field(enc, 10, u64(0));
    field(enc, 11, "");
    field(enc, 12, "");
    field(enc, 13, "");
    field(enc, 14, u64(0));
    field(enc, 15, u64(0));
    const auto expected =
        gadgets::sha256_native(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(enc.data()), enc.size()));
    EXPECT_EQ(request_digest(r), expected) << len;
  }
}

TEST(RequestIds, DecidesByContentAndState) {
  RequestIds ids;
  const RequestDigest a{1}, b{2};
  std::map<std::string, bool> joinable;
  auto decide = [&](const std::string& id, const RequestDigest& d) {
    return ids.decide(id, d, [&](const std::string& job) { return joinable.at(job); });
  };
  EXPECT_EQ(decide("", a).what, RequestIds::Decision::Fresh);
  EXPECT_EQ(decide("x", a).what, RequestIds::Decision::Fresh);
  ids.add("x", "x", a);
  joinable["x"] = true;
  EXPECT_EQ(decide("x", a).what, RequestIds::Decision::Join);
  EXPECT_EQ(decide("x", a).job_id, "x");
  EXPECT_EQ(decide("x", b).what, RequestIds::Decision::NewContent);
  ids.add("x", "x#2", b);
  joinable["x#2"] = true;
  EXPECT_EQ(decide("x", a).job_id, "x") << "the equal request's job, not the latest";
  EXPECT_EQ(decide("x", b).job_id, "x#2");
  joinable["x"] = false;  // failed or cancelled
  const auto rerun = decide("x", a);
  EXPECT_EQ(rerun.what, RequestIds::Decision::Rerun);
  EXPECT_EQ(rerun.job_id, "x#2");  // the id's latest job
  EXPECT_EQ(ids.jobs_of("x"), 2u);
  ids.remove("x", "x");
  ids.remove("x", "x#2");
  EXPECT_EQ(ids.jobs_of("x"), 0u);
  EXPECT_EQ(decide("x", a).what, RequestIds::Decision::Fresh);
  std::set<std::string> taken = {"y", "y#2"};
  EXPECT_EQ(RequestIds::job_id_for("y", [&](const std::string& s) { return taken.count(s) > 0; }), "y#3");
  EXPECT_EQ(RequestIds::job_id_for("z", [&](const std::string& s) { return taken.count(s) > 0; }), "z");
}

// The same request twice (Curio's retry after its call timed out) joins the one job; another
// request under the id (every partition of a WindowPoSt deadline shares one) gets its own job and
// its own proof, whatever its circuit or partition count.
TEST(EngineRequestIds, OnlyAnEqualRequestJoinsAJob) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  const std::string id = "wdpost-1000-0-[10 11 12 13 14 15 16 17]";
  auto a = engine.submit(builtin_request("chain:2^9", 1, id, 0, 1));
  auto a_again = engine.submit(builtin_request("chain:2^9", 1, id, 0, 1));
  auto b = engine.submit(builtin_request("chain:2^9", 1, id, 0, 2));
  auto c = engine.submit(builtin_request("chain:2^9", 2, id, 0, 1));   // another partition count
  auto d = engine.submit(builtin_request("chain:2^10", 1, id, 0, 1));  // another circuit
  for (auto* s : {&a, &a_again, &b, &c, &d}) ASSERT_TRUE(s->ok()) << s->error.message;
  EXPECT_EQ(a.value->job_id, id);
  EXPECT_FALSE(a.value->existing);
  EXPECT_EQ(a_again.value->job_id, id);
  EXPECT_TRUE(a_again.value->existing);
  EXPECT_EQ(b.value->job_id, id + "#2");
  EXPECT_FALSE(b.value->existing);
  EXPECT_EQ(c.value->job_id, id + "#3");
  EXPECT_EQ(d.value->job_id, id + "#4");
  const JobResult ra = *engine.await(a.value->job_id, 60s), rb = *engine.await(b.value->job_id, 60s);
  expect_valid(engine, ra, "chain:2^9");
  expect_valid(engine, rb, "chain:2^9");
  expect_valid(engine, *engine.await(c.value->job_id, 60s), "chain:2^9");
  expect_valid(engine, *engine.await(d.value->job_id, 60s), "chain:2^10");
  // Each proof is of its own request's inputs.
  EXPECT_EQ(ra.public_inputs[0], publics_of(engine, "chain:2^9", "input-1-0"));
  EXPECT_EQ(rb.public_inputs[0], publics_of(engine, "chain:2^9", "input-2-0"));
  EXPECT_NE(ra.public_inputs[0], rb.public_inputs[0]);
  // After completion: the equal request is answered from the finished job, another gets a new one.
  auto a3 = engine.submit(builtin_request("chain:2^9", 1, id, 0, 1));
  ASSERT_TRUE(a3.ok());
  EXPECT_EQ(a3.value->job_id, id);
  EXPECT_TRUE(a3.value->existing);
  auto e = engine.submit(builtin_request("chain:2^9", 1, id, 0, 3));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value->job_id, id + "#5");
  expect_valid(engine, *engine.await(e.value->job_id, 60s), "chain:2^9");
  EXPECT_EQ(metric(engine, "cuzk_request_id_reuse_total{outcome=\"joined\"}"), 2);
  EXPECT_EQ(metric(engine, "cuzk_request_id_reuse_total{outcome=\"new_content\"}"), 4);
  EXPECT_EQ(metric(engine, "cuzk_request_id_reuse_total{outcome=\"rerun\"}"), 0);
}

// Two different requests under one id at the same time (two partitions of a WindowPoSt deadline
// proven concurrently), and two equal ones (a retry racing the first call): the different ones
// get a job each, the equal ones one job between them.
TEST(EngineRequestIds, ConcurrentSubmissionsUnderOneId) {
  TempDir dir;
  Engine engine(test_config(dir.str(), 2));
  engine.start();
  ASSERT_TRUE(engine.preload_srs("chain:2^9").ok());
  const std::string id = "wdpost-1000-0-[1 2 3 4 5 6 7 8]";
  std::vector<std::future<Outcome<Submitted>>> calls;
  for (uint64_t salt : {7, 8, 7, 8}) {
    calls.push_back(std::async(std::launch::async,
                               [&, salt] { return engine.submit(builtin_request("chain:2^9", 1, id, 0, salt)); }));
  }
  std::map<std::string, std::set<std::string>> jobs_by_salt;
  const uint64_t salts[] = {7, 8, 7, 8};
  for (size_t i = 0; i < calls.size(); ++i) {
    auto s = calls[i].get();
    ASSERT_TRUE(s.ok()) << s.error.message;
    jobs_by_salt[std::to_string(salts[i])].insert(s.value->job_id);
  }
  ASSERT_EQ(jobs_by_salt["7"].size(), 1u);
  ASSERT_EQ(jobs_by_salt["8"].size(), 1u);
  const std::string j7 = *jobs_by_salt["7"].begin(), j8 = *jobs_by_salt["8"].begin();
  EXPECT_NE(j7, j8);
  const JobResult r7 = *engine.await(j7, 60s), r8 = *engine.await(j8, 60s);
  expect_valid(engine, r7, "chain:2^9");
  expect_valid(engine, r8, "chain:2^9");
  EXPECT_EQ(r7.public_inputs[0], publics_of(engine, "chain:2^9", "input-7-0"));
  EXPECT_EQ(r8.public_inputs[0], publics_of(engine, "chain:2^9", "input-8-0"));
  EXPECT_EQ(engine.status().completed, 4u);  // two jobs, and the two publics_of checks
}

// A retry after a cancel runs the request again instead of replaying the cancellation.
TEST(EngineRequestIds, ARetryAfterACancelIsANewJob) {
  TempDir dir;
  Engine engine(test_config(dir.str()));
  engine.start();
  const std::string id = "porep-1000-7";
  auto a = engine.submit(builtin_request("chain:2^12", 4, id, 0, 1));
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(engine.cancel(a.value->job_id).cancelled);
  EXPECT_EQ(engine.await(a.value->job_id, 60s)->status, JobStatus::Cancelled);
  auto b = engine.submit(builtin_request("chain:2^12", 4, id, 0, 1));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value->job_id, id + "#2");
  EXPECT_FALSE(b.value->existing);
  expect_valid(engine, *engine.await(b.value->job_id, 60s), "chain:2^12");
  EXPECT_EQ(engine.await(a.value->job_id, 0ms)->status, JobStatus::Cancelled) << "the old job stays as it ended";
  EXPECT_EQ(metric(engine, "cuzk_request_id_reuse_total{outcome=\"rerun\"}"), 1);
  // Once the finished job is gone (retention), the id is free again.
}

// A retry after a failure (here the device failed every try) proves again once the cause is gone.
TEST(EngineRequestIds, ARetryAfterAFailureIsANewJob) {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Config cfg = test_config(dir.str());
  cfg.gpus.backend = "gpu";  // no CPU to fall back to: the job fails while the devices do
  Engine engine(cfg, fake_devices({0, 1}, devs));
  devs[0].fail_calls = -1;
  devs[1].fail_calls = -1;
  engine.start();
  const std::string id = "snap-1000-9";
  auto a = engine.submit(builtin_request("chain:2^9", 1, id, 0, 1));
  ASSERT_TRUE(a.ok());
  const JobResult failed = *engine.await(a.value->job_id, 60s);
  ASSERT_EQ(failed.status, JobStatus::Failed);
  devs[0].fail_calls = 0;
  devs[1].fail_calls = 0;
  auto b = engine.submit(builtin_request("chain:2^9", 1, id, 0, 1));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value->job_id, id + "#2");
  expect_valid(engine, *engine.await(b.value->job_id, 60s), "chain:2^9");
  EXPECT_EQ(engine.await(a.value->job_id, 0ms)->status, JobStatus::Failed);
  EXPECT_EQ(metric(engine, "cuzk_request_id_reuse_total{outcome=\"rerun\"}"), 1);
}

// Finished jobs leave the index with the job table (completed_retention): the id then names a
// fresh job again.
TEST(EngineRequestIds, ForgottenJobsFreeTheirId) {
  TempDir dir;
  Config cfg = test_config(dir.str());
  cfg.scheduler.completed_retention_s = 0;
  Engine engine(cfg);
  engine.start();
  auto a = engine.submit(builtin_request("chain:2^9", 1, "id", 0, 1));
  ASSERT_TRUE(a.ok());
  expect_valid(engine, *engine.await("id", 60s), "chain:2^9");
  auto b = engine.submit(builtin_request("chain:2^9", 1, "id", 0, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value->job_id, "id");
  EXPECT_FALSE(b.value->existing);
  expect_valid(engine, *engine.await("id", 60s), "chain:2^9");
}

}  // namespace
}  // namespace cuzk::engine_test
