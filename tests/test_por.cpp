// Merkle inclusion proofs (src/gadgets/): insertion and selection, the SHA-256 Merkle hasher
// natively and in-circuit, native Merkle trees, and the PoR circuit, against the counts that
// storage-proofs-core's tests assert (insertion.rs, tests/por_circuit.rs) and the SHA-256 tree
// vectors of filecoin-circuits.md section 6.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gadgets/insertion.hpp"
#include "gadgets/merkle_tree.hpp"
#include "gadgets/por.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using cuzk::Xoshiro256;
using cuzk::r1cs::Fr;
using cuzk::r1cs::RecordingCS;
using cuzk::r1cs::TestCS;
using cuzk::r1cs::Variable;
using namespace cuzk::gadgets;

std::string hex(const Fr& x) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t b : fr_to_node_bytes(x)) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

std::vector<AllocatedNum> alloc_nums(TestCS& cs, const std::vector<Fr>& v, const std::string& prefix) {
  std::vector<AllocatedNum> out;
  for (size_t i = 0; i < v.size(); ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    out.push_back(AllocatedNum::alloc(cs, v[i]));
  }
  return out;
}

std::vector<Boolean> alloc_index_bits(TestCS& cs, size_t index, size_t k) {
  std::vector<Boolean> out;
  for (size_t i = 0; i < k; ++i) {
    auto ns = cs.namespace_([&] { return "index bit " + std::to_string(i); });
    out.push_back(AllocatedBit::alloc(cs, ((index >> i) & 1) == 1));
  }
  return out;
}

std::vector<Fr> random_frs(Xoshiro256& rng, size_t n) {
  std::vector<Fr> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Fr::random(rng));
  return out;
}

// insertion.rs test_insert: for every size up to 16 and every index, the element lands at the
// index with the others in order, and the gadget costs 2 / 8 / 22 (sizes 2 / 4 / 8) and
// size·(size−1) otherwise, counted after the index bits.
TEST(Insertion, InsertEveryIndex) {
  Xoshiro256 rng(31);
  for (size_t log_size = 1; log_size <= 4; ++log_size) {
    const size_t size = size_t{1} << log_size;
    const size_t expected = size == 8 ? 22 : size == 4 ? 8 : size * (size - 1);
    for (size_t index = 0; index < size; ++index) {
      TestCS cs;
      const std::vector<Fr> ev = random_frs(rng, size - 1);
      const Fr xv = Fr::random(rng);
      const auto elements = alloc_nums(cs, ev, "element ");
      const auto x = alloc_nums(cs, {xv}, "insert ")[0];
      const auto bits = alloc_index_bits(cs, index, log_size);
      ASSERT_EQ(cs.num_constraints(), log_size);
      const auto out = insert(cs, x, std::span<const Boolean>(bits), std::span<const AllocatedNum>(elements));
      EXPECT_EQ(cs.num_constraints() - log_size, expected) << size;
      EXPECT_EQ(cs.num_aux() - size - log_size, expected) << size;  // one aux per pick, plus nor/and for 8
      ASSERT_TRUE(cs.is_satisfied()) << size << " " << index;
      ASSERT_EQ(out.size(), size);
      for (size_t pos = 0, e = 0; pos < size; ++pos) {
        EXPECT_EQ(out[pos].value(), pos == index ? std::optional<Fr>(xv) : std::optional<Fr>(ev[e++]))
            << size << " " << index << " " << pos;
      }
      // A pick result replaced by another value violates its pick constraint.
      cs.set_value(out[size - 1].var(), out[size - 1].value().value() + Fr::one());
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}

// insertion.rs test_select: size−1 picks, the indexed element.
TEST(Insertion, SelectEveryIndex) {
  Xoshiro256 rng(32);
  for (size_t log_size = 1; log_size <= 4; ++log_size) {
    const size_t size = size_t{1} << log_size;
    for (size_t index = 0; index < size; ++index) {
      TestCS cs;
      const std::vector<Fr> ev = random_frs(rng, size);
      const auto elements = alloc_nums(cs, ev, "element ");
      const auto bits = alloc_index_bits(cs, index, log_size);
      AllocatedNum s;
      {
        auto ns = cs.namespace_([] { return "select"; });
        s = select(cs, std::span<const AllocatedNum>(elements), std::span<const Boolean>(bits));
      }
      EXPECT_EQ(cs.num_constraints() - log_size, size - 1);
      EXPECT_TRUE(cs.is_satisfied());
      EXPECT_EQ(s.value(), ev[index]);
      // Claiming another element's value breaks the last pick.
      cs.set_value(s.var(), ev[(index + 1) % size]);
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}

TEST(Insertion, RejectsBadShapes) {
  TestCS cs;
  const auto e = alloc_nums(cs, {Fr::one(), Fr::one()}, "e ");
  const auto bits = alloc_index_bits(cs, 0, 1);
  EXPECT_THROW(insert(cs, e[0], std::span<const Boolean>(bits), std::span<const AllocatedNum>(e)),
               std::invalid_argument);
  EXPECT_THROW(select(cs, std::span<const AllocatedNum>(e).first(1), std::span<const Boolean>(bits)),
               std::invalid_argument);
  // insert_8 needs allocated, unnegated low bits (the reference panics).
  const auto seven = alloc_nums(cs, std::vector<Fr>(7, Fr::one()), "s ");
  const std::vector<Boolean> negated = {Boolean::not_of(bits[0].bit()), bits[0], bits[0]};
  EXPECT_THROW(insert_8(cs, e[0], std::span<const Boolean>(negated), std::span<const AllocatedNum>(seven)),
               std::invalid_argument);
}

// filecoin-circuits.md section 6, SHA-256 tree D: the zero-subtree ladder (root of 2^k zero
// leaves), with levels 2 and 6 in full from filecoin-proofs tests/pieces.rs (empty 128-byte and
// 2 KiB comm_d), and H(0x01 || 0^63).
TEST(Sha256Tree, ZeroSubtreeLadder) {
  const MerkleTree<Sha256Hasher> tree(std::vector<Fr>(128, Fr::zero()), MerkleShape{2, 0, 0});
  const char* prefixes[] = {"f5a5fd42", "3731bb99", "642a607e", "57a2381a", "1f7ac959", "fc7e9282", "08c47b38"};
  for (size_t level = 1; level <= 7; ++level) {
    EXPECT_EQ(hex(tree.base_row(0, level)[0]).substr(0, 8), prefixes[level - 1]) << level;
  }
  EXPECT_EQ(hex(tree.base_row(0, 2)[0]), "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333");
  const std::array<uint8_t, 32> comm_d_2k = {252, 126, 146, 130, 150, 229, 22,  250, 173, 233, 134,
                                             178, 143, 146, 212, 74,  79,  36,  185, 53,  72,  82,
                                             35,  55,  106, 121, 144, 39,  188, 24,  248, 51};
  EXPECT_EQ(fr_to_node_bytes(tree.base_row(0, 6)[0]), comm_d_2k);
  EXPECT_EQ(hex(tree.root()), hex(tree.base_row(0, 7)[0]));

  std::array<uint8_t, 32> one{};
  one[0] = 1;
  const std::string h = hex(Sha256Hasher::hash2(node_bytes_to_fr(one), Fr::zero()));
  EXPECT_EQ(h.substr(0, 16), "16abab341fb7f370");
  EXPECT_EQ(h.substr(60), "b22f");
}

// Arity 4 and 8 nodes hash the concatenated children (merkletree multi_node); a binary node is
// hash2.
TEST(Sha256Tree, NativeNodes) {
  Xoshiro256 rng(33);
  const std::vector<Fr> c = random_frs(rng, 8);
  EXPECT_EQ(Sha256Hasher::hash_children(std::span<const Fr>(c).first(2)), Sha256Hasher::hash2(c[0], c[1]));
  std::vector<uint8_t> bytes;
  for (const Fr& x : c) {
    const auto b = fr_to_node_bytes(x);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  EXPECT_EQ(Sha256Hasher::hash_children(c), Sha256Hasher::hash_bytes(bytes));
  EXPECT_NE(Sha256Hasher::hash_children(c), Sha256Hasher::hash_bytes(std::span<const uint8_t>(bytes).first(224)));
}

// Every leaf's proof verifies and spells its index, for base, sub and top shapes; a changed
// sibling, leaf or index does not verify.
TEST(Sha256Tree, ProofsOfEveryShape) {
  Xoshiro256 rng(34);
  const MerkleShape shapes[] = {{2, 0, 0}, {4, 0, 0}, {8, 0, 0}, {4, 2, 0}, {2, 4, 2}, {8, 8, 2}};
  for (const MerkleShape& s : shapes) {
    const size_t leaves = 64 * s.base_tree_count();
    const MerkleTree<Sha256Hasher> tree(random_frs(rng, leaves), s);
    for (size_t i = 0; i < leaves; i += 7) {
      MerkleProof p = tree.prove(i);
      ASSERT_TRUE(p.verify<Sha256Hasher>()) << s.base_arity << "-" << s.sub_arity << "-" << s.top_arity << " " << i;
      EXPECT_EQ(p.leaf_index(), i);
      EXPECT_EQ(p.base.size(), s.base_path_length(leaves));
      EXPECT_EQ(p.sub.size(), s.sub_arity ? 1u : 0u);
      EXPECT_EQ(p.top.size(), s.top_arity ? 1u : 0u);
      MerkleProof bad = p;
      bad.base.back().siblings.front() += Fr::one();
      EXPECT_FALSE(bad.verify<Sha256Hasher>());
      bad = p;
      bad.leaf += Fr::one();
      EXPECT_FALSE(bad.verify<Sha256Hasher>());
      bad = p;
      bad.base.front().index = (bad.base.front().index + 1) % s.base_arity;
      EXPECT_FALSE(bad.verify<Sha256Hasher>());
    }
  }
  EXPECT_THROW(MerkleTree<Sha256Hasher>(std::vector<Fr>(48, Fr::zero()), MerkleShape{4, 0, 0}), std::invalid_argument);
  EXPECT_THROW(MerkleShape({3, 0, 0}).validate(), std::invalid_argument);
  EXPECT_THROW(MerkleShape({8, 0, 2}).validate(), std::invalid_argument);
}

// The in-circuit node equals the native one for 2, 4 and 8 children. Two children cost
// 2·256 + 44,866 + 1 = 45,379 (filecoin-circuits.md 2.3); four and eight cost 72,075 and 125,467,
// which is what the SHA-256 PoR counts below imply per level (216,258 = 3·(2 + 8 + h4) + 3 and
// 250,987 = 2·(3 + 22 + h8) + 3).
TEST(Sha256Hasher, CircuitMatchesNative) {
  Xoshiro256 rng(35);
  for (size_t n : {2u, 4u, 8u}) {
    const std::vector<Fr> c = random_frs(rng, n);
    TestCS cs;
    const auto nums = alloc_nums(cs, c, "child ");
    const AllocatedNum h = Sha256Hasher::hash_multi_leaf_circuit(cs, std::span<const AllocatedNum>(nums), 0);
    EXPECT_EQ(h.value(), Sha256Hasher::hash_children(c)) << n;
    EXPECT_EQ(cs.num_constraints(), n == 2 ? 45379u : n == 4 ? 72075u : 125467u) << n;
    EXPECT_TRUE(cs.is_satisfied()) << n;
    if (n == 2) {
      TestCS cs2;
      const auto nums2 = alloc_nums(cs2, c, "child ");
      const AllocatedNum h2 = Sha256Hasher::hash2_circuit(cs2, nums2[0], nums2[1]);
      EXPECT_EQ(h2.value(), Sha256Hasher::hash2(c[0], c[1]));
      EXPECT_EQ(cs2.num_constraints(), 45379u);
      EXPECT_EQ(cs2.num_aux(), 2u + 45331u);
    }
    // The packed digest is bound to the hash: a different value breaks the packing constraint.
    cs.set_value(h.var(), h.value().value() + Fr::one());
    EXPECT_FALSE(cs.is_satisfied());
  }
}

// Synthesizes the PoR circuit for leaf i of the tree under TestCS.
void synthesize_por(TestCS& cs, const MerkleProof& p, bool private_root) {
  por_circuit<Sha256Hasher>(cs, Root::val(p.leaf), AuthPath::from_proof(p), Root::val(p.root), private_root);
}

// storage-proofs-core tests/por_circuit.rs with Sha256Hasher: 64 leaves (× base tree count),
// public root, 3 inputs (ONE, the packed challenge, the root), and 272,295 / 216,258 / 250,987
// constraints for arity 2 / 4 / 8. The inputs equal generate_public_inputs (challenge, root), the
// blank circuit has the same shape, and a corrupted path, leaf or index is rejected.
TEST(Por, Sha256ReferenceCounts) {
  Xoshiro256 rng(36);
  const std::array<std::pair<size_t, size_t>, 3> cases = {{{2, 272295}, {4, 216258}, {8, 250987}}};
  for (const auto& [arity, expected] : cases) {
    const MerkleShape shape{arity, 0, 0};
    const MerkleTree<Sha256Hasher> tree(random_frs(rng, 64), shape);
    // The first and last leaves for one arity, a middle one for all (each synthesis is ~1 s).
    const std::vector<size_t> leaves = arity == 8 ? std::vector<size_t>{0, 37, 63} : std::vector<size_t>{37};
    for (size_t i : leaves) {
      const MerkleProof p = tree.prove(i);
      TestCS cs;
      synthesize_por(cs, p, false);
      EXPECT_EQ(cs.num_constraints(), expected) << arity;
      ASSERT_EQ(cs.num_inputs(), 3u);
      ASSERT_TRUE(cs.is_satisfied()) << arity << " " << i;
      const std::vector<Fr> pub = por_public_inputs(i, tree.root());
      EXPECT_EQ(cs.inputs()[1], pub[0]);
      EXPECT_EQ(cs.inputs()[2], pub[1]);
      if (arity != 4) continue;

      // Flipping one index bit in the witness (the challenge is then another leaf's).
      for (size_t k = 0; k < cs.num_aux(); ++k) {
        const Variable v = Variable::aux(static_cast<uint32_t>(k));
        if (cs.name_of(v).find("index bit 0") != std::string::npos) {
          cs.set_value(v, cs.value_of(v).is_zero() ? Fr::one() : Fr::zero());
          EXPECT_FALSE(cs.is_satisfied());
          cs.set_value(v, cs.value_of(v).is_zero() ? Fr::one() : Fr::zero());
          break;
        }
      }
      ASSERT_TRUE(cs.is_satisfied());
      // A different leaf value in the witness (aux 0 is "value").
      cs.set_value(Variable::aux(0), cs.value_of(Variable::aux(0)) + Fr::one());
      EXPECT_FALSE(cs.is_satisfied());
      // A consistent witness for a sibling that is not the tree's: every gadget is satisfied but
      // the computed root differs from the public one.
      MerkleProof bad = p;
      bad.base[1].siblings[0] += Fr::one();
      TestCS bad_sibling;
      synthesize_por(bad_sibling, bad, false);
      EXPECT_EQ(bad_sibling.which_is_unsatisfied(), std::optional<std::string>("enforce root is correct"));
    }
    // The blank circuit (no values) has the same shape.
    RecordingCS rcs;
    por_circuit<Sha256Hasher>(rcs, Root::val(std::nullopt), AuthPath::blank(shape, 64), Root::val(std::nullopt), false);
    EXPECT_EQ(rcs.num_constraints(), expected);
    EXPECT_EQ(rcs.num_inputs(), 3u);
  }
}

// A private root is not exposed: one input and one constraint fewer; a root given as an existing
// variable is used as is; compound shapes (sub and top trees) are satisfied too.
TEST(Por, PrivateRootVarRootAndCompoundShapes) {
  Xoshiro256 rng(37);
  const MerkleTree<Sha256Hasher> tree(random_frs(rng, 64), MerkleShape{8, 0, 0});
  const MerkleProof p = tree.prove(5);
  TestCS cs;
  synthesize_por(cs, p, true);
  EXPECT_EQ(cs.num_constraints(), 250986u);
  EXPECT_EQ(cs.num_inputs(), 2u);
  EXPECT_TRUE(cs.is_satisfied());

  TestCS var_cs;
  AllocatedNum root;
  {
    auto ns = var_cs.namespace_([] { return "existing root"; });
    root = AllocatedNum::alloc(var_cs, tree.root() + Fr::one());
  }
  const size_t aux_before = var_cs.num_aux();
  por_circuit<Sha256Hasher>(var_cs, Root::val(p.leaf), AuthPath::from_proof(p), Root::var(root), true);
  EXPECT_FALSE(var_cs.is_satisfied());  // the existing variable holds a wrong root
  var_cs.set_value(root.var(), tree.root());
  EXPECT_TRUE(var_cs.is_satisfied());
  EXPECT_EQ(var_cs.num_aux() - aux_before, cs.num_aux() - 1);  // no "root_value" allocation

  for (const MerkleShape& s : {MerkleShape{4, 2, 0}, MerkleShape{2, 2, 2}}) {
    const size_t leaves = 4 * s.base_tree_count();  // small: each hash is ~45k-72k constraints
    const MerkleTree<Sha256Hasher> t(random_frs(rng, leaves), s);
    const size_t i = leaves - 2;
    TestCS c;
    synthesize_por(c, t.prove(i), false);
    EXPECT_TRUE(c.is_satisfied());
    EXPECT_EQ(c.inputs()[1], Fr::from_u64(i));
  }
}

// SnapDeals' por_no_challenge_input: caller-supplied challenge bits, leaf, siblings and root;
// per level insert + hash, then one root constraint and no input. For an arity-8, 64-leaf SHA-256
// tree that is the PoR count less the 6 index-bit constraints, packing, and inputize:
// 250,987 − 6 − 1 − 1 = 250,979. A wrong root or challenge bit is rejected.
TEST(Por, NoChallengeInput) {
  Xoshiro256 rng(38);
  const MerkleShape shape{8, 0, 0};
  const MerkleTree<Sha256Hasher> tree(random_frs(rng, 64), shape);
  const size_t i = 45;
  const MerkleProof p = tree.prove(i);
  TestCS cs;
  const auto bits = alloc_index_bits(cs, i, 6);
  const AllocatedNum leaf = alloc_nums(cs, {p.leaf}, "leaf ")[0];
  std::vector<std::vector<AllocatedNum>> path;
  for (size_t l = 0; l < p.base.size(); ++l)
    path.push_back(alloc_nums(cs, p.base[l].siblings, "level " + std::to_string(l) + " "));
  const AllocatedNum root = alloc_nums(cs, {tree.root()}, "root ")[0];
  const size_t before = cs.num_constraints();
  por_no_challenge_input<Sha256Hasher>(cs, shape, std::span<const Boolean>(bits), leaf, path, root);
  EXPECT_EQ(cs.num_constraints() - before, 250979u);
  EXPECT_EQ(cs.num_inputs(), 1u);
  EXPECT_TRUE(cs.is_satisfied());
  cs.set_value(root.var(), tree.root() + Fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("calculated root == provided root"));
  cs.set_value(root.var(), tree.root());
  cs.set_value(bits[5].bit().var, Fr::zero());  // 45 = 0b101101: bit 5 was 1
  EXPECT_FALSE(cs.is_satisfied());
  EXPECT_THROW(
      por_no_challenge_input<Sha256Hasher>(cs, shape, std::span<const Boolean>(bits).first(5), leaf, path, root),
      std::invalid_argument);
}

}  // namespace
