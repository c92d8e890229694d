// SnapDeals vanilla proofs (issue #21 items 2 and 3): the bincode PartitionProof parser and the
// validator against sectors updated natively here (snap_vanilla_gen.hpp) and synthetic sets
// (snap_synthetic.hpp); hostile input (truncated, oversized lengths, unknown variants,
// non-canonical elements, wrong arities, flipped bytes, tampered proofs) refused naming the
// partition and the field; the witness made from parsed proofs satisfying the circuit with exactly
// the verifier's public inputs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "filecoin/periodic_tree.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sector_cache.hpp"
#include "filecoin/snap_error.hpp"
#include "filecoin/snap_native.hpp"
#include "filecoin/snap_request_file.hpp"
#include "filecoin/snap_synthetic.hpp"
#include "filecoin/snap_vanilla_gen.hpp"
#include "gadgets/poseidon_native.hpp"
#include "snap_test_shapes.hpp"

namespace cuzk::filecoin {
namespace {

using test::kGiB;
using test::kKiB;

// A sector key (random canonical nodes) updated with random data.
SnapUpdate random_update(const SnapCircuitShape& shape, uint64_t seed) {
  Xoshiro256 rng(seed);
  std::vector<Bytes32> key(shape.nodes);
  for (Bytes32& b : key) b = random_fr_bytes(rng);
  return snap_update_sector(shape, std::move(key), random_sector_data(shape.nodes, seed + 1), random_fr_bytes(rng));
}

std::vector<std::vector<uint8_t>> blobs_of(const std::vector<SnapPartitionProof>& proofs) {
  std::vector<std::vector<uint8_t>> out;
  for (const auto& p : proofs) out.push_back(to_bincode(p));
  return out;
}

template <class F>
SnapVanillaError expect_snap_error(F&& f) {
  try {
    f();
  } catch (const SnapVanillaError& e) {
    return e;
  }
  ADD_FAILURE() << "no SnapVanillaError";
  return SnapVanillaError(99, "", "");
}

// The witness of every partition, from parsed bytes, satisfies the circuit (TestCS checks every
// constraint) with exactly snap_public_inputs.
void expect_satisfies(const SnapRequestContext& ctx, const std::vector<std::vector<uint8_t>>& blobs) {
  const std::vector<SnapPartitionProof> proofs = parse_snap_vanilla(ctx, blobs);
  for (uint32_t k = 0; k < proofs.size(); ++k) {
    r1cs::TestCS cs;
    snap_circuit(cs, ctx.shape, snap_partition_witness(ctx, proofs[k], k));
    EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt) << "partition " << k;
    const std::vector<Fr> want = snap_public_inputs(ctx.shape, snap_request_public_inputs(ctx, k));
    const std::span<const Fr> inputs = cs.inputs();
    ASSERT_EQ(inputs.size(), want.size() + 1);
    EXPECT_EQ(inputs[0], Fr::one());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(inputs[i + 1], want[i]) << "partition " << k << " input " << i;
  }
}

class SnapVanilla : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    one_ = new SnapUpdate(random_update(SnapCircuitShape::of(1 * kKiB), 21));
    one_proofs_ = new std::vector<SnapPartitionProof>(snap_vanilla_proofs(*one_));
    two_ = new SnapUpdate(random_update(test::snap_two_partitions(), 22));
    two_proofs_ = new std::vector<SnapPartitionProof>(snap_vanilla_proofs(*two_));
  }
  static void TearDownTestSuite() {
    delete one_;
    delete one_proofs_;
    delete two_;
    delete two_proofs_;
  }
  // Validating the 1 KiB sector's one partition, tampered by `edit`.
  static SnapVanillaError tampered(const std::function<void(SnapPartitionProof&)>& edit) {
    std::vector<SnapPartitionProof> p = *one_proofs_;
    edit(p[0]);
    return expect_snap_error([&] { validate_snap_vanilla(one_->context(), p); });
  }
  static SnapVanillaError parse_error(const std::vector<uint8_t>& bytes, size_t partition = 0) {
    return expect_snap_error([&] { parse_snap_partition_proof(bytes, partition); });
  }

  static SnapUpdate* one_;
  static std::vector<SnapPartitionProof>* one_proofs_;
  static SnapUpdate* two_;
  static std::vector<SnapPartitionProof>* two_proofs_;
};
SnapUpdate* SnapVanilla::one_ = nullptr;
std::vector<SnapPartitionProof>* SnapVanilla::one_proofs_ = nullptr;
SnapUpdate* SnapVanilla::two_ = nullptr;
std::vector<SnapPartitionProof>* SnapVanilla::two_proofs_ = nullptr;

TEST_F(SnapVanilla, LayoutAndRoundTrip) {
  const SnapPartitionProof& p = one_proofs_->at(0);
  ASSERT_EQ(p.apex_leafs.size(), 8u);
  ASSERT_EQ(p.challenge_proofs.size(), 10u);
  // 1 KiB: tree R 8-4-0 (one base level, a sub level), tree D 5 binary levels.
  const SnapChallengeProof& c = p.challenge_proofs[0];
  EXPECT_EQ(c.proof_r_old.shape, MerkleShape::kSub);
  EXPECT_EQ(c.proof_d_new.shape, MerkleShape::kSingle);
  EXPECT_EQ(c.proof_d_new.base.size(), 5u);
  // Sizes by the layout: comm_c, 8 apex leaves; per challenge two Sub proofs (tag, base path of one
  // level with 7 siblings, sub path of one level with 3, root, leaf) and a Single proof.
  const size_t sub = 4 + (8 + 8 + 7 * 32 + 8) + (8 + 8 + 3 * 32 + 8) + 64;
  const size_t single = 4 + 64 + 8 + 5 * (8 + 32 + 8);
  const std::vector<uint8_t> bytes = to_bincode(p);
  EXPECT_EQ(bytes.size(), 32 + 8 + 8 * 32 + 8 + 10 * (2 * sub + single));
  EXPECT_TRUE(std::equal(p.comm_c.begin(), p.comm_c.end(), bytes.begin()));
  EXPECT_EQ(bytes[32], 8);  // apex_leafs: u64 length 8
  const SnapPartitionProof back = parse_snap_partition_proof(bytes, 0);
  EXPECT_EQ(to_bincode(back), bytes);
  EXPECT_EQ(back.challenge_proofs[9].proof_r_new.leaf, p.challenge_proofs[9].proof_r_new.leaf);
}

TEST_F(SnapVanilla, NativeUpdateIsTheEncoding) {
  // The update's commitments are what the reference's formulas give, and every replica node is
  // the encoding (snap_update_from_nodes recomputes and refuses otherwise).
  const SnapCircuitShape& s = one_->shape;
  std::vector<Bytes32> key(s.nodes), data(s.nodes), replica = one_->replica();
  for (uint64_t i = 0; i < s.nodes; ++i) {
    key[i] = one_->tree_r_old->leaf(i);
    data[i] = one_->tree_d_new->leaf(i);
  }
  const SnapUpdate again = snap_update_from_nodes(s, key, data, replica, one_->comm_c);
  EXPECT_EQ(again.comm_r_new, one_->comm_r_new);
  const Fr phi = snap_phi(to_fr(one_->comm_d_new), to_fr(one_->comm_r_old));
  EXPECT_EQ(to_fr(replica[31]), to_fr(key[31]) + to_fr(data[31]) * snap_rho(phi, 1));  // h = 1: node 31 is high
  replica[3][0] ^= 1;
  EXPECT_THROW(snap_update_from_nodes(s, key, data, replica, one_->comm_c), std::invalid_argument);
}

TEST_F(SnapVanilla, ParsedProofsSatisfyTheCircuit) {
  expect_satisfies(two_->context(), blobs_of(*two_proofs_));
}

TEST_F(SnapVanilla, TruncatedAndTrailingInputRefused) {
  const std::vector<uint8_t> bytes = to_bincode(one_proofs_->at(0));
  for (size_t n = 0; n < bytes.size(); n += 37) {
    const SnapVanillaError e = parse_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n), 3);
    EXPECT_EQ(e.partition(), 3u);
    EXPECT_NE(std::string(e.what()).find("vanilla_proofs[3] (partition 3)"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_NE(std::string(parse_error(longer).what()).find("after the end"), std::string::npos);
}

TEST_F(SnapVanilla, OversizedLengthsAndUnknownVariantsRefused) {
  std::vector<uint8_t> bytes = to_bincode(one_proofs_->at(0));
  std::vector<uint8_t> b = bytes;
  b[32 + 7] = 0x10;  // apex_leafs: 2^60 elements
  EXPECT_EQ(parse_error(b).field(), "apex_leafs");
  b = bytes;
  const size_t cps = 32 + 8 + 8 * 32;  // the challenge_proofs length
  b[cps + 5] = 1;
  EXPECT_EQ(parse_error(b).field(), "challenge_proofs");
  b = bytes;
  b[cps + 8] = 3;  // challenge 0's proof_r_old variant
  const SnapVanillaError e = parse_error(b);
  EXPECT_EQ(e.field(), "challenge_proofs[0].proof_r_old.data");
  EXPECT_NE(e.problem().find("unknown MerkleProof variant 3"), std::string::npos);
  b = bytes;
  b[cps + 8 + 4 + 7] = 0x7f;  // its base path's length
  EXPECT_EQ(parse_error(b).field(), "challenge_proofs[0].proof_r_old.data.Sub.base_proof.path");
}

TEST_F(SnapVanilla, NonCanonicalElementsRefused) {
  const Bytes32 big = [] {
    Bytes32 b;
    b.fill(0xff);
    return b;
  }();
  EXPECT_EQ(tampered([&](SnapPartitionProof& p) { p.comm_c = big; }).field(), "comm_c");
  EXPECT_EQ(tampered([&](SnapPartitionProof& p) { p.apex_leafs[5] = big; }).field(), "apex_leafs[5]");
  const SnapVanillaError e =
      tampered([&](SnapPartitionProof& p) { p.challenge_proofs[4].proof_d_new.base[2].hashes[0] = big; });
  EXPECT_EQ(e.field(), "challenge_proofs[4].proof_d_new.data.Single.path.path[2].hashes[0]");
  EXPECT_NE(e.problem().find("canonical"), std::string::npos);
  EXPECT_EQ(tampered([&](SnapPartitionProof& p) { p.challenge_proofs[1].proof_r_new.leaf = big; }).field(),
            "challenge_proofs[1].proof_r_new.data.Sub.leaf");
}

TEST_F(SnapVanilla, WrongShapesRefused) {
  EXPECT_EQ(tampered([](SnapPartitionProof& p) { p.apex_leafs.pop_back(); }).field(), "apex_leafs");
  EXPECT_EQ(tampered([](SnapPartitionProof& p) { p.challenge_proofs.pop_back(); }).field(), "challenge_proofs");
  EXPECT_EQ(
      tampered([](SnapPartitionProof& p) { p.challenge_proofs[2].proof_r_old.base[0].hashes.pop_back(); }).field(),
      "challenge_proofs[2].proof_r_old.data.Sub.base_proof.path[0].hashes");
  EXPECT_EQ(tampered([](SnapPartitionProof& p) { p.challenge_proofs[2].proof_r_new.sub[0].index = 4; }).field(),
            "challenge_proofs[2].proof_r_new.data.Sub.sub_proof.path[0].index");
  EXPECT_EQ(tampered([](SnapPartitionProof& p) { p.challenge_proofs[0].proof_d_new.base.pop_back(); }).field(),
            "challenge_proofs[0].proof_d_new.data.Single.path.path");
  EXPECT_EQ(
      tampered([](SnapPartitionProof& p) { p.challenge_proofs[6].proof_r_old.shape = MerkleShape::kSingle; }).field(),
      "challenge_proofs[6].proof_r_old.data");
  EXPECT_EQ(
      tampered([](SnapPartitionProof& p) { p.challenge_proofs[6].proof_d_new.shape = MerkleShape::kSub; }).field(),
      "challenge_proofs[6].proof_d_new.data");
}

TEST_F(SnapVanilla, FlippedBytesRefused) {
  // A byte of a tree-D sibling below the apex leaves: the path no longer reaches the apex leaf.
  SnapVanillaError e =
      tampered([](SnapPartitionProof& p) { p.challenge_proofs[3].proof_d_new.base[0].hashes[0][7] ^= 4; });
  EXPECT_EQ(e.field(), "challenge_proofs[3].proof_d_new.data.Single.path.path[2]");
  EXPECT_NE(e.problem().find("apex_leafs"), std::string::npos);
  // In the apex tree (level 3 of 5): not the apex tree's node.
  e = tampered([](SnapPartitionProof& p) { p.challenge_proofs[3].proof_d_new.base[3].hashes[0][0] ^= 1; });
  EXPECT_EQ(e.field(), "challenge_proofs[3].proof_d_new.data.Single.path.path[3].hashes[0]");
  // Tree R: the leaf's path hashes elsewhere.
  e = tampered([](SnapPartitionProof& p) { p.challenge_proofs[8].proof_r_old.base[0].hashes[6][1] ^= 0x10; });
  EXPECT_EQ(e.field(), "challenge_proofs[8].proof_r_old.data.Sub.root");
  // A root that differs from challenge 0's.
  e = tampered([](SnapPartitionProof& p) { p.challenge_proofs[1].proof_r_new.root[0] ^= 1; });
  EXPECT_EQ(e.field(), "challenge_proofs[1].proof_r_new.data.Sub.root");
  // An apex leaf.
  e = tampered([](SnapPartitionProof& p) { p.apex_leafs[0][3] ^= 1; });
  EXPECT_NE(e.field().find("proof_d_new.data.Single.path.path["), std::string::npos) << e.what();
  // comm_c: Poseidon2(comm_c, root) is no longer comm_r_old.
  e = tampered([](SnapPartitionProof& p) { p.comm_c[0] ^= 1; });
  EXPECT_EQ(e.field(), "comm_c");
}

TEST_F(SnapVanilla, WrongChallengesAndPartitionsRefused) {
  // Proofs of the right nodes in the wrong order.
  SnapVanillaError e = tampered([](SnapPartitionProof& p) { std::swap(p.challenge_proofs[1], p.challenge_proofs[2]); });
  EXPECT_EQ(e.field(), "challenge_proofs[1].proof_r_old.data.Sub.leaf");
  EXPECT_NE(e.problem().find("the challenge is node"), std::string::npos);
  // Partition 1's proof in partition 0's place.
  std::vector<SnapPartitionProof> p = *two_proofs_;
  std::swap(p[0], p[1]);
  e = expect_snap_error([&] { validate_snap_vanilla(two_->context(), p); });
  EXPECT_EQ(e.partition(), 0u);
  // A partition path that differs between the challenges of partition 1.
  p = *two_proofs_;
  p[1].challenge_proofs[1].proof_d_new.base.back().hashes[0][2] ^= 1;
  e = expect_snap_error([&] { validate_snap_vanilla(two_->context(), p); });
  EXPECT_EQ(e.partition(), 1u);
  EXPECT_EQ(e.field(), "challenge_proofs[1].proof_d_new.data.Single.path.path[4].hashes[0]");
  EXPECT_NE(e.problem().find("partition path"), std::string::npos);
}

TEST_F(SnapVanilla, WrongEncodingRefused) {
  // Trees that are all consistent, but the new replica is not the encoding (rho left out).
  const SnapCircuitShape& s = one_->shape;
  std::vector<Bytes32> key(s.nodes), bad(s.nodes);
  for (uint64_t i = 0; i < s.nodes; ++i) {
    key[i] = one_->tree_r_old->leaf(i);
    bad[i] = to_bytes(to_fr(key[i]) + to_fr(one_->tree_d_new->leaf(i)));
  }
  const DenseTree r_new(snap_tree_r_layout(s), bad);
  SnapRequestContext ctx = one_->context();
  ctx.comm_r_new = to_bytes(gadgets::poseidon_hash(2, std::vector<Fr>{to_fr(one_->comm_c), to_fr(r_new.root())}));
  const std::vector<SnapPartitionProof> p = {
      build_snap_partition_proof(s, *one_->tree_r_old, *one_->tree_d_new, r_new, one_->comm_c, ctx.comm_r_new, 0)};
  const SnapVanillaError e = expect_snap_error([&] { validate_snap_vanilla(ctx, p); });
  EXPECT_EQ(e.field(), "challenge_proofs[0].proof_r_new");
  EXPECT_NE(e.problem().find("encoding"), std::string::npos);
}

TEST_F(SnapVanilla, RequestFieldsChecked) {
  SnapRequestContext ctx = one_->context();
  EXPECT_THROW(validate_snap_vanilla(ctx, {}), std::invalid_argument);  // 0 of 1 partitions
  ctx.comm_r_old.fill(0xff);
  try {
    validate_snap_vanilla(ctx, *one_proofs_);
    ADD_FAILURE() << "a non-canonical comm_r_old was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("comm_r_old"), std::string::npos) << e.what();
  }
  ctx = one_->context();
  ctx.comm_d_new[0] ^= 1;  // every tree-D root differs
  EXPECT_EQ(expect_snap_error([&] { validate_snap_vanilla(ctx, *one_proofs_); }).field(),
            "challenge_proofs[0].proof_d_new.data.Single.root");
  ctx = one_->context();
  ctx.h = 2;  // not in hs = [1; 6]
  EXPECT_THROW(validate_snap_vanilla(ctx, *one_proofs_), std::invalid_argument);
}

TEST_F(SnapVanilla, RequestFileRoundTrip) {
  SnapRequestFile f;
  f.proof = &registered_update_proof(0);
  f.sector_id = 7;
  f.miner_id = 1000;
  f.comm_r_old = one_->comm_r_old;
  f.comm_d_new = one_->comm_d_new;
  f.comm_r_new = one_->comm_r_new;
  f.vanilla_proofs = blobs_of(*one_proofs_);
  const SnapRequestFile back = parse_snap_request_file(to_json(f));
  EXPECT_EQ(back.proof, f.proof);
  EXPECT_EQ(back.sector_id, 7u);
  EXPECT_EQ(back.comm_r_new, f.comm_r_new);
  EXPECT_EQ(back.vanilla_proofs, f.vanilla_proofs);
  EXPECT_EQ(back.context().shape.nodes, 64u);
  EXPECT_THROW(parse_snap_request_file("{}"), std::invalid_argument);
  std::string bad = to_json(f);
  bad.replace(bad.find("StackedDrg2KiBV1"), 16, "StackedDrg4KiBV1");
  EXPECT_THROW(parse_snap_request_file(bad), std::invalid_argument);
  EXPECT_EQ(registered_update_proof(3).name, "StackedDrg32GiBV1");
  EXPECT_EQ(update_proof_of_size(64 * kGiB).id, 4u);
  EXPECT_THROW(registered_update_proof(5), std::invalid_argument);
}

// A periodic tree is the dense tree over its leaves (roots and proofs), for binary and 8-8-2 trees.
TEST(PeriodicTree, EqualsTheDenseTree) {
  Xoshiro256 rng(5);
  std::vector<Bytes32> pattern(8 * 4);
  for (Bytes32& b : pattern) b = random_fr_bytes(rng);
  const PeriodicTree::Leaf leaf = [&](uint64_t block, uint64_t i) {
    Bytes32 b = pattern[i];
    b[0] ^= static_cast<uint8_t>(block);
    return b;
  };
  for (const TreeLayout& layout :
       {snap_tree_d_layout(SnapCircuitShape::of(8 * kKiB)), snap_tree_r_layout(SnapCircuitShape::of(32 * kKiB))}) {
    const uint64_t n = layout.leaves(), block = 64, period = 8;
    std::vector<Bytes32> leaves(n);
    for (uint64_t i = 0; i < n; ++i) leaves[i] = leaf(i / block, i % period);
    const DenseTree dense(layout, leaves);
    const PeriodicTree periodic(layout, block, period, leaf);
    EXPECT_EQ(periodic.root(), dense.root());
    for (uint64_t i : {uint64_t{0}, uint64_t{9}, n / 2 + 3, n - 1}) {
      const MerkleProof a = periodic.prove(i), b = dense.prove(i);
      EXPECT_EQ(a.leaf, b.leaf);
      EXPECT_EQ(a.base.size(), b.base.size());
      EXPECT_EQ(merkle_proof_root(a, layout.hasher), dense.root()) << i;
      for (size_t l = 0; l < a.base.size(); ++l) EXPECT_EQ(a.base[l].hashes, b.base[l].hashes) << i << " " << l;
    }
  }
  EXPECT_THROW(PeriodicTree(snap_tree_d_layout(SnapCircuitShape::of(8 * kKiB)), 8, 16, leaf), std::invalid_argument);
}

TEST(SnapSynthetic, SmallSetsValidateAndSatisfyTheCircuit) {
  for (uint64_t size : {2 * kKiB, 16 * kKiB}) {
    const SnapSyntheticSet set = synthetic_snap_vanilla(SnapCircuitShape::of(size), 3);
    EXPECT_NO_THROW(validate_snap_vanilla(set.context, set.proofs)) << size;
  }
  const SnapSyntheticSet set = synthetic_snap_vanilla(test::snap_two_partitions(), 4);
  expect_satisfies(set.context, blobs_of(set.proofs));
  // Deterministic in the seed.
  EXPECT_EQ(to_bincode(synthetic_snap_vanilla(test::snap_two_partitions(), 4).proofs[1]), to_bincode(set.proofs[1]));
  EXPECT_NE(synthetic_snap_vanilla(test::snap_two_partitions(), 5).context.comm_r_new, set.context.comm_r_new);
}

// The benchmark set: 16 partitions x 86 challenges of a 32 GiB sector, through bincode and the
// validator (~9 CPU-s: building tree R new's 1024 blocks, then 1376 challenges' paths checked;
// so slow).
TEST(SnapVanillaLarge, Synthetic32GiBValidates) {
  const SnapSyntheticSet set = synthetic_snap_vanilla(SnapCircuitShape::of(32 * kGiB), 1);
  ASSERT_EQ(set.proofs.size(), 16u);
  const std::vector<SnapPartitionProof> parsed = parse_snap_vanilla(set.context, blobs_of(set.proofs));
  EXPECT_EQ(parsed[15].challenge_proofs.size(), 86u);
  EXPECT_EQ(parsed[15].challenge_proofs[0].proof_d_new.base.size(), 30u);
  EXPECT_EQ(parsed[15].challenge_proofs[0].proof_r_new.shape, MerkleShape::kSub);
  // The challenges are partition 15's: its index in the top 4 bits of every challenged node.
  EXPECT_EQ(parsed[15].challenge_proofs[85].proof_r_old.path_index(8, 8, 0) >> 26, 15u);
}

// A 2 KiB sector sealed natively, its replica kept as the sector key in a cache directory, updated
// with random data, its vanilla proofs written to a request file, read back, validated and
// satisfying the production circuit (1.7 M constraints under TestCS: ~10 CPU-s, so slow).
TEST(SnapVanillaLarge, SealedSectorEndToEnd) {
  const RegisteredSealProof& seal = default_seal_proof(2 * kKiB);
  SealParams sp;
  sp.sector_id = 4;
  sp.ticket.fill(1);
  sp.seed.fill(2);
  sp.keep_tree_r = true;
  const SealResult sealed = seal_sector(seal, random_sector_data(seal.shape.nodes, 9), sp);
  std::vector<Bytes32> key(seal.shape.nodes);
  for (uint64_t i = 0; i < key.size(); ++i) key[i] = sealed.tree_r->leaf(i);
  const std::string dir = std::filesystem::temp_directory_path() / ("cuzk-snap-" + std::to_string(::getpid()));
  write_sealed_cache(
      dir, {&seal, 4, sp.prover_id, sealed.c1.comm_d, sealed.c1.comm_r, sealed.comm_c, sealed.comm_r_last}, key);
  const SealedSectorCache cache = read_sealed_cache(dir);
  const std::vector<Bytes32> key_back = read_sector_key(dir, cache);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(key_back, key);

  const SnapCircuitShape shape = SnapCircuitShape::of(2 * kKiB);
  const SnapUpdate u = snap_update_sector(shape, key_back, random_sector_data(shape.nodes, 10), cache.comm_c);
  EXPECT_EQ(u.comm_r_old, sealed.c1.comm_r);  // the sealed sector's comm_r is the update's comm_r_old
  SnapRequestFile f;
  f.proof = &update_proof_of_size(2 * kKiB);
  f.comm_r_old = u.comm_r_old;
  f.comm_d_new = u.comm_d_new;
  f.comm_r_new = u.comm_r_new;
  f.vanilla_proofs = blobs_of(snap_vanilla_proofs(u));
  const SnapRequestFile back = parse_snap_request_file(to_json(f));
  expect_satisfies(back.context(), back.vanilla_proofs);

  // Tampered: refused naming the partition and the field.
  std::vector<std::vector<uint8_t>> blobs = back.vanilla_proofs;
  blobs[0][40] ^= 1;  // apex_leafs[0]
  const SnapVanillaError e = expect_snap_error([&] { parse_snap_vanilla(back.context(), blobs); });
  EXPECT_EQ(e.partition(), 0u);
  EXPECT_NE(std::string(e.what()).find("vanilla_proofs[0] (partition 0): challenge_proofs["), std::string::npos)
      << e.what();
}

}  // namespace
}  // namespace cuzk::filecoin
