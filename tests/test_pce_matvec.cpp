// MatVec over a Pce against full synthesis (ProvingCS) and the reference product (mul_vec): both
// kernels, every coefficient encoding that fits, u32 and u64 row pointers, 1 and 4 threads, and
// chunks small enough to cut every matrix into many tasks. Equality is exact (bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "pce/build.hpp"
#include "pce/matvec.hpp"
#include "pce_test_circuits.hpp"
#include "r1cs/r1cs.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::pce;
using namespace cuzk::pce_test;
using r1cs::CompactR1cs;
using r1cs::ProvingCS;
using r1cs::RecordingCS;

ThreadPool& pool1() {
  static ThreadPool p(1);
  return p;
}
ThreadPool& pool4() {
  static ThreadPool p(4);
  return p;
}

std::vector<CoeffEncoding> encodings_that_fit(size_t dict_size) {
  std::vector<CoeffEncoding> out;
  if (dict_size <= 256) out.push_back(CoeffEncoding::Dict8);
  if (dict_size <= 65536) out.push_back(CoeffEncoding::Dict16);
  out.push_back(CoeffEncoding::Full);
  return out;
}

// Runs matvec on every Pce form of `r` with every kernel/pool/chunking and expects a, b, c exactly.
// Outputs are pre-filled with garbage: every row must be written.
void expect_matvec_everywhere(const CompactR1cs& r, std::span<const Fr> inputs, std::span<const Fr> aux,
                              const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) {
  struct Run {
    MatVecKernel kernel;
    ThreadPool* pool;
    uint64_t chunk_work;
  };
  const Run runs[] = {{MatVecKernel::Auto, &pool1(), 0},    {MatVecKernel::Generic, &pool1(), 0},
                      {MatVecKernel::Auto, &pool4(), 0},    {MatVecKernel::Generic, &pool4(), 0},
                      {MatVecKernel::Auto, &pool4(), 1},    {MatVecKernel::Auto, &pool4(), 7},
                      {MatVecKernel::Generic, &pool4(), 5}, {MatVecKernel::Auto, nullptr, 0}};
  Xoshiro256 rng(7);
  for (CoeffEncoding enc : encodings_that_fit(r.coeffs.size())) {
    for (bool row64 : {false, true}) {
      const Pce pce = build_pce(r, {.circuit_id = "t", .encoding = enc, .force_row_ptr64 = row64});
      ASSERT_EQ(pce.encoding(), enc);
      for (const Run& run : runs) {
        SCOPED_TRACE(std::string(to_string(enc)) + (row64 ? " u64" : " u32") + " " + to_string(run.kernel) + " " +
                     std::to_string(run.pool ? run.pool->size() : 0) + " threads, chunk " +
                     std::to_string(run.chunk_work));
        std::vector<Fr> ra(a.size()), rb(b.size()), rc(c.size());
        for (auto* v : {&ra, &rb, &rc}) {
          for (Fr& x : *v) x = Fr::random(rng);
        }
        matvec(pce, inputs, aux, ra, rb, rc, {.kernel = run.kernel, .pool = run.pool, .chunk_work = run.chunk_work});
        EXPECT_EQ(ra, a);
        EXPECT_EQ(rb, b);
        EXPECT_EQ(rc, c);
      }
    }
  }
}

// Builds `circuit` under RecordingCS and ProvingCS and checks MatVec on its PCE against ProvingCS.
// Returns the recorded matrices for further checks.
template <class Circuit>
CompactR1cs check_circuit(Circuit&& circuit, CoeffEncoding narrowest) {
  RecordingCS rec;
  circuit(rec);
  rec.finalize();
  CompactR1cs r = rec.compact();
  ProvingCS p;
  circuit(p);
  p.finalize();
  EXPECT_EQ(r.num_inputs, p.num_inputs());
  EXPECT_EQ(r.num_aux, p.num_aux());
  EXPECT_EQ(r.num_constraints, p.num_constraints());
  EXPECT_EQ(build_pce(r).encoding(), narrowest) << r.coeffs.size() << " distinct coefficients";

  // The circuits are satisfied, and the reference product agrees with full synthesis.
  for (size_t i = 0; i < p.num_constraints(); ++i) EXPECT_EQ(p.a()[i] * p.b()[i], p.c()[i]) << "row " << i;
  const r1cs::R1cs full = r.expand();
  const std::vector<Fr> z = p.z();
  EXPECT_EQ(r1cs::mul_vec(full.a, z), p.a());
  EXPECT_EQ(r1cs::mul_vec(full.b, z), p.b());
  EXPECT_EQ(r1cs::mul_vec(full.c, z), p.c());

  expect_matvec_everywhere(r, p.inputs(), p.aux(), p.a(), p.b(), p.c());

  // The convenience form.
  const Pce pce = build_pce(r);
  const MatVecResult res = matvec(pce, p.inputs(), p.aux());
  EXPECT_EQ(res.a, p.a());
  EXPECT_EQ(res.b, p.b());
  EXPECT_EQ(res.c, p.c());
  return r;
}

TEST(PceMatVec, Cubic) {
  check_circuit([](auto& cs) { cubic(cs, fr(3)); }, CoeffEncoding::Dict8);
  check_circuit([](auto& cs) { cubic(cs, -fr(1)); }, CoeffEncoding::Dict8);
  check_circuit([](auto& cs) { cubic(cs, Fr::zero()); }, CoeffEncoding::Dict8);
}

TEST(PceMatVec, FilecoinLikeBitsAndPacking) {
  const CompactR1cs r = check_circuit([](auto& cs) { filecoin_like(cs, 1, 12, 3); }, CoeffEncoding::Dict8);
  // ±2^i up to 2^32 and 16 constants beyond ±1: the dictionary path is exercised beyond ±1.
  EXPECT_GT(r.coeffs.size(), 60u);
}

TEST(PceMatVec, RandomCoefficientsDict16) {
  const CompactR1cs r = check_circuit([](auto& cs) { random_coeffs(cs, 2, 100, 5, 40); }, CoeffEncoding::Dict16);
  EXPECT_GT(r.coeffs.size(), 256u);
}

TEST(PceMatVec, RandomCoefficientsFull) {
  const CompactR1cs r = check_circuit([](auto& cs) { random_coeffs(cs, 3, 8400, 6, 2000); }, CoeffEncoding::Full);
  EXPECT_GT(r.coeffs.size(), 65536u);
}

TEST(PceMatVec, CornerCases) {
  for (uint64_t seed = 0; seed < 3; ++seed)
    check_circuit([&](auto& cs) { corner_cases(cs, seed); }, CoeffEncoding::Dict8);
}

TEST(PceMatVec, InputsOnlyNoAux) {
  const CompactR1cs r = check_circuit([](auto& cs) { inputs_only(cs, fr(9)); }, CoeffEncoding::Dict8);
  EXPECT_EQ(r.num_aux, 0u);
}

// Random sparse matrices (empty rows, long rows, columns anywhere, inputs included) with random
// dictionaries, against the reference product; the witness mixes 0, 1, -1 and random values.
TEST(PceMatVec, RandomMatricesProperty) {
  Xoshiro256 rng(42);
  for (int iter = 0; iter < 40; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    CompactR1cs r;
    r.num_inputs = 1 + rng() % 6;
    r.num_aux = iter % 10 == 0 ? 0 : rng() % 400;
    r.num_constraints = iter % 13 == 0 ? 0 : rng() % 300;
    const size_t dict = std::vector<size_t>{2, 3, 40, 256, 257, 1000}[rng() % 6];
    r.coeffs = {Fr::one(), -Fr::one()};
    for (size_t i = 2; i < dict; ++i) r.coeffs.push_back(i % 7 == 0 ? fr(uint64_t{1} << (i % 60)) : Fr::random(rng));
    const size_t width = r.num_columns();
    for (r1cs::CompactMatrix* m : {&r.a, &r.b, &r.c}) {
      for (size_t row = 0; row < r.num_constraints; ++row) {
        const uint64_t kind = rng() % 8;
        const size_t len = kind == 0 ? 0 : kind == 1 ? rng() % 60 : 1 + rng() % 4;
        std::vector<uint32_t> cols;
        for (size_t k = 0; k < len; ++k) cols.push_back(static_cast<uint32_t>(rng() % width));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (uint32_t col : cols) {
          m->col.push_back(col);
          // Mostly ±1, as real circuits.
          const uint64_t pick = rng() % 4;
          m->coeff.push_back(pick < 2 ? static_cast<uint32_t>(pick) : static_cast<uint32_t>(rng() % dict));
        }
        m->row_ptr.push_back(m->col.size());
      }
    }
    std::vector<Fr> inputs, aux;
    for (size_t i = 0; i < r.num_inputs; ++i) inputs.push_back(mixed_value(rng));
    for (size_t i = 0; i < r.num_aux; ++i) aux.push_back(mixed_value(rng));
    std::vector<Fr> z = inputs;
    z.insert(z.end(), aux.begin(), aux.end());
    const r1cs::R1cs full = r.expand();
    expect_matvec_everywhere(r, inputs, aux, r1cs::mul_vec(full.a, z), r1cs::mul_vec(full.b, z),
                             r1cs::mul_vec(full.c, z));
  }
}

TEST(PceMatVec, WrongSizesAreRejected) {
  RecordingCS rec;
  cubic(rec, Fr::zero());
  rec.finalize();
  const Pce pce = build_pce(rec.compact());
  ProvingCS p;
  cubic(p, fr(3));
  p.finalize();
  const std::vector<Fr>& in = p.inputs();
  const std::vector<Fr>& aux = p.aux();
  const size_t n = pce.num_constraints();
  std::vector<Fr> a(n), b(n), c(n), shorter(n - 1), longer(n + 1);
  std::vector<Fr> in_long = in, aux_short(aux.begin(), aux.end() - 1);
  in_long.push_back(Fr::one());

  auto expect_error = [](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "no exception for " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error([&] { matvec(pce, in_long, aux, a, b, c); }, "inputs has 3 values, the Pce needs 2");
  expect_error([&] { matvec(pce, in, aux_short, a, b, c); }, "aux has 2 values, the Pce needs 3");
  expect_error([&] { matvec(pce, in, aux, shorter, b, c); }, "output a");
  expect_error([&] { matvec(pce, in, aux, a, longer, c); }, "output b");
  expect_error([&] { matvec(pce, in, aux, a, b, std::span<Fr>{}); }, "output c");
  expect_error([&] { (void)matvec(pce, aux, in); }, "inputs");
  // Nothing was written by the rejected calls, and the right sizes work.
  EXPECT_EQ(a, std::vector<Fr>(n));
  matvec(pce, in, aux, a, b, c);
  EXPECT_EQ(a, p.a());
}

TEST(PceMatVec, EmptyPceIsANoOp) {
  const Pce empty;
  std::vector<Fr> none;
  EXPECT_NO_THROW(matvec(empty, none, none, none, none, none));
}

}  // namespace
