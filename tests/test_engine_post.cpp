// WINDOW_POST_PARTITION and WINNING_POST requests at submit (engine/post_request.hpp): a valid
// request decodes to its circuit with a witness whose inputs are exactly those a verifier derives,
// and every malformed one is refused (InvalidArgument) naming the field, the proof and its sector.
// Proving them through the daemon is tests/post_e2e_test.sh.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/request_decoder.hpp"
#include "filecoin/post_challenges.hpp"
#include "filecoin/replica_id.hpp"
#include "post_fixture.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;
using filecoin::Bytes32;

Config config(const std::string& dir, bool allow_test_keys) {
  Config c;
  c.daemon.data_dir = dir;
  c.srs.allow_test_keys = allow_test_keys;
  EXPECT_TRUE(c.finalize().ok());
  return c;
}

std::string bytes(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}

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
    r.randomness = bytes({randomness.begin(), randomness.end()});
    for (uint32_t i = 0; i < sectors; ++i) {
      r.vanilla_proofs.push_back(
          bytes(filecoin::to_bincode(filecoin::build_post_sector_proof(proof, tree, comm_c, 1 + i, randomness, i))));
    }
    return r;
  }
  ProofRequest winning(uint64_t miner_id) const {
    const auto& proof = filecoin::registered_post_proof("StackedDrgWinning2KiBV1");
    ProofRequest r;
    r.kind = ProofKind::WinningPost;
    r.registered_proof = proof.id;
    r.miner_id = miner_id;
    r.randomness = bytes({randomness.begin(), randomness.end()});
    r.vanilla_proofs.push_back(
        bytes(filecoin::to_bincode(filecoin::build_post_sector_proof(proof, tree, comm_c, 5, randomness, 0))));
    return r;
  }
};

TEST(EnginePost, AValidRequestDecodesToItsCircuitAndTheVerifiersInputs) {
  test::TempDir dir;
  const CircuitRegistry registry(config(dir.str(), true));
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
    const PartitionAssignment a = d.value->vanilla->assignment(0);
    const std::vector<ff::Fr> want = d.value->vanilla->verifier_inputs(0);
    EXPECT_EQ(want.size(), winning ? 132u : 22u);
    ASSERT_EQ(a.inputs.size(), want.size() + 1);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), a.inputs.begin() + 1));
    EXPECT_TRUE(r.vanilla_proofs.empty());  // moved into the decoded request
  }
}

TEST(EnginePost, BadRequestsAreRefusedNamingTheField) {
  test::TempDir dir;
  const CircuitRegistry registry(config(dir.str(), true));
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
  const CircuitRegistry registry(config(dir.str(), false));
  for (const char* id : {"window-post:2KiB", "winning-post:32GiB"}) {
    auto d = registry.find(id);
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().find("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-"), std::string::npos)
        << d.error();
    EXPECT_NE(d.error().find("srs.allow_test_keys"), std::string::npos) << d.error();
  }
  EXPECT_FALSE(registry.find("window-post:3KiB").ok());
}

}  // namespace
