// The FallbackPoSt circuit (issue #20 item 1): its counts against those the reference asserts
// (storage-proofs-post tests/fallback_circuit.rs, filecoin-proofs constants.rs) and the model of
// filecoin-circuits.md 7.1; a witness from valid vanilla proofs satisfies it with exactly the
// public inputs a verifier computes (from sealed and from synthetic vanilla proofs), a tampered one
// does not; the parameter file names.
#include <gtest/gtest.h>

#include "filecoin/post_challenges.hpp"
#include "filecoin/post_circuit_info.hpp"
#include "filecoin/post_public_inputs.hpp"
#include "filecoin/post_synthetic.hpp"
#include "post_fixture.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/test_cs.hpp"

namespace cuzk::filecoin {
namespace {

struct Count {
  uint64_t constraints, inputs;
};

Count count(const PostCircuitShape& shape) {
  const PostCircuitInfo info = post_circuit_info(shape);
  EXPECT_EQ(info.inputs, shape.num_inputs()) << shape.describe();
  EXPECT_EQ(info.pce_rows, info.constraints + info.inputs);
  return {info.constraints, info.inputs};
}

// fallback_circuit.rs: 64 leaves per base tree, 5 challenges per sector.
TEST(PostCircuit, ReferenceTestCounts) {
  struct Case {
    gadgets::MerkleShape tree;
    uint32_t sectors;
    Count want;
  };
  const Case cases[] = {
      {{8, 0, 0}, 3, {16'869, 19}},
      {{8, 4, 0}, 3, {22'674, 19}},
      {{8, 4, 2}, 3, {27'384, 19}},
      {{8, 0, 0}, 2, {11'246, 13}},
  };
  for (const Case& c : cases) {
    const Count n = count(PostCircuitShape::reference_test(c.tree, c.sectors, 5));
    EXPECT_EQ(n.constraints, c.want.constraints) << c.tree.base_arity << "-" << c.tree.sub_arity;
    EXPECT_EQ(n.inputs, c.want.inputs);
  }
  // metric_fallback_post_circuit_poseidon: 32 GiB, tree 8-0-0, 5 sectors x 10 challenges.
  const PostCircuitShape bench{uint64_t{1} << 30, 5, 10, {8, 0, 0}};
  EXPECT_EQ(count(bench).constraints, 266'665u);
}

// Model values (filecoin-circuits.md 7.1): 313 + challenges x PoR per sector.
TEST(PostCircuit, ProductionCountsOfSmallCircuits) {
  struct Case {
    const char* proof;
    Count want;
  };
  const Case cases[] = {
      {"StackedDrgWindow2KiBV1_1", {21'866, 23}},   {"StackedDrgWindow8MiBV1_1", {64'266, 23}},
      {"StackedDrgWindow512MiBV1", {85'466, 23}},   {"StackedDrgWinning2KiBV1", {90'750, 133}},
      {"StackedDrgWinning8MiBV1", {230'670, 133}},  {"StackedDrgWinning512MiBV1", {300'630, 133}},
      {"StackedDrgWinning32GiBV1", {370'590, 133}}, {"StackedDrgWinning64GiBV1", {391'314, 133}},
  };
  for (const Case& c : cases) {
    const Count n = count(PostCircuitShape::of(registered_post_proof(c.proof)));
    EXPECT_EQ(n.constraints, c.want.constraints) << c.proof;
    EXPECT_EQ(n.inputs, c.want.inputs) << c.proof;
  }
}

// post_circuit_info counts sector chunks apart and adds them up: the same as counting the whole.
TEST(PostCircuit, ChunkedCountEqualsSequentialCount) {
  const PostCircuitShape shape = PostCircuitShape::reference_test({8, 4, 0}, 13, 2);
  r1cs::CountingCS cs;
  post_circuit(cs, shape, PostCircuitWitness::blank(shape));
  const uint64_t constraints = cs.num_constraints();
  cs.finalize();
  const PostCircuitInfo info = post_circuit_info(shape);
  EXPECT_EQ(info.constraints, constraints);
  EXPECT_EQ(info.inputs, cs.counts().inputs);
  EXPECT_EQ(info.aux, cs.counts().aux);
  EXPECT_EQ(info.pce_rows, cs.counts().constraints);
  EXPECT_EQ(info.nnz_a, cs.counts().nnz_a);
  EXPECT_EQ(info.nnz_b, cs.counts().nnz_b);
  EXPECT_EQ(info.nnz_c, cs.counts().nnz_c);
}

TEST(PostCircuit, RecordingAndCountingAgree) {
  const PostCircuitShape shape = PostCircuitShape::reference_test({8, 4, 2}, 2, 2);
  r1cs::RecordingCS rec;
  post_circuit(rec, shape, PostCircuitWitness::blank(shape));
  rec.finalize();
  r1cs::CountingCS cnt;
  post_circuit(cnt, shape, PostCircuitWitness::blank(shape));
  cnt.finalize();
  const r1cs::CompactR1cs r = std::move(rec).compact();
  EXPECT_EQ(cnt.counts().constraints, r.num_constraints);
  EXPECT_EQ(cnt.counts().inputs, r.num_inputs);
  EXPECT_EQ(cnt.counts().aux, r.num_aux);
  EXPECT_EQ(cnt.counts().nnz_a, r.a.col.size());
  EXPECT_EQ(cnt.counts().nnz_b, r.b.col.size());
  EXPECT_EQ(cnt.counts().nnz_c, r.c.col.size());
}

// Synthesizes the witness with TestCS; returns it for inspection.
r1cs::TestCS synthesize(const PostCircuitShape& shape, const PostCircuitWitness& w) {
  r1cs::TestCS cs;
  post_circuit(cs, shape, w);
  return cs;
}

void expect_inputs(const r1cs::TestCS& cs, const std::vector<Fr>& want) {
  ASSERT_EQ(cs.num_inputs(), want.size() + 1);
  EXPECT_EQ(cs.inputs()[0], Fr::one());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], want[i]) << "input " << i + 1;
}

// WindowPoSt 2 KiB, one sector in a partition of two (the last sector repeated), V1_1.
TEST(PostCircuit, WindowWitnessSatisfiesWithTheVerifiersInputs) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow2KiBV1_1");
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  const Bytes32 randomness = test::random_fr_bytes(3);
  const DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 11);
  const std::vector<FallbackPostSectorProof> proofs{
      build_post_sector_proof(proof, tree, test::random_fr_bytes(4), 42, randomness, 0)};
  const PostCircuitWitness w = post_circuit_witness(shape, proofs);
  ASSERT_EQ(w.sectors.size(), 2u);
  r1cs::TestCS cs = synthesize(shape, w);
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  EXPECT_EQ(cs.num_constraints(), 21'866u);
  expect_inputs(cs, post_public_inputs(proof, randomness, post_public_sectors(proofs), 0));

  // A leaf changed, or comm_c changed: unsatisfied.
  PostCircuitWitness bad = w;
  bad.sectors[1].leaves[7] = *bad.sectors[1].leaves[7] + Fr::one();
  EXPECT_FALSE(synthesize(shape, bad).is_satisfied());
  bad = w;
  bad.sectors[0].comm_c = *bad.sectors[0].comm_c + Fr::one();
  EXPECT_FALSE(synthesize(shape, bad).is_satisfied());
  // Other randomness: the circuit is satisfied, but not with the verifier's inputs.
  const std::vector<Fr> other = post_public_inputs(proof, test::random_fr_bytes(5), post_public_sectors(proofs), 0);
  EXPECT_NE(std::vector<Fr>(cs.inputs().begin() + 1, cs.inputs().end()), other);
}

// The reference test's shape 8-4-2 with 3 sectors of 5 challenges, V1 indexing in partition 1.
TEST(PostCircuit, ReferenceShapeWitnessSatisfies) {
  const PostCircuitShape shape = PostCircuitShape::reference_test({8, 4, 2}, 3, 5);
  const Bytes32 randomness = test::random_fr_bytes(6);
  std::vector<FallbackPostSectorProof> proofs;
  for (uint64_t i = 0; i < 3; ++i) {
    const DenseTree tree = test::random_tree_r(shape.tree, shape.nodes, 20 + i);
    const std::vector<uint64_t> challenges =
        post_leaf_challenges(ApiVersion::V1_0_0, randomness, 100 + i, 3 + i, shape.challenges, shape.nodes);
    proofs.push_back(build_post_sector_proof(tree, test::random_fr_bytes(30 + i), 100 + i, challenges));
  }
  const r1cs::TestCS cs = synthesize(shape, post_circuit_witness(shape, proofs));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  EXPECT_EQ(cs.num_constraints(), 27'384u);
  expect_inputs(cs, post_public_inputs(shape, ApiVersion::V1_0_0, randomness, post_public_sectors(proofs), 1));
}

// WinningPoSt 2 KiB: the one sector's 66 inclusion proofs become the 66 circuit sectors.
TEST(PostCircuit, WinningWitnessSatisfiesWithTheVerifiersInputs) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWinning2KiBV1");
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  const Bytes32 randomness = test::random_fr_bytes(8);
  const DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 12);
  const std::vector<FallbackPostSectorProof> proofs{
      build_post_sector_proof(proof, tree, test::random_fr_bytes(9), 7, randomness, 0)};
  const r1cs::TestCS cs = synthesize(shape, post_circuit_witness(shape, proofs));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  expect_inputs(cs, post_public_inputs(proof, randomness, post_public_sectors(proofs), 0));
}

// Synthetic vanilla proofs (post_synthetic.hpp) give witnesses as valid as sealed ones: a full
// 2 KiB Window partition satisfies the circuit with the verifier's inputs (WinningPoSt is proved
// from synthetic proofs in post.e2e_2kib).
TEST(PostCircuit, SyntheticWitnessSatisfiesWithTheVerifiersInputs) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow2KiBV1_1");
  PostVanillaRequest req;
  req.proof = &proof;
  req.randomness = synthetic_post_randomness(5);
  req.sector_ids = {3, 4};
  const std::vector<FallbackPostSectorProof> proofs = synthetic_post_vanilla(req);
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  const r1cs::TestCS cs = synthesize(shape, post_circuit_witness(shape, proofs));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  expect_inputs(cs, post_public_inputs(proof, req.randomness, post_public_sectors(proofs), 0));
}

TEST(PostCircuit, WitnessesOfTheWrongShapeAreRefused) {
  const PostCircuitShape shape = PostCircuitShape::reference_test({8, 0, 0}, 2, 5);
  const DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 13);
  const std::vector<uint64_t> five{1, 2, 3, 4, 5};
  const FallbackPostSectorProof p = build_post_sector_proof(tree, test::random_fr_bytes(1), 1, five);
  const std::vector<FallbackPostSectorProof> three{p, p, p};
  EXPECT_THROW(post_circuit_witness(shape, three), std::invalid_argument);
  const std::vector<uint64_t> four{1, 2, 3, 4};
  const FallbackPostSectorProof short_proof = build_post_sector_proof(tree, test::random_fr_bytes(1), 1, four);
  EXPECT_THROW(post_circuit_witness(shape, std::span(&short_proof, 1)), std::invalid_argument);
  PostCircuitWitness w = PostCircuitWitness::blank(shape);
  w.sectors[1].paths[2].base.pop_back();
  r1cs::CountingCS cs;
  EXPECT_THROW(post_circuit(cs, shape, w), std::invalid_argument);
}

// storage-proofs-core parameter_cache.rs names; the hashes' prefixes of filecoin-circuits.md 5.4.
TEST(PostCircuit, ParameterFileNames) {
  const char* winning[] = {"3ea05428", "50c7368d", "7d739b8c", "559e581f", "b6209862"};
  const char* window[] = {"0170db1f", "5294475d", "0cfb4f17", "0377ded6", "2627e400"};
  for (size_t s = 0; s < 5; ++s) {
    const std::string stem_winning = post_parameter_file_stem(registered_post_proof(s));
    const std::string stem_v1 = post_parameter_file_stem(registered_post_proof(5 + s));
    const std::string stem_v11 = post_parameter_file_stem(registered_post_proof(10 + s));
    EXPECT_NE(stem_winning.find(std::string("-") + winning[s]), std::string::npos) << stem_winning;
    EXPECT_NE(stem_v1.find(std::string("-") + window[s]), std::string::npos) << stem_v1;
    EXPECT_EQ(stem_v1, stem_v11);  // one circuit for both indexings
  }
  EXPECT_EQ(post_parameter_file_stem(registered_post_proof("StackedDrgWindow32GiBV1_1"))
                .rfind("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded6", 0),
            0u);
}

// Asserted by filecoin-proofs constants.rs (WINDOW_POST_SECTOR_COUNT comments); ~125 million
// constraints each, so these two are labelled slow (ctest post.circuit_counts_32_64gib).
TEST(PostCircuitLarge, Window32GiB) {
  const Count n = count(PostCircuitShape::of(registered_post_proof("StackedDrgWindow32GiBV1_1")));
  EXPECT_EQ(n.constraints, 125'279'217u);
  EXPECT_EQ(n.inputs, 25'840u);
}

TEST(PostCircuitLarge, Window64GiB) {
  const Count n = count(PostCircuitShape::of(registered_post_proof("StackedDrgWindow64GiBV1_1")));
  EXPECT_EQ(n.constraints, 129'887'900u);
  EXPECT_EQ(n.inputs, 25'301u);
}

}  // namespace
}  // namespace cuzk::filecoin
