// The SnapDeals (EmptySectorUpdate) circuit (issue #21 item 1): its counts against those the
// reference asserts (storage-proofs-update tests/circuit.rs, tests/circuit_poseidon.rs,
// src/gadgets.rs) and the model of filecoin-circuits.md 7.2; a partition of a sector updated here
// (random sector key and data, the new replica encoded natively) satisfies it with exactly the
// verifier's inputs, and a tampered one does not.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "filecoin/registered_proof.hpp"
#include "filecoin/snap_circuit_info.hpp"
#include "filecoin/snap_native.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "gadgets/merkle_tree.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "r1cs_compare.hpp"
#include "snap_test_shapes.hpp"

namespace cuzk::filecoin {
namespace {

using test::kGiB;
using test::kKiB;
using test::kMiB;

void expect_counts(std::span<const std::pair<uint64_t, uint64_t>> cases, SnapTreeD tree_d = SnapTreeD::kSha256) {
  for (const auto& [size, want] : cases) {
    const SnapCircuitInfo info = snap_circuit_info(SnapCircuitShape::of(size, tree_d));
    EXPECT_EQ(info.constraints, want) << sector_size_name(size);
    EXPECT_EQ(info.inputs, 5u) << sector_size_name(size);
    EXPECT_EQ(info.pce_rows, info.constraints + info.inputs);
  }
}

// tests/circuit.rs test_empty_sector_update_circuit_{1,2,4,8,16}kib (32 KiB and the larger
// sizes: SnapCircuitLarge); 5 inputs with ONE. Counting runs at ~4.5 M constraints/s.
TEST(SnapCircuit, ReferenceTestCounts) {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {1 * kKiB, 1'248'389}, {2 * kKiB, 1'705'039},  {4 * kKiB, 2'165'109},
      {8 * kKiB, 2'620'359}, {16 * kKiB, 6'300'021},
  };
  expect_counts(cases);
}

// tests/circuit_poseidon.rs (the Poseidon tree-D shape): 1 KiB and 8 KiB (32 GiB: slow).
TEST(SnapCircuit, PoseidonTreeDCounts) {
  const std::pair<uint64_t, uint64_t> cases[] = {{1 * kKiB, 32'164}, {8 * kKiB, 47'974}};
  expect_counts(cases, SnapTreeD::kPoseidon);
}

// src/gadgets.rs test_gen_challenge_bits_gadget and test_apex_por_gadget_* (the 16 / 32 KiB apex:
// SnapCircuitLarge).
TEST(SnapCircuit, GadgetCounts) {
  const uint64_t sizes[] = {1 * kKiB, 2 * kKiB,  4 * kKiB,   8 * kKiB,  16 * kKiB, 32 * kKiB,
                            8 * kMiB, 16 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB};
  const uint64_t gen[] = {568, 568, 568, 568, 568, 568, 568, 568, 4544, 5680, 5680};
  ASSERT_EQ(snap_sector_sizes().size(), std::size(sizes));
  for (size_t i = 0; i < std::size(sizes); ++i) {
    EXPECT_EQ(snap_sector_sizes()[i], sizes[i]);
    EXPECT_EQ(snap_gen_challenge_bits_constraints(SnapCircuitShape::of(sizes[i])), gen[i]) << sizes[i];
  }
  EXPECT_EQ(snap_apex_por_constraints(8, 1), 317'654u);   // <= 8 KiB
  EXPECT_EQ(snap_apex_por_constraints(16, 4), 771'448u);  // the custom 16 KiB cases
  EXPECT_EQ(snap_apex_por_constraints(8, 8), 453'797u);
}

TEST(SnapCircuit, ShapesAndSelector) {
  const SnapCircuitShape s32 = SnapCircuitShape::of(32 * kGiB);
  EXPECT_EQ(s32.partitions, 16u);
  EXPECT_EQ(s32.challenges, 86u);
  EXPECT_EQ(s32.apex_leaves, 128u);
  EXPECT_EQ(s32.h_default(), 10u);
  EXPECT_EQ(s32.tree_d_levels(), 30u - 4 - 7);
  // k | (2^index(h) << partition_bits): h = 10 is index 3.
  EXPECT_EQ(snap_selector(s32, 5, 10), Fr::from_u64(5 | (8 << 4)));
  EXPECT_THROW(snap_selector(s32, 16, 10), std::invalid_argument);
  EXPECT_THROW(snap_selector(s32, 0, 13), std::invalid_argument);
  EXPECT_EQ(SnapCircuitShape::of(1 * kKiB, SnapTreeD::kPoseidon).challenges, 10u);
  EXPECT_EQ(SnapCircuitShape::of(32 * kGiB, SnapTreeD::kPoseidon).challenges, 86u * 16);
  EXPECT_THROW(SnapCircuitShape::of(64 * kKiB), std::invalid_argument);
  EXPECT_EQ(parse_snap_sector_size("4KiB"), 4 * kKiB);
  EXPECT_EQ(parse_snap_sector_size("16M"), 16 * kMiB);
  EXPECT_THROW(parse_snap_sector_size("3KiB"), std::invalid_argument);
  // 32 + 2^34 GiB wraps to 32 GiB in 64 bits: refused, not read as 32 GiB.
  EXPECT_THROW(parse_snap_sector_size("17179869216GiB"), std::invalid_argument);
  EXPECT_EQ(parse_byte_size("17179869216GiB"), std::nullopt);
  EXPECT_EQ(parse_byte_size("32768"), 32768u);
}

// rand_xorshift's XorShiftRng (from_seed: four little-endian u32; next_u64 = two next_u32, low
// first) and blstrs's Scalar::random (four u64, the top bit masked, rejected unless below r):
// how the reference's tests draw comm_r_new.
class XorShiftRng {
 public:
  explicit XorShiftRng(const std::array<uint8_t, 16>& seed) {
    for (size_t i = 0; i < 4; ++i) {
      s_[i] = uint32_t{seed[4 * i]} | uint32_t{seed[4 * i + 1]} << 8 | uint32_t{seed[4 * i + 2]} << 16 |
              uint32_t{seed[4 * i + 3]} << 24;
    }
  }
  uint32_t next_u32() {
    const uint32_t t = s_[0] ^ (s_[0] << 11);
    s_[0] = s_[1];
    s_[1] = s_[2];
    s_[2] = s_[3];
    s_[3] = s_[3] ^ (s_[3] >> 19) ^ (t ^ (t >> 8));
    return s_[3];
  }
  uint64_t next_u64() {
    const uint64_t lo = next_u32();
    return (uint64_t{next_u32()} << 32) | lo;
  }
  Fr random_fr() {
    for (;;) {
      std::array<uint8_t, 32> b{};
      for (size_t i = 0; i < 4; ++i) {
        const uint64_t u = i == 3 ? next_u64() & (~uint64_t{0} >> 1) : next_u64();  // 255 bits
        for (size_t j = 0; j < 8; ++j) b[8 * i + j] = static_cast<uint8_t>(u >> (8 * j));
      }
      if (auto r = Fr::from_bytes_le(b)) return *r;
    }
  }

 private:
  std::array<uint32_t, 4> s_{};
};

// challenges.rs test_challenges_against_hardcoded: the first five challenges of partition k for
// comm_r_new drawn from TEST_SEED (this also fixes the Custom(1) domain tag natively).
TEST(SnapCircuit, ChallengesAgainstHardcoded) {
  XorShiftRng rng({0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d, 0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5});
  const Fr comm_r_new = rng.random_fr();
  struct Case {
    uint64_t size;
    uint32_t k;
    std::array<uint64_t, 5> want;
  };
  const Case cases[] = {
      {1 * kKiB, 0, {21, 7, 3, 31, 0}},
      {2 * kKiB, 0, {53, 51, 56, 3, 0}},
      {4 * kKiB, 0, {117, 25, 62, 0, 72}},
      {8 * kKiB, 0, {245, 140, 15, 128, 28}},
      {16 * kKiB, 0, {245, 140, 15, 128, 28}},
      {16 * kKiB, 1, {286, 308, 493, 510, 508}},
      {32 * kKiB, 0, {245, 454, 3, 400, 193}},
      {32 * kKiB, 1, {542, 666, 955, 927, 911}},
      {8 * kMiB, 0, {36085, 32783, 44060, 10950, 3731}},
      {8 * kMiB, 1, {78878, 130797, 112892, 93994, 78379}},
      {16 * kMiB, 0, {101621, 16391, 109319, 25944, 41193}},
      {16 * kMiB, 1, {209950, 163702, 175679, 224741, 197410}},
      {512 * kMiB, 0, {1019125, 116736, 706220, 59698, 799498}},
      {512 * kMiB, 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
      {512 * kMiB, 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
      {512 * kMiB, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {32 * kGiB, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {32 * kGiB, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
      {32 * kGiB, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {32 * kGiB, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
      {64 * kGiB, 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
      {64 * kGiB, 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
      {64 * kGiB, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
      {64 * kGiB, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
  };
  for (const Case& c : cases) {
    const std::vector<uint64_t> got = snap_challenges(SnapCircuitShape::of(c.size), comm_r_new, c.k);
    ASSERT_GE(got.size(), 5u);
    EXPECT_EQ(std::vector<uint64_t>(got.begin(), got.begin() + 5), std::vector<uint64_t>(c.want.begin(), c.want.end()))
        << sector_size_name(c.size) << " partition " << c.k;
  }
}

// Challenges fall in their partition's range and use every partition's digests in turn.
TEST(SnapCircuit, ChallengesStayInTheirPartition) {
  const SnapCircuitShape s = SnapCircuitShape::of(16 * kKiB);
  std::mt19937_64 rng(3);
  const Fr comm_r_new = Fr::random(rng);
  for (uint32_t k = 0; k < s.partitions; ++k) {
    const std::vector<uint64_t> cs = snap_challenges(s, comm_r_new, k);
    ASSERT_EQ(cs.size(), s.challenges);
    for (uint64_t c : cs) EXPECT_EQ(c >> s.random_bits(), k);
  }
  EXPECT_NE(snap_challenges(s, comm_r_new, 0)[0] & 0xff, snap_challenges(s, comm_r_new, 1)[0] & 0xff);
  EXPECT_THROW(snap_challenges(s, comm_r_new, 2), std::invalid_argument);
}

std::vector<Fr> random_nodes(std::mt19937_64& rng, size_t n) {
  std::vector<Fr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(Fr::random(rng));
  return v;
}

SnapPath siblings(const gadgets::MerkleProof& p, size_t levels) {
  SnapPath out;
  for (const auto* part : {&p.base, &p.sub, &p.top}) {
    for (const gadgets::MerklePathLevel& l : *part) {
      if (out.size() < levels) out.emplace_back(l.siblings.begin(), l.siblings.end());
    }
  }
  return out;
}

// A sector updated here: random sector key (the old replica) and data, tree D over the data,
// rho from phi, the new replica, and trees R of both replicas.
struct UpdatedSector {
  SnapCircuitShape shape;
  uint32_t h;
  std::vector<Fr> key, data, replica;
  std::optional<gadgets::MerkleTree<gadgets::Sha256Hasher>> tree_d;
  std::optional<gadgets::MerkleTree<gadgets::PoseidonHasher>> tree_d_poseidon, tree_r_old, tree_r_new;
  Fr comm_c, comm_d_new, comm_r_old, comm_r_new;

  UpdatedSector(const SnapCircuitShape& s, uint64_t seed) : shape(s), h(s.h_default()) {
    std::mt19937_64 rng(seed);
    key = random_nodes(rng, s.nodes);
    data = random_nodes(rng, s.nodes);
    comm_c = Fr::random(rng);
    tree_r_old.emplace(key, s.tree_r);
    comm_r_old = gadgets::PoseidonHasher::hash2(comm_c, tree_r_old->root());
    if (s.tree_d == SnapTreeD::kSha256) {
      tree_d.emplace(data, gadgets::MerkleShape{2, 0, 0});
      comm_d_new = tree_d->root();
    } else {
      tree_d_poseidon.emplace(data, s.tree_r);
      comm_d_new = tree_d_poseidon->root();
    }
    replica = snap_encode_nodes(s, snap_phi(comm_d_new, comm_r_old), h, key, data);
    tree_r_new.emplace(replica, s.tree_r);
    comm_r_new = gadgets::PoseidonHasher::hash2(comm_c, tree_r_new->root());
  }

  SnapPublicInputs public_inputs(uint32_t k) const { return {k, h, comm_r_old, comm_d_new, comm_r_new}; }

  // Partition k's witness, as the vanilla proof's Merkle proofs give it.
  SnapPartitionWitness witness(uint32_t k) const {
    SnapPartitionWitness w;
    w.selector = snap_selector(shape, k, h);
    w.comm_r_old = comm_r_old;
    w.comm_d_new = comm_d_new;
    w.comm_r_new = comm_r_new;
    w.comm_c = comm_c;
    w.root_r_old = tree_r_old->root();
    w.root_r_new = tree_r_new->root();
    if (tree_d) {
      const size_t apex_row = shape.tree_d_levels();
      const std::vector<Fr>& row = tree_d->base_row(0, apex_row);
      for (size_t i = 0; i < shape.apex_leaves; ++i) w.apex_leaves.emplace_back(row[k * shape.apex_leaves + i]);
      for (size_t i = 0; i < shape.partition_bits(); ++i) {
        w.partition_path.emplace_back(tree_d->base_row(0, apex_row + shape.apex_bits() + i)[(k >> i) ^ 1]);
      }
    }
    for (uint64_t c : snap_challenges(shape, comm_r_new, k)) {
      SnapChallengeWitness cw{key[c], data[c], replica[c], {}, {}, {}};
      cw.path_r_old = siblings(tree_r_old->prove(c), shape.tree_r_levels());
      cw.path_r_new = siblings(tree_r_new->prove(c), shape.tree_r_levels());
      cw.path_d_new = tree_d ? siblings(tree_d->prove(c), shape.tree_d_levels())
                             : siblings(tree_d_poseidon->prove(c), shape.tree_d_levels());
      w.challenges.push_back(std::move(cw));
    }
    return w;
  }
};

r1cs::TestCS synthesize(const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  r1cs::TestCS cs;
  snap_circuit(cs, shape, w);
  return cs;
}

void expect_inputs(std::span<const Fr> inputs, const std::vector<Fr>& want) {
  ASSERT_EQ(inputs.size(), want.size() + 1);
  EXPECT_EQ(inputs[0], Fr::one());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(inputs[i + 1], want[i]) << "input " << i + 1;
}

// 1 KiB, the production shape (one partition, 10 challenges; 1.25 M constraints): every
// constraint checked by TestCS, which also checks that every name is unique (6 CPU-s and 1.4 GB,
// so label slow; UpdatedSectorSatisfies1KiB checks the same witness against the matrices).
TEST(SnapCircuitLarge, UpdatedSectorSatisfies1KiBTestCS) {
  const UpdatedSector s(SnapCircuitShape::of(1 * kKiB), 11);
  const r1cs::TestCS cs = synthesize(s.shape, s.witness(0));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  EXPECT_EQ(cs.num_constraints(), 1'248'389u);
  expect_inputs(cs.inputs(), snap_public_inputs(s.shape, s.public_inputs(0)));
}

TEST(SnapCircuit, UpdatedSectorSatisfiesPoseidonTreeD) {
  const UpdatedSector s(SnapCircuitShape::of(8 * kKiB, SnapTreeD::kPoseidon), 13);
  const r1cs::TestCS cs = synthesize(s.shape, s.witness(0));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  expect_inputs(cs.inputs(), snap_public_inputs(s.shape, s.public_inputs(0)));
}

// A circuit's matrices recorded once (RecordingCS: what the PCE and the prover use); each witness
// is computed by WitnessCS and checked against every row.
class RecordedCircuit {
 public:
  explicit RecordedCircuit(const SnapCircuitShape& shape) : shape_(shape) {
    r1cs::RecordingCS rec;
    snap_circuit(rec, shape, SnapPartitionWitness::blank(shape));
    r_ = std::move(rec).compact();
  }

  // The first circuit row the witness does not satisfy, or -1; the inputs in `inputs`.
  int64_t first_unsatisfied(const SnapPartitionWitness& w, std::vector<Fr>* inputs = nullptr) const {
    r1cs::WitnessCS cs;
    snap_circuit(cs, shape_, w);
    const std::vector<Fr> z = cs.z();
    EXPECT_EQ(z.size(), r_.num_columns());
    auto dot = [&](const r1cs::CompactMatrix& m, size_t row) {
      Fr sum = Fr::zero();
      for (uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) sum += r_.coeffs[m.coeff[k]] * z[m.col[k]];
      return sum;
    };
    if (inputs != nullptr) *inputs = cs.inputs();
    for (size_t i = 0; i < r_.num_constraints; ++i) {
      if (dot(r_.a, i) * dot(r_.b, i) != dot(r_.c, i)) return static_cast<int64_t>(i);
    }
    return -1;
  }
  size_t num_constraints() const { return r_.num_constraints; }

 private:
  SnapCircuitShape shape_;
  r1cs::CompactR1cs r_;
};

TEST(SnapCircuit, UpdatedSectorSatisfies1KiB) {
  const UpdatedSector s(SnapCircuitShape::of(1 * kKiB), 11);
  const RecordedCircuit rc(s.shape);
  std::vector<Fr> inputs;
  EXPECT_EQ(rc.first_unsatisfied(s.witness(0), &inputs), -1);
  expect_inputs(inputs, snap_public_inputs(s.shape, s.public_inputs(0)));
}

// A small shape with two partitions (1 KiB nodes, 2 apex leaves, 2 challenges; ~0.36 M
// constraints) for the partition path, the partition bits of every challenge, and tampering.
class SnapTwoPartitions : public ::testing::Test {
 protected:
  static SnapCircuitShape shape() { return test::snap_two_partitions(); }
  static void SetUpTestSuite() {
    circuit_ = new RecordedCircuit(shape());
    sector_ = new UpdatedSector(shape(), 12);
  }
  static void TearDownTestSuite() {
    delete circuit_;
    delete sector_;
  }
  static int64_t first_unsatisfied(const SnapPartitionWitness& w, std::vector<Fr>* inputs = nullptr) {
    return circuit_->first_unsatisfied(w, inputs);
  }

  static RecordedCircuit* circuit_;
  static UpdatedSector* sector_;
};
RecordedCircuit* SnapTwoPartitions::circuit_ = nullptr;
UpdatedSector* SnapTwoPartitions::sector_ = nullptr;

TEST_F(SnapTwoPartitions, EveryPartitionSatisfies) {
  for (uint32_t k = 0; k < 2; ++k) {
    std::vector<Fr> inputs;
    EXPECT_EQ(first_unsatisfied(sector_->witness(k), &inputs), -1) << "partition " << k;
    expect_inputs(inputs, snap_public_inputs(shape(), sector_->public_inputs(k)));
  }
}

TEST_F(SnapTwoPartitions, TamperedWitnessFails) {
  const SnapPartitionWitness good = sector_->witness(1);
  SnapPartitionWitness w = good;
  w.challenges[1].path_r_old[0][3] = *w.challenges[1].path_r_old[0][3] + Fr::one();
  EXPECT_NE(first_unsatisfied(w), -1) << "tree R old sibling";
  w = good;
  w.challenges[0].path_d_new[2][0] = Fr::from_u64(7);
  EXPECT_NE(first_unsatisfied(w), -1) << "tree D sibling";
  w = good;
  w.challenges[0].leaf_d_new = *w.challenges[0].leaf_d_new + Fr::one();
  w.challenges[0].leaf_r_new.reset();  // else the sanity check throws first
  EXPECT_NE(first_unsatisfied(w), -1) << "data leaf";
  w = good;
  w.apex_leaves[1] = Fr::from_u64(5);
  EXPECT_NE(first_unsatisfied(w), -1) << "apex leaf";
  w = good;
  w.partition_path[0] = Fr::zero();
  EXPECT_NE(first_unsatisfied(w), -1) << "partition path";
  w = good;
  w.comm_c = Fr::one();
  EXPECT_NE(first_unsatisfied(w), -1) << "comm_c";
  w = good;
  w.comm_d_new = Fr::one();  // phi, hence rho, changes: the new leaves are not the encoding
  for (SnapChallengeWitness& c : w.challenges) c.leaf_r_new.reset();
  EXPECT_NE(first_unsatisfied(w), -1) << "comm_d_new";
  // Partition 0's selector with partition 1's proofs: its challenges are elsewhere.
  w = good;
  w.selector = snap_selector(shape(), 0, sector_->h);
  for (SnapChallengeWitness& c : w.challenges) c.leaf_r_new.reset();  // rho changes with the challenges
  EXPECT_NE(first_unsatisfied(w), -1) << "partition index";
  // The sanity check of the reference: a given leaf_r_new must be the encoding.
  w = good;
  w.challenges[0].leaf_r_new = Fr::zero();
  EXPECT_THROW(first_unsatisfied(w), std::invalid_argument);
}

TEST(SnapCircuit, WitnessOfTheWrongShapeIsRejected) {
  const SnapCircuitShape shape = SnapCircuitShape::of(16 * kKiB);
  auto synth = [&](const SnapPartitionWitness& w) {
    r1cs::CountingCS cs;
    snap_circuit(cs, shape, w);
  };
  SnapPartitionWitness w = SnapPartitionWitness::blank(shape);
  w.challenges.pop_back();
  EXPECT_THROW(synth(w), std::invalid_argument);
  w = SnapPartitionWitness::blank(shape);
  w.challenges[1].path_d_new.pop_back();
  EXPECT_THROW(synth(w), std::invalid_argument);
  w = SnapPartitionWitness::blank(shape);
  w.challenges[0].path_r_new[1].push_back(std::nullopt);
  EXPECT_THROW(synth(w), std::invalid_argument);
  w = SnapPartitionWitness::blank(shape);
  w.apex_leaves.pop_back();
  EXPECT_THROW(synth(w), std::invalid_argument);
  w = SnapPartitionWitness::blank(shape);
  w.partition_path.clear();
  EXPECT_THROW(synth(w), std::invalid_argument);
  w = SnapPartitionWitness::blank(shape);
  w.selector = Fr::from_u64(1 | (3 << 1));  // two h_select bits
  EXPECT_THROW(synth(w), std::invalid_argument);
  w.selector = Fr::from_u64(1 | (1 << 7));  // a bit above h_select
  EXPECT_THROW(synth(w), std::invalid_argument);
  w.selector = Fr::from_u64(2 | (1 << 2));  // partition 2 of 2: its bit is above k's one bit
  EXPECT_THROW(synth(w), std::invalid_argument);
}

TEST(SnapCircuit, RecordingAndCountingAgree) {
  const SnapCircuitShape shape = SnapCircuitShape::of(1 * kKiB, SnapTreeD::kPoseidon);
  r1cs::RecordingCS rec;
  snap_circuit(rec, shape, SnapPartitionWitness::blank(shape));
  rec.finalize();
  const r1cs::CompactR1cs r = std::move(rec).compact();
  const SnapCircuitInfo info = snap_circuit_info(shape);
  EXPECT_EQ(info.pce_rows, r.num_constraints);
  EXPECT_EQ(info.inputs, r.num_inputs);
  EXPECT_EQ(info.aux, r.num_aux);
  EXPECT_EQ(info.nnz_a, r.a.col.size());
  EXPECT_EQ(info.nnz_b, r.b.col.size());
  EXPECT_EQ(info.nnz_c, r.c.col.size());
}

// The challenges, the apex hashes (in jobs of 3, one of them across the tree's rows, and of the
// default 8) and the partition path recorded concurrently and merged give exactly the sequential
// recording (SHA-256 tree D with 8 apex leaves, with 2 and a partition path, and the Poseidon tree
// D). The stats account for every constraint: head, jobs, then the input constraints.
TEST(SnapCircuit, ParallelRecordingEqualsSequential) {
  ThreadPool pool(3);
  const SnapCircuitShape kib2 = SnapCircuitShape::of(2 * kKiB);
  for (const SnapCircuitShape& shape :
       {kib2, test::snap_two_partitions(), SnapCircuitShape::of(1 * kKiB, SnapTreeD::kPoseidon)}) {
    SCOPED_TRACE(shape.describe());
    const r1cs::CompactR1cs seq = record_snap_circuit(shape);
    std::vector<size_t> per_job{kSnapApexHashesPerJob};
    if (shape.apex_leaves == kib2.apex_leaves) per_job = {3, kSnapApexHashesPerJob};
    for (const size_t per : per_job) {
      SCOPED_TRACE("apex hashes per job " + std::to_string(per));
      SnapRecordStats st;
      cuzk::test::expect_same_matrices(record_snap_circuit_parallel(shape, pool, &st, per), seq);
      const size_t hashes = shape.tree_d == SnapTreeD::kSha256 ? shape.apex_leaves - 1 : 0;
      const size_t apex_jobs = hashes == 0 ? 0 : (hashes - 1 + per - 1) / per + 1;
      EXPECT_EQ(st.jobs.size(), apex_jobs + shape.challenges);
      uint64_t sum = st.head_constraints + seq.num_inputs;
      for (const SnapRecordStats::Job& j : st.jobs) sum += j.constraints;
      EXPECT_EQ(sum, seq.num_constraints);
    }
  }
  EXPECT_THROW(record_snap_circuit_parallel(kib2, pool, nullptr, 0), std::invalid_argument);
}

// Label slow from here: counts of 6-85 million constraints, seconds to minutes each.
TEST(SnapCircuitLarge, ReferenceTestCounts) {
  const std::pair<uint64_t, uint64_t> cases[] = {{32 * kKiB, 6'760'091}};
  expect_counts(cases);
  EXPECT_EQ(snap_apex_por_constraints(128, 2), 5'808'515u);  // 16 / 32 KiB
}

// The model of filecoin-circuits.md 7.2.
TEST(SnapCircuitLarge, ModelCount8MiB) {
  EXPECT_EQ(snap_circuit_info(SnapCircuitShape::of(8 * kMiB)).constraints, 10'007'503u);
}

// The asserted 32 GiB count, the model's 512 MiB and 64 GiB.
TEST(SnapCircuitLarge, Counts) {
  EXPECT_EQ(snap_circuit_info(SnapCircuitShape::of(32 * kGiB)).constraints, 81'049'499u);
  EXPECT_EQ(snap_circuit_info(SnapCircuitShape::of(512 * kMiB)).constraints, 57'450'479u);
  EXPECT_EQ(snap_circuit_info(SnapCircuitShape::of(64 * kGiB)).constraints, 85'006'101u);
}

TEST(SnapCircuitLarge, PoseidonTreeD32GiB) {
  EXPECT_EQ(snap_circuit_info(SnapCircuitShape::of(32 * kGiB, SnapTreeD::kPoseidon)).constraints, 22'305'906u);
}

}  // namespace
}  // namespace cuzk::filecoin
