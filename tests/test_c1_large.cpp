// C1 inputs of the 32 GiB and 64 GiB shapes (~37 MB of JSON each): the only sizes with Sub and
// Top Merkle proofs, 11-layer columns hashed with arity-11 Poseidon, and 10 partitions of 18
// challenges. Slow under sanitizers, so labelled slow.
#include <gtest/gtest.h>

#include <string>

#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/c1_synthetic.hpp"
#include "filecoin/porep_public_inputs.hpp"

namespace {

using namespace cuzk::filecoin;

void expect_error(const SealCommitPhase1Output& c1, const std::string& message) {
  try {
    (void)parse_c1_output(to_json(c1));
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const C1Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(C1Large, RoundTrip32GiBAndErrors) {
  const auto& rp = registered_seal_proof("StackedDrg32GiBV1_1");
  const auto c1 = make_synthetic_c1(rp, 5);
  const std::string json = to_json(c1);
  const auto parsed = parse_c1_wrapper(to_wrapper_json(c1, 1)).c1;
  EXPECT_EQ(to_json(parsed), json);
  ASSERT_EQ(parsed.vanilla_proofs.size(), 10u);
  ASSERT_EQ(parsed.vanilla_proofs[9].size(), 18u);
  const auto& vp = parsed.vanilla_proofs[9][17];
  EXPECT_EQ(vp.comm_d_proofs.base.size(), 30u);
  EXPECT_EQ(vp.comm_r_last_proof.shape, MerkleShape::kSub);
  EXPECT_EQ(vp.comm_r_last_proof.base.size(), 9u);
  EXPECT_EQ(vp.comm_r_last_proof.sub.size(), 1u);
  EXPECT_EQ(vp.replica_column_proofs.c_x.column.rows.size(), 11u);
  EXPECT_EQ(vp.comm_r_last_proof.path_index(8, 8, 0), vp.challenge());
  EXPECT_EQ(porep_public_inputs(parsed, 9).size(), 327u);  // 328 with Groth16's ONE

  const std::string p = "vanilla_proofs.StackedDrg32GiBV1";
  auto bad = c1;
  bad.vanilla_proofs[4][2].comm_r_last_proof.sub[0].hashes.pop_back();
  expect_error(bad, p + "[4][2].comm_r_last_proof.data.Sub.sub_proof.path[0].hashes: expected 7 siblings, got 6");
  bad = c1;
  bad.vanilla_proofs[4][2].replica_column_proofs.c_x.inclusion_proof.shape = MerkleShape::kSingle;
  expect_error(bad, p + "[4][2].replica_column_proofs.c_x.inclusion_proof.data: expected a Sub proof for this tree, "
                        "got Single");
  bad = c1;
  bad.vanilla_proofs.pop_back();
  expect_error(bad, p + ": expected 10 partitions for StackedDrg32GiBV1_1, got 9");
}

TEST(C1Large, RoundTrip64GiB) {
  const auto c1 = make_synthetic_c1(registered_seal_proof("StackedDrg64GiBV1_1"), 6);
  const auto parsed = parse_c1_output(to_json(c1));
  EXPECT_EQ(to_json(parsed), to_json(c1));
  const auto& vp = parsed.vanilla_proofs[0][0];
  EXPECT_EQ(vp.comm_d_proofs.base.size(), 31u);
  EXPECT_EQ(vp.comm_r_last_proof.shape, MerkleShape::kTop);
  EXPECT_EQ(vp.comm_r_last_proof.top.size(), 1u);
  EXPECT_EQ(vp.comm_r_last_proof.top[0].hashes.size(), 1u);  // binary top tree
  EXPECT_EQ(vp.comm_r_last_proof.path_index(8, 8, 2), vp.challenge());
}

}  // namespace
