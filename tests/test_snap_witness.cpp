// The SnapDeals native witness (issue #21 item 5; snap_witness.hpp and the gadget pieces under it:
// sha256_hash_witness.hpp, por_witness.hpp's insert-and-hash and select, the Custom(1) Poseidon
// trace) equals what the circuit allocates under WitnessCS, value for value: for valid partitions
// (2 KiB and a two-partition shape, from synthetic vanilla sets), for arbitrary values (the
// Poseidon tree-D shapes, a 32 GiB-shaped partition with fewer challenges: slow), and for tampered
// vanilla proofs, whose witness then fails the recorded constraints.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <span>

#include "filecoin/registered_proof.hpp"
#include "filecoin/snap_circuit_info.hpp"
#include "filecoin/snap_native.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "filecoin/snap_synthetic.hpp"
#include "filecoin/snap_witness.hpp"
#include "gadgets/por.hpp"
#include "gadgets/por_witness.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/poseidon_witness.hpp"
#include "gadgets/sha256_hash_witness.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/witness_cs.hpp"
#include "snap_test_shapes.hpp"

namespace cuzk::filecoin {
namespace {

using test::kGiB;
using test::kKiB;
using test::kMiB;

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;

std::vector<Fr> aux_from(const r1cs::WitnessCS& cs, size_t first) {
  return {cs.aux().begin() + static_cast<std::ptrdiff_t>(first), cs.aux().end()};
}

TEST(Sha256HashWitness, EqualsTheCircuitsValuesAndTheNativeNode) {
  std::mt19937_64 rng(1);
  const Fr cases[][2] = {{Fr::zero(), Fr::zero()},
                         {Fr::one(), -Fr::one()},  // r − 1: all 255 bits in use
                         {Fr::random(rng), Fr::random(rng)}};
  for (const auto& [a, b] : cases) {
    r1cs::WitnessCS cs;
    const AllocatedNum na = AllocatedNum::alloc(cs, a), nb = AllocatedNum::alloc(cs, b);
    const AllocatedNum node = gadgets::Sha256Hasher::hash2_circuit(cs, na, nb);
    std::vector<Fr> out(gadgets::sha256_hash2_witness_len());
    const Fr native = gadgets::sha256_hash2_witness(a, b, out);
    EXPECT_EQ(out, aux_from(cs, 2));
    EXPECT_EQ(native, *node.value());
    EXPECT_EQ(native, gadgets::Sha256Hasher::hash2(a, b));
  }
  // hash2 is 45,379 constraints (filecoin-circuits.md 2.3) and 45,331 aux: the two children's 510
  // bits, 25,814 for the message block (BENCHMARKS.md W1.6), 19,006 for the padding block, and the
  // packed digest; CountingCS agrees.
  r1cs::CountingCS counting;
  const AllocatedNum ca = AllocatedNum::alloc(counting, std::nullopt), cb = AllocatedNum::alloc(counting, std::nullopt);
  gadgets::Sha256Hasher::hash2_circuit(counting, ca, cb);
  EXPECT_EQ(counting.num_constraints(), 45'379u);
  EXPECT_EQ(counting.num_aux() - 2, gadgets::sha256_hash2_witness_len());
  EXPECT_EQ(gadgets::sha256_hash2_witness_len(), 45'331u);
  std::vector<Fr> short_out(10);
  EXPECT_THROW(gadgets::sha256_hash2_witness(Fr::one(), Fr::one(), short_out), std::invalid_argument);
}

// One level of por_no_challenge_input: insert and hash with the index bits and siblings allocated
// outside it, SHA-256 (binary, tree D) and Poseidon (arities 2, 4, 8, 16, every index).
TEST(PorWitness, InsertAndHashEqualTheCircuitsValues) {
  std::mt19937_64 rng(2);
  for (size_t arity : {2, 4, 8, 16}) {
    for (uint64_t index = 0; index < arity; ++index) {
      const Fr leaf = Fr::random(rng);
      std::vector<Fr> siblings;
      for (size_t j = 0; j + 1 < arity; ++j) siblings.push_back(Fr::random(rng));
      for (bool sha : {false, true}) {
        if (sha && arity != 2) continue;
        r1cs::WitnessCS cs;
        const AllocatedNum cur = AllocatedNum::alloc(cs, leaf);
        std::vector<std::vector<AllocatedNum>> path(1);
        for (const Fr& s : siblings) path[0].push_back(AllocatedNum::alloc(cs, s));
        std::vector<Boolean> bits;
        for (size_t j = 0; (size_t{1} << j) < arity; ++j)
          bits.push_back(AllocatedBit::alloc(cs, ((index >> j) & 1) != 0));
        const AllocatedNum root = AllocatedNum::alloc(cs, Fr::zero());
        const size_t before = cs.aux().size();
        const gadgets::MerkleShape shape{arity, 0, 0};
        std::vector<Fr> out;
        if (sha) {
          gadgets::por_no_challenge_input<gadgets::Sha256Hasher>(cs, shape, bits, cur, path, root);
          out.resize(gadgets::sha256_insert_hash_witness_len());
          gadgets::sha256_insert_hash_witness(leaf, siblings[0], index == 1, out);
        } else {
          gadgets::por_no_challenge_input<gadgets::PoseidonHasher>(cs, shape, bits, cur, path, root);
          out.resize(gadgets::poseidon_insert_hash_witness_len(arity));
          gadgets::poseidon_insert_hash_witness(arity, leaf, siblings, index, out);
        }
        EXPECT_EQ(out, aux_from(cs, before))
            << (sha ? "SHA-256" : "Poseidon") << " arity " << arity << " index " << index;
      }
    }
  }
}

TEST(PorWitness, SelectEqualsTheCircuitsValues) {
  std::mt19937_64 rng(3);
  for (size_t n : {1, 2, 8, 128}) {
    std::vector<Fr> from;
    for (size_t i = 0; i < n; ++i) from.push_back(Fr::random(rng));
    for (uint64_t index : {uint64_t{0}, uint64_t{n / 2}, uint64_t{n - 1}}) {
      r1cs::WitnessCS cs;
      std::vector<AllocatedNum> nums;
      for (const Fr& v : from) nums.push_back(AllocatedNum::alloc(cs, v));
      std::vector<Boolean> bits;
      for (size_t j = 0; (size_t{1} << j) < n; ++j) bits.push_back(AllocatedBit::alloc(cs, ((index >> j) & 1) != 0));
      const size_t before = cs.aux().size();
      const AllocatedNum picked = gadgets::select(cs, std::span<const AllocatedNum>(nums), bits);
      std::vector<Fr> out(n - 1);
      EXPECT_EQ(gadgets::select_witness(from, index, out), from[index]);
      EXPECT_EQ(out, aux_from(cs, before)) << n << " index " << index;
      EXPECT_EQ(*picked.value(), from[index]);
    }
  }
  std::vector<Fr> out(2);
  EXPECT_THROW(gadgets::select_witness(std::vector<Fr>(3), 0, out), std::invalid_argument);
}

// phi, rho and the challenge digests: Poseidon2 with SnapDeals' Custom(1) tag.
TEST(PoseidonWitness, CustomTagEqualsTheCircuitsValues) {
  const Fr a = Fr::from_u64(11), b = Fr::from_u64(12);
  r1cs::WitnessCS cs;
  const AllocatedNum both[2] = {AllocatedNum::alloc(cs, a), AllocatedNum::alloc(cs, b)};
  const gadgets::PoseidonConstants& c = gadgets::poseidon_constants(2);
  const AllocatedNum h =
      gadgets::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(both), c, gadgets::PoseidonHashType::custom(1));
  std::vector<Fr> out(gadgets::poseidon_witness_len(c));
  const Fr pre[2] = {a, b};
  EXPECT_EQ(gadgets::poseidon_witness(c, pre, out, gadgets::PoseidonHashType::custom(1)), *h.value());
  EXPECT_EQ(out, aux_from(cs, 2));
  EXPECT_EQ(*h.value(), snap_phi(a, b));  // snap_native's phi = Poseidon2_Custom(1)(comm_d_new, comm_r_old)
}

void expect_native_equals_synthesized(const SnapCircuitShape& shape, const SnapPartitionWitness& w,
                                      const std::string& what) {
  ThreadPool pool(3);
  const SnapAssignment native = snap_native_assignment(shape, w, pool);
  const SnapAssignment synth = synthesize_snap_assignment(shape, w);
  EXPECT_EQ(native.inputs, synth.inputs) << what;
  ASSERT_EQ(native.aux.size(), synth.aux.size()) << what;
  EXPECT_EQ(native.aux.size(), snap_aux_len(shape)) << what;
  // Element by element, so that a mismatch names its position rather than printing 10^6 values.
  size_t mismatches = 0;
  for (size_t i = 0; i < native.aux.size() && mismatches < 5; ++i) {
    if (native.aux[i] != synth.aux[i]) {
      ADD_FAILURE() << what << ": aux " << i << " of " << native.aux.size() << " differs";
      ++mismatches;
    }
  }
}

// The production 2 KiB partition (1.7 M constraints) from a synthetic vanilla set, as the engine
// computes it (snap_assignment); its inputs are the verifier's.
TEST(SnapWitness, NativeEqualsSynthesizedAt2KiB) {
  const SnapSyntheticSet set = synthetic_snap_vanilla(SnapCircuitShape::of(2 * kKiB), 7);
  validate_snap_vanilla(set.context, set.proofs);
  ThreadPool pool(2);
  const SnapAssignment a = snap_assignment(set.context, set.proofs[0], 0, pool);
  const std::vector<Fr> want = snap_public_inputs(set.context.shape, snap_request_public_inputs(set.context, 0));
  ASSERT_EQ(a.inputs.size(), 5u);
  EXPECT_EQ(a.inputs[0], Fr::one());
  EXPECT_EQ(std::vector<Fr>(a.inputs.begin() + 1, a.inputs.end()), want);
  expect_native_equals_synthesized(set.context.shape, snap_partition_witness(set.context, set.proofs[0], 0), "2 KiB");
}

// Every value given, none consistent (only equality with synthesis is asked): random elements, a
// valid selector, leaf_r_new left for the circuit to compute.
SnapPartitionWitness random_witness(const SnapCircuitShape& shape, uint32_t k, uint32_t h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto r = [&] { return std::optional<Fr>(Fr::random(rng)); };
  SnapPartitionWitness w = SnapPartitionWitness::blank(shape);
  w.selector = snap_selector(shape, k, h);
  for (std::optional<Fr>* v : {&w.comm_r_old, &w.comm_d_new, &w.comm_r_new, &w.comm_c, &w.root_r_old, &w.root_r_new})
    *v = r();
  for (auto& v : w.apex_leaves) v = r();
  for (auto& v : w.partition_path) v = r();
  for (SnapChallengeWitness& c : w.challenges) {
    c.leaf_r_old = r();
    c.leaf_d_new = r();
    for (SnapPath* p : {&c.path_r_old, &c.path_r_new, &c.path_d_new}) {
      for (auto& level : *p) {
        for (auto& s : level) s = r();
      }
    }
  }
  return w;
}

// Both partitions of a two-partition shape (the partition path and bits), valid.
TEST(SnapWitness, NativeEqualsSynthesizedInBothPartitions) {
  const SnapSyntheticSet set = synthetic_snap_vanilla(test::snap_two_partitions(), 4);
  for (uint32_t k = 0; k < 2; ++k) {
    expect_native_equals_synthesized(set.context.shape, snap_partition_witness(set.context, set.proofs[k], k),
                                     "partition " + std::to_string(k));
  }
}

// The Poseidon tree-D shape (no apex tree, h_select, a constant-zero partition): 1 KiB (tree R
// 8-4), 16 KiB (8-8-2), 8 MiB (hs 7..12, each h).
TEST(SnapWitness, NativeEqualsSynthesizedPoseidonTreeD) {
  expect_native_equals_synthesized(SnapCircuitShape::of(1 * kKiB, SnapTreeD::kPoseidon),
                                   random_witness(SnapCircuitShape::of(1 * kKiB, SnapTreeD::kPoseidon), 0, 1, 5),
                                   "Poseidon 1 KiB");
  const SnapCircuitShape s16 = SnapCircuitShape::of(16 * kKiB, SnapTreeD::kPoseidon);
  expect_native_equals_synthesized(s16, random_witness(s16, 0, 1, 6), "Poseidon 16 KiB");
  const SnapCircuitShape s8m = SnapCircuitShape::of(8 * kMiB, SnapTreeD::kPoseidon);
  for (uint32_t h : {7u, 12u}) {
    expect_native_equals_synthesized(s8m, random_witness(s8m, 0, h, h), "Poseidon 8 MiB, h = " + std::to_string(h));
  }
}

// A partition's aux, the layout's sum: CountingCS's count of the circuit at 2 KiB (32 / 64 GiB:
// SnapWitnessLarge.AuxLengthsAreTheCircuits, ~55 s each on the 2-core dev machine).
TEST(SnapWitness, AuxLengths) {
  const SnapCircuitShape s2k = SnapCircuitShape::of(2 * kKiB);
  EXPECT_EQ(snap_aux_len(s2k), snap_circuit_info(s2k).aux);
  EXPECT_EQ(snap_aux_len(s2k), 1'703'569u);
  EXPECT_EQ(snap_aux_len(SnapCircuitShape::of(32 * kGiB)), 80'978'488u);
  EXPECT_EQ(snap_aux_len(SnapCircuitShape::of(64 * kGiB)), 84'931'220u);
  // Per challenge at 32 GiB: c_high 13, rho 311, leaves and encoding 4, trees R 2 x (70 siblings +
  // 10 x (22 + 505)), the apex select 127, tree D's 19 siblings and 19 x (2 + 45,331) levels.
  EXPECT_EQ(snap_challenge_aux_len(SnapCircuitShape::of(32 * kGiB)), 872'481u);
}

// The first row of the recorded circuit that z = inputs ‖ aux does not satisfy, or -1.
int64_t first_unsatisfied(const r1cs::CompactR1cs& r, const SnapAssignment& a) {
  std::vector<Fr> z = a.inputs;
  z.insert(z.end(), a.aux.begin(), a.aux.end());
  EXPECT_EQ(z.size(), r.num_columns());
  auto dot = [&](const r1cs::CompactMatrix& m, size_t row) {
    Fr sum = Fr::zero();
    for (uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) sum += r.coeffs[m.coeff[k]] * z[m.col[k]];
    return sum;
  };
  for (size_t i = 0; i < r.num_constraints; ++i) {
    if (dot(r.a, i) * dot(r.b, i) != dot(r.c, i)) return static_cast<int64_t>(i);
  }
  return -1;
}

// A vanilla proof changed after validation (a sibling of each tree, an apex leaf, the partition
// path, comm_c): its witness is still computed as synthesis computes it, and fails the recorded
// constraints; a changed data leaf breaks the encoding, which both refuse alike.
TEST(SnapWitness, TamperedVanillaProofFailsTheConstraints) {
  const SnapSyntheticSet set = synthetic_snap_vanilla(test::snap_two_partitions(), 9);
  const SnapRequestContext& ctx = set.context;
  const r1cs::CompactR1cs circuit = record_snap_circuit(ctx.shape);
  ThreadPool pool(2);
  const uint32_t k = 1;
  auto native = [&](const SnapPartitionProof& p) {
    return snap_native_assignment(ctx.shape, snap_partition_witness(ctx, p, k), pool);
  };
  EXPECT_EQ(first_unsatisfied(circuit, native(set.proofs[k])), -1);
  const Bytes32 seven = to_bytes(Fr::from_u64(7));
  const size_t partition_level = ctx.shape.tree_d_levels() + ctx.shape.apex_bits();
  const std::pair<const char*, std::function<void(SnapPartitionProof&)>> cases[] = {
      {"tree D sibling", [&](SnapPartitionProof& p) { p.challenge_proofs[1].proof_d_new.base[0].hashes[0] = seven; }},
      {"tree R old sibling",
       [&](SnapPartitionProof& p) { p.challenge_proofs[0].proof_r_old.base[0].hashes[3] = seven; }},
      {"tree R new sibling",
       [&](SnapPartitionProof& p) { p.challenge_proofs[1].proof_r_new.sub[0].hashes[2] = seven; }},
      {"apex leaf", [&](SnapPartitionProof& p) { p.apex_leafs[0] = seven; }},
      {"partition path",
       [&](SnapPartitionProof& p) { p.challenge_proofs[0].proof_d_new.base[partition_level].hashes[0] = seven; }},
      {"comm_c", [&](SnapPartitionProof& p) { p.comm_c = seven; }},
  };
  for (const auto& [what, tamper] : cases) {
    SnapPartitionProof bad = set.proofs[k];
    tamper(bad);
    const SnapPartitionWitness w = snap_partition_witness(ctx, bad, k);
    expect_native_equals_synthesized(ctx.shape, w, what);
    EXPECT_NE(first_unsatisfied(circuit, snap_native_assignment(ctx.shape, w, pool)), -1) << what;
  }
  SnapPartitionProof bad = set.proofs[k];
  bad.challenge_proofs[1].proof_d_new.leaf = seven;
  const SnapPartitionWitness w = snap_partition_witness(ctx, bad, k);
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string want = "SnapDeals witness: challenge 1: leaf_r_new is not leaf_r_old + leaf_d_new * rho";
  EXPECT_EQ(message([&] { snap_native_assignment(ctx.shape, w, pool); }), want);
  EXPECT_EQ(message([&] { synthesize_snap_assignment(ctx.shape, w); }), want);
}

TEST(SnapWitness, MissingValuesAndWrongShapesRefused) {
  const SnapCircuitShape shape = test::snap_two_partitions();
  ThreadPool pool(2);
  auto refused = [&](const SnapPartitionWitness& w, const std::string& want) {
    try {
      snap_native_assignment(shape, w, pool);
      ADD_FAILURE() << "accepted; expected: " << want;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  const SnapPartitionWitness good = random_witness(shape, 1, 1, 3);
  refused(SnapPartitionWitness::blank(shape), "the selector (k_and_h_select) has no value");
  SnapPartitionWitness w = good;
  w.comm_c.reset();
  refused(w, "comm_c has no value");
  w = good;
  w.challenges[1].path_d_new[2][0].reset();
  refused(w, "challenge 1: path_d_new level 2 sibling 0 has no value");
  w = good;
  w.challenges[0].path_r_new[0][6].reset();
  refused(w, "challenge 0: path_r_new level 0 sibling 6 has no value");
  w = good;
  w.apex_leaves.pop_back();
  refused(w, "1 apex leaves, the circuit");
  w = good;
  w.selector = Fr::from_u64(1 | (3 << 1));  // two h_select bits
  refused(w, "the selector");
}

// The 32 GiB circuit's shape (apex tree of 128 leaves, 16 partitions, tree R 8-8, hs 7..12,
// 19 tree-D levels) with 3 of its 86 challenges, arbitrary values, partition 13 (~9 M values).
TEST(SnapWitnessLarge, AuxLengthsAreTheCircuits) {
  for (uint64_t size : {32 * kGiB, 64 * kGiB}) {
    const SnapCircuitShape shape = SnapCircuitShape::of(size);
    EXPECT_EQ(snap_aux_len(shape), snap_circuit_info(shape).aux) << sector_size_name(size);
  }
}

TEST(SnapWitnessLarge, NativeEqualsSynthesizedAt32GiBShape) {
  SnapCircuitShape shape = SnapCircuitShape::of(32 * kGiB);
  shape.challenges = 3;
  expect_native_equals_synthesized(shape, random_witness(shape, 13, 9, 8), "32 GiB shape");
}

}  // namespace
}  // namespace cuzk::filecoin
