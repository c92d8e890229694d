// The large PoRep checks (Release only, label slow):
// - the 32 GiB and 64 GiB partition circuits counted in constant memory (CountingCS, ~35 s each):
//   32 GiB against the seed's measured PCE (filecoin-circuits.md 2.4, curio cuzk-project.md "PCE
//   Synthesis Benchmark": 130,278,869 rows, 328 inputs, 130,169,893 aux, nnz 309,405,051 /
//   130,327,340 / 282,656,500), 64 GiB against the closed form of 2.4;
// - sealed 2 KiB sectors of every version and a synthetic 8 MiB C1 satisfying the circuit under
//   TestCS, and tampered witnesses failing at the constraint that checks them.
#include <gtest/gtest.h>

#include "filecoin/c1_synthetic.hpp"
#include "filecoin/porep_circuit_info.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/synth_c1.hpp"
#include "r1cs/test_cs.hpp"

namespace cuzk::filecoin {
namespace {

TEST(PorepCircuitLarge, Counts32GiB) {
  const PorepCircuitInfo i = porep_circuit_info(PorepCircuitShape::of(registered_seal_proof("StackedDrg32GiBV1_1")));
  EXPECT_EQ(i.constraints, 130'278'541u);
  EXPECT_EQ(i.pce_rows, 130'278'869u);
  EXPECT_EQ(i.inputs, 328u);
  EXPECT_EQ(i.aux, 130'169'893u);
  EXPECT_EQ(i.nnz_a, 309'405'051u);
  EXPECT_EQ(i.nnz_b, 130'327'340u);
  EXPECT_EQ(i.nnz_c, 282'656'500u);
  EXPECT_EQ(i.domain, uint64_t{1} << 27);
}

TEST(PorepCircuitLarge, Counts64GiB) {
  const PorepCircuitInfo i = porep_circuit_info(PorepCircuitShape::of(registered_seal_proof("StackedDrg64GiBV1_1")));
  EXPECT_EQ(i.constraints, 131'185'849u);
  EXPECT_EQ(i.inputs, 328u);
  EXPECT_EQ(i.aux, 131'076'643u);
  EXPECT_EQ(i.pce_rows, 131'186'177u);
  EXPECT_EQ(i.domain, uint64_t{1} << 27);
}

}  // namespace
}  // namespace cuzk::filecoin

namespace cuzk::filecoin {
namespace {

struct SectorCounts {
  const char* proof;
  uint64_t constraints, inputs, aux;
};

// filecoin-circuits.md 2.4: constraints as the reference tests count them (no input constraints),
// inputs with ONE.
TEST(PorepCircuitLarge, SmallSectorCounts) {
  const SectorCounts cases[] = {
      {"StackedDrg2KiBV1_1", 2'687'921, 40, 2'685'673},
      {"StackedDrg8MiBV1_1", 3'844'929, 40, 3'842'449},
      {"StackedDrg512MiBV1_1", 4'423'433, 40, 4'420'837},
  };
  for (const SectorCounts& c : cases) {
    const PorepCircuitShape shape = PorepCircuitShape::of(registered_seal_proof(c.proof));
    const PorepCircuitInfo n = porep_circuit_info(shape);
    EXPECT_EQ(n.constraints, c.constraints) << c.proof;
    EXPECT_EQ(n.inputs, c.inputs) << c.proof;
    EXPECT_EQ(n.aux, c.aux) << c.proof;
  }
}

TEST(PorepCircuitLarge, ReferenceTestCircuitCounts) {
  EXPECT_EQ(porep_circuit_info(PorepCircuitShape::reference_test({8, 0, 0})).constraints, 1'199'620u);
  EXPECT_EQ(porep_circuit_info(PorepCircuitShape::reference_test({8, 4, 0})).constraints, 1'296'576u);
}

TEST(PorepCircuitLarge, WitnessInputsOfEveryVersion) {
  for (const char* name :
       {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    const RegisteredSealProof& proof = registered_seal_proof(name);
    const SealCommitPhase1Output c1 = make_synthetic_c1(proof, 7);
    for (uint32_t k : {0u, proof.partitions - 1}) {
      const PorepAssignment a = porep_assignment(c1, k);
      const std::vector<Fr> expected = porep_verifier_inputs(c1, k);
      ASSERT_EQ(a.inputs.size(), expected.size() + 1) << name;
      for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(a.inputs[i + 1], expected[i]) << name << " input " << i;
    }
  }
}

SealCommitPhase1Output sealed_2kib(const char* proof_name, uint64_t seed) {
  const RegisteredSealProof& proof = registered_seal_proof(proof_name);
  SealParams params;
  params.prover_id[0] = 0x2a;
  params.sector_id = seed;
  params.ticket.fill(3);
  params.seed.fill(4);
  return seal_sector(proof, random_sector_data(proof.shape.nodes, seed), params).c1;
}

// A sealed sector's C1 satisfies the circuit: every constraint, under TestCS (names checked
// unique as bellpepper's TestConstraintSystem does), and the inputs are the verifier's.
TEST(PorepCircuitLarge, SealedSectorSatisfiesTheCircuit) {
  // V1_1: test_porep_circuit. V1 places the DRG predecessor elsewhere; NI has 13 partitions.
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    const SealCommitPhase1Output c1 = sealed_2kib(name, 9);
    const uint32_t k = c1.registered_proof->partitions - 1;
    r1cs::TestCS cs;
    porep_circuit(cs, PorepCircuitShape::of(*c1.registered_proof), porep_circuit_witness(c1, k));
    const auto bad = cs.which_is_unsatisfied();
    EXPECT_FALSE(bad.has_value()) << name << ": " << bad.value_or("");
    EXPECT_EQ(cs.num_constraints(), 2'687'921u);
    const std::vector<Fr> expected = porep_verifier_inputs(c1, k);
    ASSERT_EQ(cs.num_inputs(), expected.size() + 1);
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << name << " input " << i;
  }
}

// Tampering is caught by the constraint that checks it.
TEST(PorepCircuitLarge, TamperedWitnessFailsWhereExpected) {
  const SealCommitPhase1Output c1 = sealed_2kib("StackedDrg2KiBV1_1", 10);
  const PorepCircuitShape shape = PorepCircuitShape::of(*c1.registered_proof);
  auto first_failure = [&](const PorepCircuitWitness& w) {
    r1cs::TestCS cs;
    porep_circuit(cs, shape, w);
    return cs.which_is_unsatisfied().value_or("(satisfied)");
  };
  {
    // A parent's label: its column hash no longer opens in tree C.
    PorepCircuitWitness w = porep_circuit_witness(c1, 0);
    *w.challenges[1].drg_parents[2].rows[0] += Fr::one();
    EXPECT_NE(first_failure(w).find("challenge_1/drg_parent_2_inclusion"), std::string::npos) << first_failure(w);
  }
  {
    // The data leaf: its tree-D path fails first.
    PorepCircuitWitness w = porep_circuit_witness(c1, 0);
    *w.challenges[0].data_leaf += Fr::one();
    EXPECT_NE(first_failure(w).find("challenge_0/comm_d_inclusion"), std::string::npos) << first_failure(w);
  }
  {
    // comm_r is not Poseidon(comm_c, comm_r_last).
    PorepCircuitWitness w = porep_circuit_witness(c1, 0);
    *w.comm_r += Fr::one();
    EXPECT_NE(first_failure(w).find("enforce comm_r = H(comm_c || comm_r_last)"), std::string::npos)
        << first_failure(w);
  }
}

// 8 MiB: a valid synthetic C1 (synth_c1: sparse trees, challenged labels computed from their
// parents) satisfies the 3,844,929-constraint circuit under TestCS.
TEST(PorepCircuitLarge, Synthetic8MiBSatisfiesTheCircuit) {
  const SealCommitPhase1Output c1 = make_valid_synthetic_c1(registered_seal_proof("StackedDrg8MiBV1_1"), 5);
  r1cs::TestCS cs;
  porep_circuit(cs, PorepCircuitShape::of(*c1.registered_proof), porep_circuit_witness(c1, 0));
  const auto bad = cs.which_is_unsatisfied();
  EXPECT_FALSE(bad.has_value()) << bad.value_or("");
  EXPECT_EQ(cs.num_constraints(), 3'844'929u);
  const std::vector<Fr> expected = porep_verifier_inputs(c1, 0);
  ASSERT_EQ(cs.num_inputs(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << "input " << i;
}

}  // namespace
}  // namespace cuzk::filecoin
