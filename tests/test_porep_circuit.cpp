// The StackedDrg PoRep circuit's structure against the counts the reference asserts
// (storage-proofs-porep tests/stacked_circuit.rs) and the 2 KiB / 8 MiB / 512 MiB counts of the
// closed form in filecoin-circuits.md 2.4 (which reproduces every asserted count); RecordingCS and
// CountingCS agree; witnesses of the wrong shape are rejected.
#include <gtest/gtest.h>

#include "filecoin/c1_synthetic.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/seal.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/test_cs.hpp"
#include "r1cs_compare.hpp"

namespace cuzk::filecoin {
namespace {

r1cs::CircuitCounts count(const PorepCircuitShape& shape) {
  r1cs::CountingCS cs;
  porep_circuit(cs, shape, PorepCircuitWitness::blank(shape));
  return cs.counts();
}

struct ReferenceCase {
  gadgets::MerkleShape tree;
  uint64_t constraints;
};

// stacked_circuit.rs test_stacked_porep_circuit_poseidon_*: 22 inputs each.
TEST(PorepCircuit, ReferenceTestCircuitCounts) {
  const ReferenceCase cases[] = {
      {{2, 0, 0}, 1'206'212}, {{8, 4, 2}, 1'346'982},
      // 8-0-0 (1,199,620) and 8-4-0 (1,296,576): test_porep_circuit_large and cli.circuit_info.
  };
  for (const ReferenceCase& c : cases) {
    const PorepCircuitShape shape = PorepCircuitShape::reference_test(c.tree);
    const r1cs::CircuitCounts n = count(shape);
    EXPECT_EQ(n.constraints, c.constraints) << shape.describe();
    EXPECT_EQ(n.inputs, 22u) << shape.describe();
    EXPECT_EQ(shape.num_inputs(), 22u);
  }
}

TEST(PorepCircuit, RecordingAndCountingAgree) {
  const PorepCircuitShape shape = PorepCircuitShape::reference_test({8, 4, 2});
  r1cs::RecordingCS rec;
  porep_circuit(rec, shape, PorepCircuitWitness::blank(shape));
  rec.finalize();
  r1cs::CountingCS cnt;
  porep_circuit(cnt, shape, PorepCircuitWitness::blank(shape));
  cnt.finalize();
  const r1cs::CompactR1cs r = std::move(rec).compact();
  EXPECT_EQ(cnt.counts().constraints, r.num_constraints);
  EXPECT_EQ(cnt.counts().inputs, r.num_inputs);
  EXPECT_EQ(cnt.counts().aux, r.num_aux);
  EXPECT_EQ(cnt.counts().nnz_a, r.a.col.size());
  EXPECT_EQ(cnt.counts().nnz_b, r.b.col.size());
  EXPECT_EQ(cnt.counts().nnz_c, r.c.col.size());
}

struct SizeCase {
  const char* proof;
  uint64_t constraints, inputs, aux;
};

// The challenges recorded concurrently and merged, or one challenge recorded and copied, give
// exactly the sequential recording.
TEST(PorepCircuit, ParallelRecordingEqualsSequential) {
  const PorepCircuitShape shape = PorepCircuitShape::of(registered_seal_proof("StackedDrg2KiBV1_1"));
  ThreadPool pool(3);
  const r1cs::CompactR1cs seq = record_porep_circuit(shape);
  for (const r1cs::CompactR1cs& par :
       {record_porep_circuit_parallel(shape, pool), record_porep_circuit_replicated(shape, pool)}) {
    test::expect_same_matrices(par, seq);
  }
}

TEST(PorepCircuit, EveryVersionOfASizeHasOneCircuit) {
  for (const char* size : {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"}) {
    const PorepCircuitShape v1 = PorepCircuitShape::of(registered_seal_proof(std::string("StackedDrg") + size + "V1"));
    for (const char* suffix : {"V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"}) {
      const PorepCircuitShape s =
          PorepCircuitShape::of(registered_seal_proof(std::string("StackedDrg") + size + suffix));
      EXPECT_EQ(s.nodes, v1.nodes);
      EXPECT_EQ(s.layers, v1.layers);
      EXPECT_EQ(s.challenges, v1.challenges) << size << suffix;
      EXPECT_EQ(s.tree.base_arity, v1.tree.base_arity);
      EXPECT_EQ(s.tree.sub_arity, v1.tree.sub_arity);
      EXPECT_EQ(s.tree.top_arity, v1.tree.top_arity);
    }
  }
}

TEST(PorepCircuit, WitnessOfTheWrongShapeIsRejected) {
  const PorepCircuitShape shape = PorepCircuitShape::of(registered_seal_proof("StackedDrg2KiBV1_1"));
  r1cs::CountingCS cs;
  {
    PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
    w.challenges.pop_back();
    EXPECT_THROW(porep_circuit(cs, shape, w), std::invalid_argument);
  }
  {
    PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
    w.challenges[1].comm_d_path.base.pop_back();
    try {
      porep_circuit(cs, shape, w);
      FAIL() << "a short tree-D path was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("tree D path has 5 base levels, the circuit needs 6"), std::string::npos)
          << e.what();
    }
  }
  {
    PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
    w.challenges[0].exp_parents[3].rows.push_back(std::nullopt);
    EXPECT_THROW(porep_circuit(cs, shape, w), std::invalid_argument);
  }
  {
    PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
    w.challenges[0].comm_c_path.base[0].index = 8;
    EXPECT_THROW(porep_circuit(cs, shape, w), std::invalid_argument);
  }
  PorepCircuitShape bad = shape;
  bad.layers = 3;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
  bad = shape;
  bad.nodes = 96;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::filecoin

namespace cuzk::filecoin {
namespace {

// The witness's public inputs are the ones a verifier derives on its own (challenges from the
// seed, parents from the graph), for every challenge mode; the aux count is the circuit's.
TEST(PorepCircuit, WitnessInputsAreTheVerifierInputs) {
  // The other versions: test_porep_circuit_large (this binary also runs under the sanitizers).
  for (const char* name : {"StackedDrg2KiBV1_1"}) {
    const RegisteredSealProof& proof = registered_seal_proof(name);
    const SealCommitPhase1Output c1 = make_synthetic_c1(proof, 7);
    validate_c1_output(c1);
    for (uint32_t k : {0u, proof.partitions - 1}) {
      const PorepAssignment a = porep_assignment(c1, k);
      const std::vector<Fr> expected = porep_verifier_inputs(c1, k);
      ASSERT_EQ(a.inputs.size(), expected.size() + 1) << name;
      EXPECT_EQ(a.inputs[0], Fr::one());
      for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(a.inputs[i + 1], expected[i]) << name << " input " << i;
      EXPECT_EQ(a.aux.size(), 2'685'673u) << name;
    }
  }
}

}  // namespace
}  // namespace cuzk::filecoin
