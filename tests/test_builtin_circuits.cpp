// Built-in circuits: names, sizes, and that their witnesses satisfy their matrices.
#include <gtest/gtest.h>

#include "circuits/builtin.hpp"
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

}  // namespace
