// WindowPoSt at production size (issue #20 item 5): the native witness (post_witness.hpp and the
// Poseidon / PoR level traces under it) equals what the circuit allocates under WitnessCS, value
// for value, and the PCE recorded from one replicated sector is byte-identical to the full
// recording. Shapes: 2 KiB Window / Winning, the reference test's 8-4-2 tree, arities 2/4/8/16,
// and a few sectors of the 32 GiB circuit.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "filecoin/post_challenges.hpp"
#include "filecoin/post_synthesis.hpp"
#include "filecoin/post_synthetic.hpp"
#include "gadgets/por.hpp"
#include "gadgets/por_witness.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/poseidon_native.hpp"
#include "gadgets/poseidon_witness.hpp"
#include "gadgets/poseidon_x8.hpp"
#include "pce/build.hpp"
#include "pce/pce_file.hpp"
#include "post_fixture.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/witness_cs.hpp"
#include "test_helpers.hpp"

namespace cuzk::filecoin {
namespace {

Fr value_of(uint64_t seed) {
  return to_fr(test::random_fr_bytes(seed));
}

TEST(PoseidonWitness, EqualsTheCircuitsValuesAndTheNativeHash) {
  for (size_t arity : {2, 4, 8, 11, 16}) {
    const gadgets::PoseidonConstants& c = gadgets::poseidon_constants(arity);
    std::vector<Fr> pre;
    for (size_t i = 0; i < arity; ++i) pre.push_back(value_of(100 * arity + i));
    r1cs::WitnessCS cs;
    std::vector<gadgets::AllocatedNum> nums;
    for (const Fr& v : pre) nums.push_back(gadgets::AllocatedNum::alloc(cs, v));
    const gadgets::AllocatedNum h = gadgets::poseidon_hash_circuit(cs, arity, nums);
    std::vector<Fr> out(gadgets::poseidon_witness_len(c));
    const Fr native = gadgets::poseidon_witness(c, pre, out);
    const std::vector<Fr> want(cs.aux().begin() + static_cast<ptrdiff_t>(arity), cs.aux().end());
    EXPECT_EQ(out, want) << "arity " << arity;
    EXPECT_EQ(native, *h.value());
    EXPECT_EQ(native, gadgets::poseidon_hash(arity, pre));  // the textbook-independent native hash
  }
  // filecoin-circuits.md 2.6: 311 / 377 / 505 constraints (one aux each) for arity 2 / 4 / 8.
  EXPECT_EQ(gadgets::poseidon_witness_len(gadgets::poseidon_constants(2)), 311u);
  EXPECT_EQ(gadgets::poseidon_witness_len(gadgets::poseidon_constants(4)), 377u);
  EXPECT_EQ(gadgets::poseidon_witness_len(gadgets::poseidon_constants(8)), 505u);
  std::vector<Fr> out(10);
  EXPECT_THROW(gadgets::poseidon_witness(gadgets::poseidon_constants(2), std::vector<Fr>(2), out),
               std::invalid_argument);
}

// Eight traces at once (AVX-512 IFMA lanes) equal the one-preimage trace lane for lane: arities 2,
// 4, 8 and 11, 1..8 lanes, the MerkleTree tag and SnapDeals' Custom(1); and a PoR level of eight
// paths with different indices equals eight one-path levels (arities 2, 4, 8 and 16).
TEST(PoseidonWitness, EightLanesEqualOneAtATime) {
  for (const gadgets::PoseidonHashType type :
       {gadgets::PoseidonHashType::merkle_tree(), gadgets::PoseidonHashType::custom(1)}) {
    for (size_t arity : {2, 4, 8, 11}) {
      const gadgets::PoseidonConstants& c = gadgets::poseidon_constants(arity);
      const size_t len = gadgets::poseidon_witness_len(c);
      for (size_t lanes : {1, 3, 8}) {
        std::vector<Fr> pre;
        for (size_t i = 0; i < lanes * arity; ++i) pre.push_back(i % 5 == 4 ? Fr::zero() - Fr::one() : value_of(i));
        std::vector<std::vector<Fr>> out(lanes, std::vector<Fr>(len));
        std::vector<Fr*> outs;
        for (auto& o : out) outs.push_back(o.data());
        std::vector<Fr> hashes(lanes);
        if (!gadgets::poseidon_witness_x8(c, pre, outs, hashes, type)) GTEST_SKIP() << "no AVX-512 IFMA";
        for (size_t b = 0; b < lanes; ++b) {
          std::vector<Fr> want(len);
          const Fr h = gadgets::poseidon_witness(c, std::span<const Fr>(pre).subspan(b * arity, arity), want, type);
          EXPECT_EQ(out[b], want) << "arity " << arity << " lane " << b << " of " << lanes;
          EXPECT_EQ(hashes[b], h);
        }
      }
    }
  }
  for (size_t arity : {2, 4, 8, 16}) {
    const size_t len = gadgets::poseidon_por_level_witness_len(arity);
    std::vector<std::vector<Fr>> siblings(8), out(8, std::vector<Fr>(len));
    std::vector<gadgets::PorLevelLane> lanes;
    for (size_t b = 0; b < 8; ++b) {
      for (size_t j = 0; j + 1 < arity; ++j) siblings[b].push_back(value_of(500 * arity + 10 * b + j));
      lanes.push_back({value_of(90 + b), siblings[b], (b * 3) % arity, out[b]});
    }
    std::vector<Fr> next(8);
    gadgets::poseidon_por_level_witness_x8(arity, lanes, next);
    for (size_t b = 0; b < 8; ++b) {
      std::vector<Fr> want(len);
      EXPECT_EQ(next[b], gadgets::poseidon_por_level_witness(arity, lanes[b].cur, siblings[b], lanes[b].index, want));
      EXPECT_EQ(out[b], want) << "arity " << arity << " lane " << b;
    }
  }
}

// One level of por_subpath for every index of arities 2, 4, 8 (the insert tables) and 16 (the
// select columns).
TEST(PorWitness, EveryIndexOfALevelEqualsTheCircuitsValues) {
  for (size_t arity : {2, 4, 8, 16}) {
    for (uint64_t index = 0; index < arity; ++index) {
      std::vector<std::optional<Fr>> hashes;
      std::vector<Fr> siblings;
      for (size_t j = 0; j + 1 < arity; ++j) {
        siblings.push_back(value_of(1000 * arity + 10 * index + j));
        hashes.emplace_back(siblings.back());
      }
      const Fr leaf = value_of(7 * arity + index);
      r1cs::WitnessCS cs;
      const gadgets::AllocatedNum cur = gadgets::AllocatedNum::alloc(cs, leaf);
      std::vector<gadgets::Boolean> bits;
      const gadgets::PathElement el{hashes, index};
      const gadgets::AllocatedNum root = gadgets::por_subpath<gadgets::PoseidonHasher>(
          cs, arity, std::span<const gadgets::PathElement>(&el, 1), cur, bits);
      std::vector<Fr> out(gadgets::poseidon_por_level_witness_len(arity));
      const Fr native = gadgets::poseidon_por_level_witness(arity, leaf, siblings, index, out);
      EXPECT_EQ(out, std::vector<Fr>(cs.aux().begin() + 1, cs.aux().end())) << arity << " index " << index;
      EXPECT_EQ(native, *root.value());
    }
    std::vector<Fr> out(gadgets::poseidon_por_level_witness_len(arity));
    EXPECT_THROW(gadgets::poseidon_por_level_witness(arity, Fr::one(), std::vector<Fr>(arity - 1), arity, out),
                 std::invalid_argument);
  }
  EXPECT_EQ(gadgets::insert_witness_len(8), 22u);  // insertion.rs's tested cost
}

void expect_native_equals_synthesized(const PostCircuitShape& shape, const PostCircuitWitness& w,
                                      const std::string& what) {
  ThreadPool pool(3);
  const PostAssignment native = post_native_assignment(shape, w, pool);
  const PostAssignment synth = synthesize_post_assignment(shape, w);
  ASSERT_EQ(native.aux.size(), synth.aux.size()) << what;
  ASSERT_EQ(native.inputs.size(), synth.inputs.size()) << what;
  EXPECT_EQ(native.inputs, synth.inputs) << what;
  // Element by element, so a mismatch names its position rather than printing 10^5 values.
  size_t mismatches = 0;
  for (size_t i = 0; i < native.aux.size() && mismatches < 5; ++i) {
    if (native.aux[i] != synth.aux[i]) {
      ADD_FAILURE() << what << ": aux " << i << " differs";
      ++mismatches;
    }
  }
  EXPECT_EQ(native.aux.size(), shape.sectors * post_sector_aux_len(shape)) << what;
}

// WindowPoSt 2 KiB: one proof padded to the partition's two sectors; WinningPoSt 2 KiB: 66
// circuit sectors from one proof.
TEST(PostWitness, NativeEqualsSynthesizedAt2KiB) {
  for (const char* name : {"StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1"}) {
    const RegisteredPostProof& proof = registered_post_proof(name);
    const PostCircuitShape shape = PostCircuitShape::of(proof);
    const DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 11);
    const std::vector<FallbackPostSectorProof> proofs{
        build_post_sector_proof(proof, tree, test::random_fr_bytes(4), 42, test::random_fr_bytes(3), 0)};
    expect_native_equals_synthesized(shape, post_circuit_witness(shape, proofs), name);
  }
}

// The reference test's 8-4-2 tree (sub and top levels of other arities), 7 sectors x 3, V1.
TEST(PostWitness, NativeEqualsSynthesizedWithSubAndTopTrees) {
  const PostCircuitShape shape = PostCircuitShape::reference_test({8, 4, 2}, 7, 3);
  const Bytes32 randomness = test::random_fr_bytes(6);
  std::vector<FallbackPostSectorProof> proofs;
  for (uint64_t i = 0; i < 7; ++i) {
    const DenseTree tree = test::random_tree_r(shape.tree, shape.nodes, 20 + i);
    const std::vector<uint64_t> challenges =
        post_leaf_challenges(ApiVersion::V1_0_0, randomness, 100 + i, i, shape.challenges, shape.nodes);
    proofs.push_back(build_post_sector_proof(tree, test::random_fr_bytes(30 + i), 100 + i, challenges));
  }
  expect_native_equals_synthesized(shape, post_circuit_witness(shape, proofs), "8-4-2");
}

// Three sectors of the 32 GiB WindowPoSt circuit (synthetic proofs, `cuzk synth-post`'s): the
// production tree 8-8-0 with 10 challenges; the partition is these sectors repeated 2349 times.
TEST(PostWitness, NativeEqualsSynthesizedAt32GiBShape) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow32GiBV1_1");
  PostVanillaRequest req;
  req.proof = &proof;
  req.randomness = synthetic_post_randomness(5);
  req.sector_ids = {1, 2, 3};
  PostCircuitShape shape = PostCircuitShape::of(proof);
  shape.sectors = 3;
  expect_native_equals_synthesized(shape, post_circuit_witness(shape, synthetic_post_vanilla(req)), "32 GiB");
  // filecoin-proofs constants.rs: 125,279,217 constraints = 2349 sectors x 53,333. The aux are
  // those less the 11 input and 11 equality constraints (no aux), plus comm_r_last, comm_c, comm_r,
  // the 10 leaves and 700 siblings (no constraint): 53,333 - 22 + 713.
  EXPECT_EQ(post_sector_aux_len(PostCircuitShape::of(proof)), 54'024u);
}

TEST(PostWitness, BadValuesAreRefusedNamingTheSector) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow2KiBV1_1");
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  const DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 11);
  const std::vector<FallbackPostSectorProof> proofs{
      build_post_sector_proof(proof, tree, test::random_fr_bytes(4), 42, test::random_fr_bytes(3), 0)};
  const PostCircuitWitness w = post_circuit_witness(shape, proofs);
  auto refused = [&](const PostCircuitWitness& bad, const std::string& want) {
    try {
      post_native_assignment(shape, bad, ThreadPool::global());
      ADD_FAILURE() << "accepted; expected: " << want;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  PostCircuitWitness bad = w;
  bad.sectors[1].leaves[7] = *bad.sectors[1].leaves[7] + Fr::one();
  refused(bad, "sector 1: challenge 7: the path does not hash to comm_r_last");
  bad = w;
  bad.sectors[0].comm_c = *bad.sectors[0].comm_c + Fr::one();
  refused(bad, "sector 0: comm_r is not Poseidon2(comm_c, comm_r_last)");
  bad = w;
  bad.sectors[0].paths[3].base[1].hashes[2].reset();
  refused(bad, "sector 0: challenge 3 sibling has no value");
  refused(PostCircuitWitness::blank(shape), "sector 0: comm_r_last has no value");
  bad = w;
  bad.sectors.pop_back();
  EXPECT_THROW(post_native_assignment(shape, bad, ThreadPool::global()), std::invalid_argument);
}

std::string pce_bytes(const r1cs::CompactR1cs& r, const std::string& path) {
  const pce::Pce p = pce::build_pce(r, {"post-test", {}, false});
  EXPECT_TRUE(pce::save_pce(p, path).ok());
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// One sector recorded and replicated gives the matrices, and the PCE file, of the full recording.
TEST(PostRecording, ReplicatedEqualsSequential) {
  cuzk::test::TempDir dir;
  ThreadPool pool(3);
  const PostCircuitShape shapes[] = {
      PostCircuitShape::of(registered_post_proof("StackedDrgWindow2KiBV1_1")),
      PostCircuitShape::of(registered_post_proof("StackedDrgWinning2KiBV1")),  // 66 sectors
      PostCircuitShape::reference_test({8, 4, 2}, 9, 2),
      PostCircuitShape::of(registered_post_proof("StackedDrgWindow512MiBV1")),  // 85 k constraints
  };
  for (const PostCircuitShape& shape : shapes) {
    const r1cs::CompactR1cs seq = record_post_circuit(shape);
    const r1cs::CompactR1cs rep = record_post_circuit_replicated(shape, pool);
    EXPECT_EQ(rep.num_inputs, seq.num_inputs) << shape.describe();
    EXPECT_EQ(rep.num_aux, seq.num_aux);
    EXPECT_EQ(rep.num_constraints, seq.num_constraints);
    EXPECT_EQ(rep.coeffs, seq.coeffs);
    for (auto [p, s] : {std::pair{&rep.a, &seq.a}, std::pair{&rep.b, &seq.b}, std::pair{&rep.c, &seq.c}}) {
      EXPECT_EQ(p->row_ptr, s->row_ptr);
      EXPECT_EQ(p->col, s->col);
      EXPECT_EQ(p->coeff, s->coeff);
    }
    EXPECT_EQ(pce_bytes(rep, (dir.path() / "rep.pce").string()), pce_bytes(seq, (dir.path() / "seq.pce").string()))
        << shape.describe();
    // The native witness fills exactly the recorded circuit's variables.
    EXPECT_EQ(rep.num_aux, shape.sectors * post_sector_aux_len(shape));
    EXPECT_EQ(rep.num_inputs, shape.num_inputs());
  }
}

}  // namespace
}  // namespace cuzk::filecoin
