// `cuzk seal` and synth_c1: a natively sealed sector's C1 output and a sparse synthetic one are
// both consistent vanilla proofs: validate_c1_output with Merkle paths, every label re-derived from
// its labeling proof's parents, parents equal to the parent columns' rows, JSON round trips.
// Known answers: the 2 KiB all-zero comm_d and a 2 KiB V1 replica_id from filecoin-project/
// go-state-types abi/sector_test.go TestReplicaID ("extracted from rust-fil-proofs from a
// PreCommit1 call"); the comm_d is also the "empty 2 KiB comm_d" of the reference notes §6 (zero
// ladder level 6, fc7e9282..., filecoin-proofs/tests/pieces.rs).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/challenges.hpp"
#include "filecoin/label.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sector_tree.hpp"
#include "filecoin/stacked_graph.hpp"
#include "filecoin/synth_c1.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;

Bytes32 node_of(const std::vector<uint8_t>& layer, uint64_t i) {
  Bytes32 b;
  std::copy_n(layer.begin() + static_cast<std::ptrdiff_t>(i * 32), 32, b.begin());
  return b;
}

SealParams params() {
  SealParams p;
  p.prover_id = prover_id_from_actor_id(1000);
  p.sector_id = 42;
  p.ticket.fill(3);
  p.ticket[31] = 0;
  p.seed.fill(5);
  p.seed[31] = 0;
  return p;
}

bool same_path(const std::vector<PathElement>& a, const std::vector<PathElement>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].index != b[i].index || a[i].hashes != b[i].hashes) return false;
  }
  return true;
}
bool same_proof(const MerkleProof& a, const MerkleProof& b) {
  return a.shape == b.shape && a.root == b.root && a.leaf == b.leaf && same_path(a.base, b.base) &&
         same_path(a.sub, b.sub) && same_path(a.top, b.top);
}

// What C2 recomputes in-circuit: each layer's label from the parent columns (DRG parents at the
// same layer, expander parents at the previous one), equal to the challenged column's row; and
// the labeling proofs carry exactly those parents.
void expect_labels_consistent(const SealCommitPhase1Output& c1) {
  const uint32_t layers = c1.registered_proof->shape.layers;
  for (const auto& part : c1.vanilla_proofs) {
    for (const auto& vp : part) {
      const auto& cols = vp.replica_column_proofs;
      ASSERT_EQ(vp.labeling_proofs.size(), layers);
      for (uint32_t l = 1; l <= layers; ++l) {
        std::vector<gadgets::NodeBytes> distinct;
        for (const auto& p : cols.drg_parents) distinct.push_back(p.column.rows[l - 1]);
        if (l > 1) {
          for (const auto& p : cols.exp_parents) distinct.push_back(p.column.rows[l - 2]);
        }
        const auto parents = repeat_parents(distinct);
        const auto& lp = vp.labeling_proofs[l - 1];
        EXPECT_EQ(lp.parents, parents) << "challenge " << vp.challenge() << " layer " << l;
        EXPECT_EQ(label_from_parents(c1.replica_id, l, lp.node, lp.parents), cols.c_x.column.rows[l - 1])
            << "challenge " << vp.challenge() << " layer " << l;
      }
      EXPECT_EQ(vp.encoding_proof.parents, vp.labeling_proofs.back().parents);
      EXPECT_EQ(vp.encoding_proof.layer_index, layers);
    }
  }
}

// ---------------------------------------------------------------- seal

TEST(Seal, ZeroSectorMatchesKnownCommDAndReplicaId) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1");
  SealParams p;
  p.prover_id = prover_id_from_actor_id(123);
  p.sector_id = 1;
  p.ticket = Bytes32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2};
  p.seed.fill(7);
  const std::vector<uint8_t> zero(2048, 0);
  const SealResult r = seal_sector(proof, zero, p);
  EXPECT_EQ(to_hex(r.c1.comm_d), "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
  EXPECT_EQ(to_hex(r.c1.replica_id), "1e2e06391a0d1b99dc896aa6f7fa113ff8e993cbdcbfb503e99571603b61a016");
  // The sparse all-default tree D gives the same root.
  EXPECT_EQ(uniform_sector_comm_d(proof, Bytes32{}), r.c1.comm_d);
}

TEST(Seal, Random2KiBIsAValidVanillaProof) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1_1");
  const auto data = random_sector_data(proof.shape.nodes, 9);
  const SealResult r = seal_sector(proof, data, params());
  const auto& c1 = r.c1;
  validate_c1_output(c1, C1ValidateOptions{.verify_merkle_paths = true});
  expect_labels_consistent(c1);

  // The columns and labeling parents are the labels generate_labels gives.
  const StackedGraph g(proof.shape.nodes, porep_id(proof), proof.api_version);
  const auto labels = generate_labels(g, c1.replica_id, proof.shape.layers);
  for (const auto& part : c1.vanilla_proofs) {
    for (const auto& vp : part) {
      const uint64_t c = vp.challenge();
      for (uint32_t l = 0; l < proof.shape.layers; ++l) {
        EXPECT_EQ(vp.replica_column_proofs.c_x.column.rows[l], node_of(labels[l], c));
        const std::span<const uint8_t> prev = l ? std::span<const uint8_t>(labels[l - 1]) : std::span<const uint8_t>();
        const auto want = label_parents(g, l + 1, c, labels[l], prev);
        EXPECT_EQ(vp.labeling_proofs[l].parents, want);
      }
      EXPECT_EQ(vp.comm_d_proofs.leaf, node_of(data, c));
    }
  }
  // The generic label path agrees with generate_labels' fast one.
  EXPECT_EQ(create_label(g, c1.replica_id, 2, 37, labels[1], labels[0]), node_of(labels[1], 37));

  // JSON round trip, raw and wrapped.
  const std::string json = to_json(c1);
  const auto back = parse_c1_output(json, C1ValidateOptions{.verify_merkle_paths = true});
  EXPECT_EQ(to_json(back), json);
  const auto w = parse_c1_wrapper(to_wrapper_json(c1, 42));
  EXPECT_EQ(to_json(w.c1), json);
}

TEST(Seal, EveryVersionOf2KiB) {
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                           "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    const auto& proof = registered_seal_proof(name);
    const SealResult r = seal_sector(proof, random_sector_data(proof.shape.nodes, 1), params());
    EXPECT_EQ(r.c1.vanilla_proofs.size(), proof.partitions) << name;
    validate_c1_output(r.c1, C1ValidateOptions{.verify_merkle_paths = true});
    expect_labels_consistent(r.c1);
  }
}

TEST(Seal, Deterministic) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1_1");
  const auto data = random_sector_data(proof.shape.nodes, 4);
  EXPECT_EQ(data, random_sector_data(proof.shape.nodes, 4));
  EXPECT_EQ(to_json(seal_sector(proof, data, params()).c1), to_json(seal_sector(proof, data, params()).c1));
  auto other = params();
  other.seed[0] ^= 1;
  EXPECT_NE(to_json(seal_sector(proof, data, params()).c1), to_json(seal_sector(proof, data, other).c1));
}

TEST(Seal, RejectsBadData) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1_1");
  auto data = random_sector_data(proof.shape.nodes, 2);
  for (uint64_t i = 0; i < proof.shape.nodes; ++i) EXPECT_EQ(data[i * 32 + 31] & 0xc0, 0);
  data[5 * 32 + 31] |= 0x40;  // node 5 >= 2^254
  try {
    seal_sector(proof, data, params());
    FAIL() << "accepted a node >= 2^254";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("node 5 "), std::string::npos) << e.what();
  }
  data.pop_back();
  EXPECT_THROW(seal_sector(proof, data, params()), std::invalid_argument);
}

// ---------------------------------------------------------------- sparse trees

TEST(SparseTree, EqualsTheDenseTree) {
  for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"}) {
    const auto& s = registered_seal_proof(name).shape;
    const TreeLayout layout = tree_rc_layout(s);
    Bytes32 dflt{};
    dflt[0] = 9;
    std::vector<Bytes32> leaves(s.nodes, dflt);
    std::unordered_map<uint64_t, Bytes32> set;
    for (uint64_t i : {uint64_t{1}, uint64_t{7}, uint64_t{8}, s.nodes - 1}) {
      Bytes32 v{};
      v[0] = static_cast<uint8_t>(i);
      v[1] = 1;
      set[i] = leaves[i] = v;
    }
    const DenseTree dense(layout, leaves);
    const SparseTree sparse(layout, dflt, set);
    ASSERT_EQ(sparse.root(), dense.root()) << name;
    for (uint64_t i : {uint64_t{0}, uint64_t{7}, uint64_t{100} % s.nodes, s.nodes - 1}) {
      EXPECT_TRUE(same_proof(sparse.prove(i), dense.prove(i))) << name << " leaf " << i;
      EXPECT_EQ(merkle_proof_root(sparse.prove(i), TreeHasher::kPoseidon), dense.root());
    }
  }
}

// ---------------------------------------------------------------- synth_c1

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void expect_valid_synth(const char* name, uint64_t seed) {
  const auto& proof = registered_seal_proof(name);
  const auto t0 = std::chrono::steady_clock::now();
  const SealCommitPhase1Output c1 = make_valid_synthetic_c1(proof, seed);
  const double build_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  validate_c1_output(c1, C1ValidateOptions{.verify_merkle_paths = true});
  std::printf("synth-c1 %s: build %.2f s, validate with paths %.2f s\n", name, build_s, seconds_since(t1));
  expect_labels_consistent(c1);
}

TEST(SynthC1, ValidAt2KiB) {
  for (uint64_t seed : {1, 2, 3}) expect_valid_synth("StackedDrg2KiBV1_1", seed);
  expect_valid_synth("StackedDrg2KiBV1", 1);
}
TEST(SynthC1, ValidAt8MiB) {
  expect_valid_synth("StackedDrg8MiBV1_1", 1);
}
TEST(SynthC1, ValidAt32GiB) {
  expect_valid_synth("StackedDrg32GiBV1_1", 1);
}
TEST(SynthC1, ValidAt64GiB) {
  expect_valid_synth("StackedDrg64GiBV1_1", 1);
}

TEST(SynthC1, Deterministic) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1_1");
  EXPECT_EQ(to_json(make_valid_synthetic_c1(proof, 5)), to_json(make_valid_synthetic_c1(proof, 5)));
  EXPECT_NE(to_json(make_valid_synthetic_c1(proof, 5)), to_json(make_valid_synthetic_c1(proof, 6)));
}

TEST(SynthC1, NonInteractiveModes) {
  // Small sizes are sealed whole; 32/64 GiB cannot be made without the whole sector.
  for (const char* name : {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep"}) {
    const auto c1 = make_valid_synthetic_c1(registered_seal_proof(name), 1);
    validate_c1_output(c1, C1ValidateOptions{.verify_merkle_paths = true});
    expect_labels_consistent(c1);
  }
  EXPECT_THROW(make_valid_synthetic_c1(registered_seal_proof("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep")),
               std::invalid_argument);
}

// A challenge that is another challenge's DRG parent (and expander parent), a duplicated
// challenge, and parents shared by two challenges: one column per node, the parent's labels the
// computed ones, every path to the same roots.
TEST(SynthC1, CollisionsShareOneColumn) {
  const auto& proof = registered_seal_proof("StackedDrg8MiBV1_1");
  const StackedGraph g(proof.shape.nodes, porep_id(proof), proof.api_version);
  const uint64_t a = 200'000;
  const auto pa = g.parents(a);
  const uint64_t drg = pa[1], exp = pa[kBaseDegree + 2];
  ASSERT_GT(drg, 0u);
  const std::vector<uint64_t> challenges{a, drg, exp, a, a + 1};
  Bytes32 replica{};
  replica[0] = 77;
  Bytes32 data{};
  data[0] = 5;
  const SparseSectorProofs sp = sparse_sector_proofs(proof, replica, data, challenges, 3);
  ASSERT_EQ(sp.proofs.size(), challenges.size());
  const auto& va = sp.proofs[0].replica_column_proofs;
  EXPECT_EQ(va.drg_parents[1].column.rows, sp.proofs[1].replica_column_proofs.c_x.column.rows);
  EXPECT_EQ(va.exp_parents[2].column.rows, sp.proofs[2].replica_column_proofs.c_x.column.rows);
  EXPECT_EQ(va.c_x.column.rows, sp.proofs[3].replica_column_proofs.c_x.column.rows);
  EXPECT_EQ(sp.columns.at(drg), sp.proofs[1].replica_column_proofs.c_x.column.rows);
  // Node a+1's DRG parent 0 is its predecessor a (V1_1): the computed column again.
  EXPECT_EQ(sp.proofs[4].replica_column_proofs.drg_parents[0].column.rows, va.c_x.column.rows);
  SealCommitPhase1Output c1;
  c1.registered_proof = &proof;
  c1.replica_id = replica;
  c1.vanilla_proofs = {sp.proofs};
  expect_labels_consistent(c1);
  for (const auto& vp : sp.proofs) {
    EXPECT_EQ(merkle_proof_root(vp.comm_d_proofs, TreeHasher::kSha256), sp.comm_d);
    EXPECT_EQ(merkle_proof_root(vp.comm_r_last_proof, TreeHasher::kPoseidon), sp.comm_r_last);
    const auto& cols = vp.replica_column_proofs;
    EXPECT_EQ(merkle_proof_root(cols.c_x.inclusion_proof, TreeHasher::kPoseidon), sp.comm_c);
    for (const auto* list : {&cols.drg_parents, &cols.exp_parents}) {
      for (const auto& cp : *list) EXPECT_EQ(merkle_proof_root(cp.inclusion_proof, TreeHasher::kPoseidon), sp.comm_c);
    }
  }
}

// At 2 KiB (64 nodes) the derived challenges often collide with each other's parents: find seeds
// where a challenge is another's parent and check that such C1s validate.
TEST(SynthC1, NaturalCollisionsAt2KiB) {
  const auto& proof = registered_seal_proof("StackedDrg2KiBV1_1");
  int found = 0;
  for (uint64_t seed = 1; seed <= 40 && found < 3; ++seed) {
    const auto c1 = make_valid_synthetic_c1(proof, seed);
    const auto& part = c1.vanilla_proofs[0];
    bool collide = false;
    for (const auto& x : part) {
      for (const auto& y : part) {
        for (const auto* list : {&y.replica_column_proofs.drg_parents, &y.replica_column_proofs.exp_parents}) {
          for (const auto& cp : *list) collide |= cp.column.index == x.challenge();
        }
      }
    }
    if (!collide) continue;
    ++found;
    validate_c1_output(c1, C1ValidateOptions{.verify_merkle_paths = true});
    expect_labels_consistent(c1);
  }
  EXPECT_GT(found, 0);
}

}  // namespace
