// Built-in circuits: names, sizes, and that their witnesses satisfy their matrices.
#include <gtest/gtest.h>

#include "circuits/builtin.hpp"
#include "circuits/example_circuits.hpp"
#include "pce/build.hpp"
#include "pce/matvec.hpp"

namespace {

using namespace cuzk;
using circuits::BuiltinSpec;

TEST(Builtin, ParsesNamesAndSizes) {
  auto a = circuits::parse_builtin("chain:2^10");
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->kind, "chain");
  EXPECT_EQ(a->constraints, 1024u);
  EXPECT_EQ(a->name(), "chain:1024");
  auto b = circuits::parse_builtin("filecoin-like:65536");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->constraints, 65536u);
  for (const char* bad : {"chain", "nope:2^10", "chain:2^29", "chain:x", "chain:2^", "chain:12ab", "chain:4", ""}) {
    EXPECT_FALSE(circuits::parse_builtin(bad).ok()) << bad;
  }
  EXPECT_NE(circuits::parse_builtin("nope:1").error().find("filecoin-like:N"), std::string::npos);
}

void expect_satisfied(const BuiltinSpec& spec, double min_bits_share) {
  const r1cs::CompactR1cs r = circuits::record_builtin(spec);
  EXPECT_LE(r.num_constraints, spec.constraints) << spec.name();
  EXPECT_GE(r.num_constraints, spec.constraints * 9 / 10) << spec.name();
  const circuits::BuiltinWitness w = circuits::witness_builtin(spec);
  ASSERT_EQ(w.inputs.size(), r.num_inputs);
  ASSERT_EQ(w.aux.size(), r.num_aux);
  const pce::Pce p = pce::build_pce(r);
  const pce::MatVecResult mv = pce::matvec(p, w.inputs, w.aux);
  for (size_t i = 0; i < mv.a.size(); ++i) ASSERT_EQ(mv.a[i] * mv.b[i], mv.c[i]) << spec.name() << " row " << i;
  size_t bits = 0;
  for (const auto& v : w.aux) bits += v.is_zero() || v.is_one();
  EXPECT_GE(static_cast<double>(bits) / static_cast<double>(w.aux.size()), min_bits_share) << spec.name();
  // Deterministic in the seed.
  EXPECT_EQ(circuits::witness_builtin(spec).aux, w.aux);
}

TEST(Builtin, WitnessesSatisfyTheirMatrices) {
  expect_satisfied(*circuits::parse_builtin("filecoin-like:2^12"), 0.9);
  expect_satisfied(*circuits::parse_builtin("chain:2^12"), 0.0);
  expect_satisfied(*circuits::parse_builtin("chain:8"), 0.0);
}

// One circuit, many statements: the witness seed changes the witness (and public inputs) but not
// the structure; full synthesis gives the Pce's a, b, c and density bitmaps.
TEST(Builtin, WitnessSeedKeepsStructureAndFullSynthesisMatchesPce) {
  for (const char* name : {"chain:2^10", "filecoin-like:2^13"}) {
    const BuiltinSpec spec = circuits::parse_builtin(name).value();
    const pce::Pce p = pce::build_pce(circuits::record_builtin(spec));
    const circuits::BuiltinWitness w1 = circuits::witness_builtin(spec, 11), w2 = circuits::witness_builtin(spec, 12);
    ASSERT_EQ(w1.inputs.size(), w2.inputs.size());
    EXPECT_NE(w1.inputs[1], w2.inputs[1]) << name;
    for (uint64_t seed : {11u, 12u}) {
      r1cs::ProvingCS cs = circuits::synthesize_builtin(spec, seed);
      const circuits::BuiltinWitness w = circuits::witness_builtin(spec, seed);
      ASSERT_EQ(cs.inputs(), w.inputs);
      ASSERT_EQ(cs.aux(), w.aux);
      const pce::MatVecResult mv = pce::matvec(p, w.inputs, w.aux);
      EXPECT_EQ(cs.a(), mv.a) << name;
      EXPECT_EQ(cs.b(), mv.b) << name;
      EXPECT_EQ(cs.c(), mv.c) << name;
      auto words = [](const pce::DensityView& d) { return std::vector<uint64_t>(d.words().begin(), d.words().end()); };
      EXPECT_EQ(cs.a_aux_density(), words(p.a_aux_density())) << name;
      EXPECT_EQ(cs.b_input_density(), words(p.b_input_density())) << name;
      EXPECT_EQ(cs.b_aux_density(), words(p.b_aux_density())) << name;
    }
  }
}

// Repeated variables, cancelling terms and zero coefficients: the density rule (merged coefficient
// non-zero) must agree between full synthesis and the Pce.
TEST(Builtin, FullSynthesisDensityOnCornerCases) {
  r1cs::RecordingCS rec;
  circuits::corner_cases(rec, 3);
  rec.finalize();
  const pce::Pce p = pce::build_pce(std::move(rec).compact());
  r1cs::ProvingCS cs(true);
  circuits::corner_cases(cs, 3);
  cs.finalize();
  auto words = [](const pce::DensityView& d) { return std::vector<uint64_t>(d.words().begin(), d.words().end()); };
  EXPECT_EQ(cs.a_aux_density(), words(p.a_aux_density()));
  EXPECT_EQ(cs.b_input_density(), words(p.b_input_density()));
  EXPECT_EQ(cs.b_aux_density(), words(p.b_aux_density()));
}

}  // namespace
