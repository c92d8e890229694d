// The Poseidon Merkle hasher (src/gadgets/poseidon_hasher.hpp) natively, in-circuit and under the
// PoR gadget, against filecoin-hashers' test_poseidon_hasher tree vectors and the Poseidon counts
// that storage-proofs-core tests/por_circuit.rs asserts (filecoin-circuits.md 2.6 and 6).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "gadgets/insertion.hpp"
#include "gadgets/merkle_tree.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/poseidon_native.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using cuzk::Xoshiro256;
using cuzk::r1cs::Fr;
using cuzk::r1cs::RecordingCS;
using cuzk::r1cs::TestCS;
using cuzk::r1cs::Variable;
using namespace cuzk::gadgets;

// neptune's scalar_from_u64s: four u64 limbs, least significant first.
Fr fr_of_limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return Fr::from_canonical(cuzk::ff::Limbs<4>{l0, l1, l2, l3});
}

std::vector<Fr> random_fr_vector(Xoshiro256& rng, size_t n) {
  std::vector<Fr> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Fr::random(rng));
  return out;
}

std::vector<AllocatedNum> alloc_num_vector(TestCS& cs, const std::vector<Fr>& v, const std::string& prefix) {
  std::vector<AllocatedNum> out;
  for (size_t i = 0; i < v.size(); ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    out.push_back(AllocatedNum::alloc(cs, v[i]));
  }
  return out;
}

// filecoin-hashers src/poseidon.rs test_poseidon_hasher: a binary tree over leaves [1, 0, 0, 1];
// node(1, 0) and the root (filecoin-circuits.md section 6), through the native tree.
TEST(PoseidonHasher, FilecoinHashersTreeVector) {
  const MerkleTree<PoseidonHasher> tree({Fr::one(), Fr::zero(), Fr::zero(), Fr::one()}, MerkleShape{2, 0, 0});
  const Fr n10 = fr_of_limbs(0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3);
  const Fr root = fr_of_limbs(0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb);
  EXPECT_EQ(tree.base_row(0, 1)[0], n10);
  EXPECT_EQ(PoseidonHasher::hash2(Fr::one(), Fr::zero()), n10);
  EXPECT_EQ(tree.root(), root);
  // Order matters: node(0, 1) is the tree's other level-1 node, not node(1, 0).
  EXPECT_NE(tree.base_row(0, 1)[1], n10);
  EXPECT_EQ(tree.base_row(0, 1)[1], PoseidonHasher::hash2(Fr::zero(), Fr::one()));
}

// multi_node of n children is neptune's arity-n Poseidon (MerkleTree tag): the hash_values_aux
// vectors of preimage 0..n−1 (filecoin-circuits.md section 6); the height does not enter; other
// child counts are rejected as shared_hash_frs rejects them.
TEST(PoseidonHasher, NativeNodes) {
  auto iota = [](size_t n) {
    std::vector<Fr> v;
    for (size_t i = 0; i < n; ++i) v.push_back(Fr::from_u64(i));
    return v;
  };
  EXPECT_EQ(PoseidonHasher::hash_children(iota(2)),
            fr_of_limbs(0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b));
  EXPECT_EQ(PoseidonHasher::hash_children(iota(4), 3),
            fr_of_limbs(0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a));
  EXPECT_EQ(PoseidonHasher::hash_children(iota(8), 7),
            fr_of_limbs(0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55));
  Xoshiro256 rng(51);
  const std::vector<Fr> c = random_fr_vector(rng, 32);
  const std::span<const Fr> cs(c);
  EXPECT_EQ(PoseidonHasher::hash_children(cs.first(2)), PoseidonHasher::hash2(c[0], c[1]));
  EXPECT_EQ(PoseidonHasher::hash_children(cs.first(16)), poseidon_hash(16, cs.first(16)));
  for (size_t n : {0u, 1u, 3u, 11u, 32u}) {
    EXPECT_THROW(PoseidonHasher::hash_children(cs.first(n)), std::invalid_argument) << n;
  }
}

// The in-circuit node equals the native one and costs neptune's legacy-circuit count:
// 311 / 377 / 505 for 2 / 4 / 8 children (neptune circuit.rs, filecoin-circuits.md 2.6), with no
// constraint besides the Poseidon ones; hash2_circuit is the arity-2 node.
TEST(PoseidonHasher, CircuitMatchesNative) {
  Xoshiro256 rng(52);
  for (size_t n : {2u, 4u, 8u}) {
    const std::vector<Fr> c = random_fr_vector(rng, n);
    TestCS cs;
    const auto nums = alloc_num_vector(cs, c, "child ");
    const AllocatedNum h = PoseidonHasher::hash_multi_leaf_circuit(cs, std::span<const AllocatedNum>(nums), 5);
    EXPECT_EQ(h.value(), PoseidonHasher::hash_children(c)) << n;
    EXPECT_EQ(cs.num_constraints(), n == 2 ? 311u : n == 4 ? 377u : 505u) << n;
    EXPECT_TRUE(cs.is_satisfied()) << n;
    cs.set_value(h.var(), h.value().value() + Fr::one());
    EXPECT_FALSE(cs.is_satisfied()) << n;
  }
  const std::vector<Fr> ab = random_fr_vector(rng, 2);
  TestCS cs;
  const auto nums = alloc_num_vector(cs, ab, "child ");
  const AllocatedNum h = PoseidonHasher::hash2_circuit(cs, nums[0], nums[1]);
  EXPECT_EQ(h.value(), PoseidonHasher::hash2(ab[0], ab[1]));
  EXPECT_EQ(cs.num_constraints(), 311u);
  EXPECT_TRUE(cs.is_satisfied());
  // Swapping the children changes the hash: the witness of (a, b) does not satisfy for (b, a).
  EXPECT_NE(PoseidonHasher::hash2(ab[1], ab[0]), *h.value());

  TestCS bad;
  const auto three = alloc_num_vector(bad, random_fr_vector(rng, 3), "child ");
  EXPECT_THROW(PoseidonHasher::hash_multi_leaf_circuit(bad, std::span<const AllocatedNum>(three), 0),
               std::invalid_argument);
}

struct PorCase {
  MerkleShape shape;
  size_t constraints;
};

// storage-proofs-core tests/por_circuit.rs with PoseidonHasher: 64·base_tree_count leaves,
// public root, 3 inputs (ONE, the packed challenge, the root).
const std::array<PorCase, 8> kPorCases = {{{{2, 0, 0}, 1887},
                                           {{4, 0, 0}, 1164},
                                           {{8, 0, 0}, 1063},
                                           {{8, 2, 0}, 1377},
                                           {{8, 4, 2}, 1764},
                                           {{8, 8, 0}, 1593},
                                           {{8, 8, 2}, 1907},
                                           {{8, 2, 4}, 1764}}};

void synthesize_poseidon_por(TestCS& cs, const MerkleProof& p, bool private_root) {
  por_circuit<PoseidonHasher>(cs, Root::val(p.leaf), AuthPath::from_proof(p), Root::val(p.root), private_root);
}

// The reference counts for every shape, for the blank circuit and for real witnesses of random
// trees (first, last and a middle leaf), which satisfy the circuit and give the verifier's inputs.
TEST(PorPoseidon, ReferenceCounts) {
  Xoshiro256 rng(53);
  for (const PorCase& pc : kPorCases) {
    const MerkleShape& s = pc.shape;
    const size_t leaves = 64 * s.base_tree_count();
    RecordingCS rcs;
    por_circuit<PoseidonHasher>(rcs, Root::val(std::nullopt), AuthPath::blank(s, leaves), Root::val(std::nullopt),
                                false);
    EXPECT_EQ(rcs.num_constraints(), pc.constraints) << s.name();
    EXPECT_EQ(rcs.num_inputs(), 3u) << s.name();

    const MerkleTree<PoseidonHasher> tree(random_fr_vector(rng, leaves), s);
    for (size_t i : {size_t{0}, leaves / 2 + 3, leaves - 1}) {
      const MerkleProof p = tree.prove(i);
      ASSERT_TRUE(p.verify<PoseidonHasher>()) << s.name() << " " << i;
      TestCS cs;
      synthesize_poseidon_por(cs, p, false);
      EXPECT_EQ(cs.num_constraints(), pc.constraints) << s.name();
      ASSERT_EQ(cs.num_inputs(), 3u);
      EXPECT_TRUE(cs.is_satisfied()) << s.name() << " " << i;
      const std::vector<Fr> pub = por_public_inputs(i, tree.root());
      EXPECT_EQ(cs.inputs()[1], pub[0]) << s.name() << " " << i;
      EXPECT_EQ(cs.inputs()[2], pub[1]) << s.name() << " " << i;
    }
  }
}

// por_circuit.rs private-root cases: the root is not an input, one constraint fewer:
// 1,886 / 1,163 / 1,062 for arity 2 / 4 / 8.
TEST(PorPoseidon, PrivateRootCounts) {
  Xoshiro256 rng(54);
  const std::array<std::pair<size_t, size_t>, 3> cases = {{{2, 1886}, {4, 1163}, {8, 1062}}};
  for (const auto& [arity, expected] : cases) {
    const MerkleTree<PoseidonHasher> tree(random_fr_vector(rng, 64), MerkleShape{arity, 0, 0});
    TestCS cs;
    synthesize_poseidon_por(cs, tree.prove(17), true);
    EXPECT_EQ(cs.num_constraints(), expected) << arity;
    EXPECT_EQ(cs.num_inputs(), 2u) << arity;
    EXPECT_TRUE(cs.is_satisfied()) << arity;
    cs.set_value(Variable::aux(0), cs.value_of(Variable::aux(0)) + Fr::one());  // aux 0 is "value"
    EXPECT_FALSE(cs.is_satisfied()) << arity;
  }
}

// The root computed in-circuit (insert + hash_multi_leaf_circuit per level, as por.rs climbs)
// equals the native tree's root, for base, sub and top levels.
TEST(PorPoseidon, CircuitRootEqualsNativeRoot) {
  Xoshiro256 rng(55);
  for (const PorCase& pc : kPorCases) {
    const MerkleShape& s = pc.shape;
    const MerkleTree<PoseidonHasher> tree(random_fr_vector(rng, 64 * s.base_tree_count()), s);
    const size_t i = 64 * s.base_tree_count() - 5;
    const MerkleProof p = tree.prove(i);
    TestCS cs;
    AllocatedNum cur = alloc_num_vector(cs, {p.leaf}, "leaf ")[0];
    size_t height = 0;
    auto climb = [&](const std::vector<MerklePathLevel>& levels, size_t arity) {
      for (const MerklePathLevel& l : levels) {
        auto ns = cs.namespace_([&] { return "level " + std::to_string(height); });
        std::vector<Boolean> bits;
        for (size_t j = 0; (size_t{1} << j) < arity; ++j) {
          auto bns = cs.namespace_([&] { return "bit " + std::to_string(j); });
          bits.push_back(AllocatedBit::alloc(cs, ((l.index >> j) & 1) == 1));
        }
        const auto sib = alloc_num_vector(cs, l.siblings, "sibling ");
        const auto pre = insert(cs, cur, std::span<const Boolean>(bits), std::span<const AllocatedNum>(sib));
        cur = PoseidonHasher::hash_multi_leaf_circuit(cs, std::span<const AllocatedNum>(pre), height++);
      }
    };
    climb(p.base, s.base_arity);
    climb(p.sub, s.sub_arity);
    climb(p.top, s.top_arity);
    EXPECT_EQ(cur.value(), tree.root()) << s.name();
    EXPECT_TRUE(cs.is_satisfied()) << s.name();
  }
}

// Corrupted witnesses are rejected: a sibling that is not the tree's (every gadget is satisfied,
// the root check is not), a flipped index bit, a changed leaf, a wrong public root.
TEST(PorPoseidon, CorruptedPathRejected) {
  Xoshiro256 rng(56);
  for (const MerkleShape& s : {MerkleShape{2, 0, 0}, MerkleShape{8, 4, 2}}) {
    const MerkleTree<PoseidonHasher> tree(random_fr_vector(rng, 64 * s.base_tree_count()), s);
    const MerkleProof p = tree.prove(37);
    for (size_t level = 0; level < p.base.size(); ++level) {
      MerkleProof bad = p;
      bad.base[level].siblings.back() += Fr::one();
      TestCS cs;
      synthesize_poseidon_por(cs, bad, false);
      EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("enforce root is correct"))
          << s.name() << " " << level;
    }
    for (std::vector<MerklePathLevel> MerkleProof::*part : {&MerkleProof::sub, &MerkleProof::top}) {
      if ((p.*part).empty()) continue;
      MerkleProof bad = p;
      (bad.*part)[0].siblings[0] += Fr::one();
      TestCS cs;
      synthesize_poseidon_por(cs, bad, false);
      EXPECT_FALSE(cs.is_satisfied()) << s.name();
    }
    MerkleProof wrong_root = p;
    wrong_root.root += Fr::one();
    TestCS wr;
    synthesize_poseidon_por(wr, wrong_root, false);
    EXPECT_EQ(wr.which_is_unsatisfied(), std::optional<std::string>("enforce root is correct"));

    TestCS cs;
    synthesize_poseidon_por(cs, p, false);
    ASSERT_TRUE(cs.is_satisfied());
    size_t flipped = 0;
    for (size_t k = 0; k < cs.num_aux(); ++k) {
      const Variable v = Variable::aux(static_cast<uint32_t>(k));
      if (cs.name_of(v).find("index bit") == std::string::npos) continue;
      const Fr old = cs.value_of(v);
      cs.set_value(v, old.is_zero() ? Fr::one() : Fr::zero());
      EXPECT_FALSE(cs.is_satisfied()) << s.name() << " " << cs.name_of(v);
      cs.set_value(v, old);
      ++flipped;
    }
    // One bit per binary digit of the leaf index: log2(64 · base_tree_count).
    EXPECT_EQ(flipped, static_cast<size_t>(std::countr_zero(64 * s.base_tree_count()))) << s.name();
    ASSERT_TRUE(cs.is_satisfied());
    cs.set_value(Variable::aux(0), cs.value_of(Variable::aux(0)) + Fr::one());
    EXPECT_FALSE(cs.is_satisfied());
  }
}

}  // namespace
