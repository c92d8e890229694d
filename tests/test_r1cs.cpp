// The circuit-writing API: example circuits written once as templates and run under every backend.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "r1cs/r1cs.hpp"

namespace {

using namespace cuzk::r1cs;
using cuzk::Result;

static_assert(!ConstraintSystem<int>);
static_assert(!ConstraintSystem<R1cs>);

Fr fr(uint64_t x) {
  return Fr::from_u64(x);
}

// x^3 + x + 5 = out, with out public. Returns out.
template <ConstraintSystem CS>
Variable cubic(CS& cs, std::optional<Fr> x) {
  auto ns = cs.namespace_([] { return "cubic"; });
  auto val = [](std::optional<Fr> v, auto f) { return v ? std::optional<Fr>(f(*v)) : std::nullopt; };
  Variable vx = cs.alloc([] { return "x"; }, [&] { return x; });
  Variable x2 = cs.alloc([] { return "x2"; }, [&] { return val(x, [](Fr v) { return v.square(); }); });
  cs.enforce([] { return "x2 = x * x"; }, [&](LC lc) { return lc + vx; }, [&](LC lc) { return lc + vx; },
             [&](LC lc) { return lc + x2; });
  Variable x3 = cs.alloc([] { return "x3"; }, [&] { return val(x, [](Fr v) { return v.square() * v; }); });
  cs.enforce([] { return "x3 = x2 * x"; }, [&](LC lc) { return lc + x2; }, [&](LC lc) { return lc + vx; },
             [&](LC lc) { return lc + x3; });
  Variable out = cs.alloc_input([] { return std::string("out"); },
                                [&] { return val(x, [](Fr v) { return v.square() * v + v + fr(5); }); });
  cs.enforce([] { return "out = x3 + x + 5"; }, [&](LC lc) { return lc + x3 + vx + fr(5) * CS::one(); },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + out; });
  return out;
}

// Decomposes an n-bit number into bits: num (aux) is inputized; each bit is boolean, and
// sum 2^i * bit_i = num. Returns the bits.
template <ConstraintSystem CS>
std::vector<Variable> bits(CS& cs, unsigned n, std::optional<uint64_t> value) {
  auto ns = cs.namespace_([] { return "bits"; });
  Variable num = cs.alloc([] { return "num"; },
                          [&]() -> Result<Fr> {
                            if (!value) return cuzk::make_error("no witness");
                            return fr(*value);
                          });
  Variable pub = cs.alloc_input([] { return "num input"; },
                                [&]() -> Result<Fr> {
                                  if (!value) return cuzk::make_error("no witness");
                                  return fr(*value);
                                });
  cs.enforce([] { return "inputize"; }, [&](LC lc) { return lc + pub; }, [&](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + num; });
  std::vector<Variable> out;
  for (unsigned i = 0; i < n; ++i) {
    auto bit_ns = cs.namespace_([&] { return "bit " + std::to_string(i); });
    Variable b =
        cs.alloc([] { return "b"; }, [&] { return value ? std::optional<Fr>(fr((*value >> i) & 1)) : std::nullopt; });
    cs.enforce([] { return "boolean"; }, [&](LC lc) { return lc + CS::one() - b; }, [&](LC lc) { return lc + b; },
               [](LC lc) { return lc; });
    out.push_back(b);
  }
  cs.enforce([] { return "pack"; },
             [&](LC lc) {
               Fr coeff = Fr::one();
               for (Variable b : out) {
                 lc += coeff * b;
                 coeff = coeff + coeff;
               }
               return lc;
             },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + num; });
  return out;
}

// Inputs allocated between constraints, LCs with repeated variables, scaling and subtraction.
struct Interleaved {
  Variable a, p1, b, p2, c;
};
template <ConstraintSystem CS>
Interleaved interleaved(CS& cs, Fr a) {
  Interleaved v;
  v.a = cs.alloc([] { return "a"; }, [&] { return a; });
  // a * a = a^2 written as (2a - a) * (a + a - a) = (3 a^2 - 2 a^2): duplicated terms merge.
  Variable sq = cs.alloc([] { return "sq"; }, [&] { return a * a; });
  cs.enforce([] { return "sq = a * a"; }, [&](LC lc) { return lc + fr(2) * v.a - v.a; },
             [&](LC lc) { return lc + v.a + v.a - v.a; }, [&](LC lc) { return lc + fr(3) * sq - fr(2) * sq; });
  v.p1 = cs.alloc_input([] { return "p1"; }, [&] { return a + fr(1); });
  cs.enforce([] { return "p1 = a + 1"; }, [&](LC lc) { return lc + v.p1; }, [&](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + v.a + CS::one(); });
  v.b = cs.alloc([] { return "b"; }, [&] { return (a + fr(1)) * fr(7); });
  v.p2 = cs.alloc_input([] { return "p2"; }, [&] { return (a + fr(1)) * fr(7) + a * a; });
  cs.enforce([] { return "b = 7 p1"; }, [&](LC lc) { return (lc + v.p1) * fr(7); },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + v.b; });
  v.c = cs.alloc([] { return "c"; }, [&] { return a; });
  cs.enforce([] { return "p2 = b + sq"; },
             [&](LC lc) {
               LC rhs = LC(v.b) + sq;
               return lc + v.p2 - rhs;  // p2 - b - sq = 0
             },
             [&](LC lc) { return lc + CS::one(); }, [](LC lc) { return lc; });
  // An LC that cancels to zero in RecordingCS: (c - c + a) * ONE = a.
  cs.enforce([] { return "c cancels"; }, [&](LC lc) { return lc + v.c - v.c + v.a; },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + v.c; });
  return v;
}

// Runs `circuit` under all four backends (with finalize) and checks that they agree: TestCS is
// satisfied, RecordingCS's matrices times WitnessCS's z equal ProvingCS's a, b, c exactly, and the
// counts agree. `structure` is the same circuit without a witness, for RecordingCS.
template <class Circuit, class Structure>
R1cs check_backends(Circuit&& circuit, Structure&& structure) {
  TestCS t;
  circuit(t);
  t.finalize();
  EXPECT_EQ(t.which_is_unsatisfied(), std::nullopt);

  RecordingCS r;
  structure(r);
  r.finalize();
  R1cs m = r.r1cs();

  WitnessCS w;
  circuit(w);
  w.finalize();

  ProvingCS p;
  circuit(p);
  p.finalize();

  EXPECT_EQ(m.num_inputs, w.num_inputs());
  EXPECT_EQ(m.num_aux, w.num_aux());
  EXPECT_EQ(m.num_inputs, p.num_inputs());
  EXPECT_EQ(m.num_aux, p.num_aux());
  EXPECT_EQ(m.num_inputs, t.num_inputs());
  EXPECT_EQ(m.num_aux, t.num_aux());
  EXPECT_EQ(m.num_constraints, p.num_constraints());
  EXPECT_EQ(m.num_constraints, t.num_constraints());
  EXPECT_EQ(m.a.rows(), m.num_constraints);
  EXPECT_EQ(m.b.rows(), m.num_constraints);
  EXPECT_EQ(m.c.rows(), m.num_constraints);
  EXPECT_EQ(w.inputs(), p.inputs());
  EXPECT_EQ(w.aux(), p.aux());
  EXPECT_EQ(w.inputs(), t.inputs());
  EXPECT_EQ(w.aux(), t.aux());

  const std::vector<Fr> z = w.z();
  const std::vector<Fr> a = mul_vec(m.a, z), b = mul_vec(m.b, z), c = mul_vec(m.c, z);
  EXPECT_EQ(a, p.a());
  EXPECT_EQ(b, p.b());
  EXPECT_EQ(c, p.c());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i] * b[i], c[i]) << "row " << i;

  // Rows: strictly increasing columns inside the unified width, no zero coefficients.
  for (const SparseMatrix* mat : {&m.a, &m.b, &m.c}) {
    EXPECT_EQ(mat->row_ptr.back(), mat->nnz());
    for (size_t row = 0; row < mat->rows(); ++row) {
      for (uint64_t k = mat->row_ptr[row]; k < mat->row_ptr[row + 1]; ++k) {
        EXPECT_LT(mat->col[k], m.num_inputs + m.num_aux);
        EXPECT_FALSE(mat->val[k].is_zero());
        if (k > mat->row_ptr[row]) {
          EXPECT_LT(mat->col[k - 1], mat->col[k]);
        }
      }
    }
  }
  return m;
}

// The last num_inputs rows are the input constraints: A = input_i, B = 0, C = 0.
void expect_input_constraints(const R1cs& m, size_t circuit_rows) {
  ASSERT_EQ(m.num_constraints, circuit_rows + m.num_inputs);
  for (size_t i = 0; i < m.num_inputs; ++i) {
    const size_t row = circuit_rows + i;
    ASSERT_EQ(m.a.row_ptr[row + 1] - m.a.row_ptr[row], 1u);
    EXPECT_EQ(m.a.col[m.a.row_ptr[row]], i);
    EXPECT_TRUE(m.a.val[m.a.row_ptr[row]].is_one());
    EXPECT_EQ(m.b.row_ptr[row + 1], m.b.row_ptr[row]);
    EXPECT_EQ(m.c.row_ptr[row + 1], m.c.row_ptr[row]);
  }
}

TEST(R1cs, CubicAllBackendsAgree) {
  R1cs m = check_backends([](auto& cs) { cubic(cs, fr(3)); }, [](auto& cs) { cubic(cs, std::nullopt); });
  EXPECT_EQ(m.num_inputs, 2u);  // ONE, out
  EXPECT_EQ(m.num_aux, 3u);     // x, x2, x3
  expect_input_constraints(m, 3);

  ProvingCS p;
  cubic(p, fr(3));
  EXPECT_EQ(p.inputs()[1], fr(35));
}

TEST(R1cs, CubicTestCsNamesTheBrokenConstraint) {
  TestCS t;
  EXPECT_EQ(t.num_constraints(), 0u);
  Variable out = cubic(t, fr(3));
  EXPECT_EQ(t.num_constraints(), 3u);  // before finalize: bellpepper's TestConstraintSystem count
  EXPECT_EQ(t.num_inputs(), 2u);
  EXPECT_EQ(t.num_aux(), 3u);
  EXPECT_TRUE(t.is_satisfied());
  EXPECT_EQ(t.name_of(out), "cubic/out");
  EXPECT_EQ(t.name_of(Variable::aux(2)), "cubic/x3");
  EXPECT_EQ(t.name_of(Variable::one()), "ONE");

  t.set_value(Variable::aux(2), fr(28));  // x3 wrong: both "x3" and "out" break; the first is named
  EXPECT_EQ(t.which_is_unsatisfied(), "cubic/x3 = x2 * x");
  t.set_value(Variable::aux(2), fr(27));
  t.set_value(out, fr(36));
  EXPECT_EQ(t.which_is_unsatisfied(), "cubic/out = x3 + x + 5");
  t.set_value(out, fr(35));
  t.finalize();
  EXPECT_EQ(t.num_constraints(), 5u);
  EXPECT_TRUE(t.is_satisfied());
  EXPECT_EQ(t.constraints().back().path, "input constraint 1");
}

TEST(R1cs, BitsAllBackendsAgree) {
  const unsigned n = 20;
  R1cs m = check_backends([&](auto& cs) { bits(cs, n, 0xa5c3fu); }, [&](auto& cs) { bits(cs, n, std::nullopt); });
  EXPECT_EQ(m.num_inputs, 2u);
  EXPECT_EQ(m.num_aux, 1u + n);
  expect_input_constraints(m, n + 2);
  // The pack row has coefficients 1, 2, 4, ...: n + 0 entries in A (bits only).
  const size_t pack = n + 1;
  EXPECT_EQ(m.a.row_ptr[pack + 1] - m.a.row_ptr[pack], n);
  EXPECT_EQ(m.a.val[m.a.row_ptr[pack] + 3], fr(8));
}

TEST(R1cs, BitsTestCsNamesTheBrokenBit) {
  TestCS t;
  std::vector<Variable> b = bits(t, 8, 0x5au);
  EXPECT_TRUE(t.is_satisfied());
  EXPECT_EQ(t.name_of(b[3]), "bits/bit 3/b");
  t.set_value(b[3], fr(2));
  EXPECT_EQ(t.which_is_unsatisfied(), "bits/bit 3/boolean");
  t.set_value(b[3], fr(0));  // boolean, but the packing no longer matches
  EXPECT_EQ(t.which_is_unsatisfied(), "bits/pack");
}

TEST(R1cs, InterleavedInputsKeepColumnsRight) {
  const Fr a = fr(11);
  R1cs m = check_backends([&](auto& cs) { interleaved(cs, a); }, [&](auto& cs) { interleaved(cs, a); });
  EXPECT_EQ(m.num_inputs, 3u);  // ONE, p1, p2
  EXPECT_EQ(m.num_aux, 4u);     // a, sq, b, c
  expect_input_constraints(m, 5);
  // Unified columns: ONE 0, p1 1, p2 2, a 3, sq 4, b 5, c 6. The first constraint was recorded when
  // only ONE was an input; its aux columns must still land after all three inputs.
  auto row = [](const SparseMatrix& mat, size_t r) {
    std::vector<std::pair<uint32_t, Fr>> out;
    for (uint64_t k = mat.row_ptr[r]; k < mat.row_ptr[r + 1]; ++k) out.emplace_back(mat.col[k], mat.val[k]);
    return out;
  };
  using Row = std::vector<std::pair<uint32_t, Fr>>;
  EXPECT_EQ(row(m.a, 0), (Row{{3, Fr::one()}}));  // 2a - a merges to a
  EXPECT_EQ(row(m.b, 0), (Row{{3, Fr::one()}}));
  EXPECT_EQ(row(m.c, 0), (Row{{4, Fr::one()}}));
  EXPECT_EQ(row(m.a, 1), (Row{{1, Fr::one()}}));
  EXPECT_EQ(row(m.c, 1), (Row{{0, Fr::one()}, {3, Fr::one()}}));
  EXPECT_EQ(row(m.a, 2), (Row{{1, fr(7)}}));
  EXPECT_EQ(row(m.c, 2), (Row{{5, Fr::one()}}));
  EXPECT_EQ(row(m.a, 3), (Row{{2, Fr::one()}, {4, -Fr::one()}, {5, -Fr::one()}}));
  EXPECT_TRUE(row(m.c, 3).empty());
  EXPECT_EQ(row(m.a, 4), (Row{{3, Fr::one()}}));  // c - c cancels and is dropped
  EXPECT_EQ(row(m.c, 4), (Row{{6, Fr::one()}}));
}

TEST(R1cs, RecordingNeverComputesValuesAndWitnessNeverBuildsStructure) {
  bool value_called = false, lc_called = false, name_called = false;
  auto value = [&] {
    value_called = true;
    return Fr::one();
  };
  auto lc = [&](LC l) {
    lc_called = true;
    return l;
  };
  auto name = [&] {
    name_called = true;
    return "n";
  };
  RecordingCS r;
  r.alloc(name, value);
  r.alloc_input(name, value);
  r.enforce(name, lc, lc, lc);
  EXPECT_FALSE(value_called);
  EXPECT_FALSE(name_called);
  EXPECT_TRUE(lc_called);

  lc_called = false;
  WitnessCS w;
  w.alloc(name, value);
  w.alloc_input(name, value);
  {
    auto ns = w.namespace_(name);
    w.enforce(name, lc, lc, lc);
  }
  EXPECT_TRUE(value_called);
  EXPECT_FALSE(lc_called);
  EXPECT_FALSE(name_called);
}

TEST(R1cs, MissingValuesAreReportedByName) {
  WitnessCS w;
  try {
    cubic(w, std::nullopt);
    FAIL() << "no exception";
  } catch (const SynthesisError& e) {
    EXPECT_EQ(std::string(e.what()), "assignment missing for 'x'");
  }
  TestCS t;
  try {
    bits(t, 4, std::nullopt);
    FAIL() << "no exception";
  } catch (const SynthesisError& e) {
    EXPECT_EQ(std::string(e.what()), "assignment missing for 'bits/num': no witness");
  }
  ProvingCS p;
  EXPECT_THROW(bits(p, 4, std::nullopt), SynthesisError);
}

TEST(R1cs, TestCsRejectsDuplicateNamesAndNamespacesNest) {
  TestCS t;
  {
    auto outer = t.namespace_([] { return "outer"; });
    auto inner = t.namespace_([] { return "inner"; });
    Variable v = t.alloc([] { return "v"; }, [] { return Fr::one(); });
    EXPECT_EQ(t.name_of(v), "outer/inner/v");
    EXPECT_THROW(t.alloc([] { return "v"; }, [] { return Fr::one(); }), SynthesisError);
  }
  Variable v = t.alloc([] { return "v"; }, [] { return Fr::one(); });  // same leaf, other path
  EXPECT_EQ(t.name_of(v), "v");
  EXPECT_THROW(t.alloc([] { return "a/b"; }, [] { return Fr::one(); }), SynthesisError);
  EXPECT_THROW(t.pop_namespace(), SynthesisError);
}

// Repeats are found among thousands of paths (the name table grows several times) and across
// variables, inputs and constraints, which share one namespace of paths.
TEST(R1cs, TestCsFindsRepeatsAcrossKindsAndGrowth) {
  TestCS t;
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const SynthesisError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  for (int i = 0; i < 3000; ++i) {
    // (std::string(1, c) += ...: GCC 12 warns falsely (-Wrestrict) about "x" + std::string.)
    auto name = [](char c, int k) { return std::string(1, c) += std::to_string(k); };
    auto ns = t.namespace_([&] { return name('n', i % 7); });
    Variable v = t.alloc([&] { return name('x', i); }, [] { return Fr::one(); });
    t.enforce([&] { return name('c', i); }, [&](LC lc) { return lc + v; }, [](LC lc) { return lc + Variable::one(); },
              [&](LC lc) { return lc + v; });
  }
  EXPECT_TRUE(t.is_satisfied());
  EXPECT_EQ(t.num_constraints(), 3000u);
  EXPECT_EQ(t.name_of(Variable::aux(2999)), "n3/x2999");
  {
    auto ns = t.namespace_([] { return "n5"; });  // 5, 12, ..., 2994 live here
    EXPECT_EQ(message([&] { t.alloc([] { return "c12"; }, [] { return Fr::one(); }); }),
              "TestCS: name 'n5/c12' is used twice");
    EXPECT_EQ(message([&] { t.alloc_input([] { return "x2994"; }, [] { return Fr::one(); }); }),
              "TestCS: name 'n5/x2994' is used twice");
    EXPECT_EQ(message([&] { t.alloc([] { return "x2995"; }, [] { return Fr::one(); }); }), "(no error)");
  }
  EXPECT_EQ(message([&] {
              t.enforce([] { return "ONE"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
                        [](LC lc) { return lc; });
            }),
            "TestCS: name 'ONE' is used twice");
}

TEST(R1cs, UnallocatedVariablesAndDoubleFinalizeAreErrors) {
  RecordingCS r;
  EXPECT_THROW(r.enforce([] { return ""; }, [](LC lc) { return lc + Variable::aux(0); }, [](LC lc) { return lc; },
                         [](LC lc) { return lc; }),
               SynthesisError);
  r.finalize();
  EXPECT_THROW(r.finalize(), SynthesisError);
  EXPECT_THROW(
      r.enforce([] { return ""; }, [](LC lc) { return lc; }, [](LC lc) { return lc; }, [](LC lc) { return lc; }),
      SynthesisError);
  ProvingCS p;
  EXPECT_THROW(p.enforce([] { return ""; }, [](LC lc) { return lc + Variable::input(1); }, [](LC lc) { return lc; },
                         [](LC lc) { return lc; }),
               SynthesisError);
}

TEST(R1cs, LinearCombinationArithmetic) {
  const Variable x = Variable::aux(0), y = Variable::aux(1);
  auto value = [&](Variable v) { return v == Variable::one() ? Fr::one() : (v == x ? fr(10) : fr(100)); };
  LC lc = LC() + x + fr(3) * y - Variable::one();  // 10 + 300 - 1
  EXPECT_EQ(lc.evaluate(value), fr(309));
  EXPECT_EQ((lc * fr(2)).evaluate(value), fr(618));
  EXPECT_EQ((fr(2) * lc - lc).evaluate(value), fr(309));
  LC twice = lc;
  twice.add_scaled(fr(5), lc);
  EXPECT_EQ(twice.evaluate(value), fr(309 * 6));
  EXPECT_EQ((lc - fr(3) * y).evaluate(value), fr(9));
  EXPECT_EQ(LC::zero().evaluate(value), Fr::zero());
  EXPECT_EQ(lc.size(), 3u);
}

}  // namespace
