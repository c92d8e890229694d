// The two-stage Groth16 prover: proofs satisfy the pairing equation for several circuits (inputs
// allocated between constraints included); a wrong witness or wrong public input fails it; with
// fixed r, s the proof equals a slow reference prover (tests/groth16_reference.hpp: naive MSMs,
// H by interpolation and long division) exactly; the PCE (MatVec) and ProvingCS paths agree;
// prove_many equals individual proofs; size mismatches are rejected.
//
// DISABLED_Timing measures setup and proving at a chosen size:
//   CUZK_G16_ROUNDS=390 test_prover --gtest_also_run_disabled_tests --gtest_filter='*Timing*'
// (filecoin_like rounds; 390 rounds = 2^16 - a few constraints).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16_reference.hpp"
#include "pce/matvec.hpp"
#include "pce_test_circuits.hpp"
#include "poly/domain.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::groth16;
using namespace cuzk::pce_test;
using g16_ref::Circuit;

struct Fixture {
  Circuit c;
  ProvingKey pk;
};

template <class F>
Fixture make(F&& circuit, uint64_t seed) {
  Fixture f{g16_ref::build(circuit), {}};
  f.pk = setup(f.c.pce, ToxicWaste::from_seed(seed));
  return f;
}

std::pair<Fr, Fr> fixed_rs(uint64_t seed) {
  Xoshiro256 rng(seed);
  const Fr r = Fr::random(rng);
  return {r, Fr::random(rng)};
}

// Proves with fixed r, s; checks the pairing equation and the reference prover's proof.
template <class F>
void check_circuit(F&& circuit, uint64_t seed, bool reference = true) {
  const Fixture f = make(circuit, seed);
  const auto [r, s] = fixed_rs(seed);
  ProveTimings t;
  const Proof proof = prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), r, s, &t);
  EXPECT_TRUE(g16_ref::verify(f.pk.vk, f.c.inputs(), proof));
  EXPECT_GE(t.total_s(), 0.0);
  if (reference) {
    EXPECT_EQ(proof, g16_ref::prove(f.pk, f.c.r1cs, f.c.inputs(), f.c.aux(), r, s));
  }
  // Random r, s from SystemRng: different proof, still valid.
  const Proof random = prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux());
  EXPECT_TRUE(g16_ref::verify(f.pk.vk, f.c.inputs(), random));
  EXPECT_NE(random, proof);
  // Thread-count independence.
  EXPECT_EQ(prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), r, s, nullptr, {.pool = &test::pool<1>()}), proof);
  EXPECT_EQ(prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), r, s, nullptr, {.pool = &test::pool<4>()}), proof);
}

TEST(Prover, Cubic) {
  check_circuit([](auto& cs) { cubic(cs, Fr::from_u64(3)); }, 1);
}
TEST(Prover, CornerCases) {  // inputs allocated between constraints, empty LCs, an input equal to 0
  check_circuit([](auto& cs) { corner_cases(cs, 2); }, 2);
}
TEST(Prover, InputsOnly) {  // no aux at all
  check_circuit([](auto& cs) { inputs_only(cs, Fr::from_u64(9)); }, 3);
}
TEST(Prover, RandomCoeffs) {
  check_circuit([](auto& cs) { random_coeffs(cs, 4, 40, 5, 16); }, 4);
}
TEST(Prover, FilecoinLike) {
  check_circuit([](auto& cs) { filecoin_like(cs, 5, 1, 1); }, 5);
}
TEST(Prover, FilecoinLikeLarger) {  // m = 512; pairing check only
  check_circuit([](auto& cs) { filecoin_like(cs, 6, 3, 2); }, 6, /*reference=*/false);
}

TEST(Prover, ZeroRandomizers) {
  const Fixture f = make([](auto& cs) { corner_cases(cs, 7); }, 7);
  const Proof p = prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), Fr::zero(), Fr::zero());
  EXPECT_TRUE(g16_ref::verify(f.pk.vk, f.c.inputs(), p));
  EXPECT_EQ(p, g16_ref::prove(f.pk, f.c.r1cs, f.c.inputs(), f.c.aux(), Fr::zero(), Fr::zero()));
}

TEST(Prover, HMatchesLongDivision) {
  const Circuit c = g16_ref::build([](auto& cs) { random_coeffs(cs, 8, 50, 3, 10); });
  const size_t m = poly::Domain::size_for(c.pce.num_constraints());
  const std::vector<Fr> want = g16_ref::h_poly(g16_ref::evaluate(c.r1cs, c.inputs(), c.aux()), m);
  EXPECT_EQ(compute_h(m, c.cs.a(), c.cs.b(), c.cs.c(), &test::pool<1>()), want);
  EXPECT_EQ(compute_h(m, c.cs.a(), c.cs.b(), c.cs.c(), &test::pool<4>()), want);
  EXPECT_THROW(compute_h(m + 1, c.cs.a(), c.cs.b(), c.cs.c()), std::invalid_argument);
  EXPECT_THROW(compute_h(m / 2, c.cs.a(), c.cs.b(), c.cs.c()), std::invalid_argument);
}

TEST(Prover, WrongWitnessFails) {
  const Fixture f = make([](auto& cs) { filecoin_like(cs, 8, 1, 1); }, 8);
  const auto [r, s] = fixed_rs(8);
  // A flipped aux value: the constraints no longer hold, H is not a quotient, the proof fails.
  for (size_t k : {size_t{13}, f.c.aux().size() - 1}) {
    std::vector<Fr> aux(f.c.aux().begin(), f.c.aux().end());
    aux[k] += Fr::one();
    const Proof p = prove(f.pk, f.c.pce, f.c.inputs(), aux, r, s);
    EXPECT_FALSE(g16_ref::verify(f.pk.vk, f.c.inputs(), p)) << "aux " << k;
  }
  // A wrong public input.
  std::vector<Fr> inputs(f.c.inputs().begin(), f.c.inputs().end());
  ASSERT_GE(inputs.size(), 2u);
  inputs[1] += Fr::one();
  EXPECT_FALSE(g16_ref::verify(f.pk.vk, f.c.inputs(), prove(f.pk, f.c.pce, inputs, f.c.aux(), r, s)));
  // A valid proof checked against other public inputs.
  const Proof good = prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), r, s);
  EXPECT_TRUE(g16_ref::verify(f.pk.vk, f.c.inputs(), good));
  EXPECT_FALSE(g16_ref::verify(f.pk.vk, inputs, good));
  // Another circuit's key.
  const ProvingKey other = setup(f.c.pce, ToxicWaste::from_seed(99));
  EXPECT_FALSE(g16_ref::verify(other.vk, f.c.inputs(), good));
}

TEST(Prover, PceAndProvingCsPathsAgree) {
  for (uint64_t seed : {9, 10}) {
    const Fixture f = make([&](auto& cs) { filecoin_like(cs, seed, 2, 1); }, seed);
    const auto [r, s] = fixed_rs(seed);
    ProveTimings t1, t2;
    const Proof via_pce = prove(f.pk, f.c.pce, f.c.inputs(), f.c.aux(), r, s, &t1);
    // ProvingCS gives a, b, c directly: only the split stages run.
    ProverInput in{f.c.inputs(), f.c.aux(), f.c.cs.a(), f.c.cs.b(), f.c.cs.c()};
    const ProofMsms msms = prove_stage1(f.pk, f.c.pce, std::move(in), &t2);
    const Proof via_cs = prove_finalize(f.pk.vk, msms, r, s, &t2);
    EXPECT_EQ(via_pce, via_cs);
    EXPECT_EQ(t2.matvec_s, 0.0);
    // make_prover_input gives the vectors ProvingCS has.
    const ProverInput mv = make_prover_input(f.c.pce, f.c.inputs(), f.c.aux());
    EXPECT_EQ(mv.a, f.c.cs.a());
    EXPECT_EQ(mv.b, f.c.cs.b());
    EXPECT_EQ(mv.c, f.c.cs.c());
  }
}

TEST(Prover, ProveManyEqualsIndividual) {
  // corner_cases has the same structure for every seed; only the witness changes.
  const Fixture f = make([](auto& cs) { corner_cases(cs, 1); }, 11);
  std::vector<Circuit> circuits;
  for (uint64_t seed : {1, 2, 3}) circuits.push_back(g16_ref::build([&](auto& cs) { corner_cases(cs, seed); }));
  std::vector<Witness> ws;
  std::vector<Fr> rs, ss;
  for (size_t i = 0; i < circuits.size(); ++i) {
    ASSERT_EQ(circuits[i].compact.a.col, f.c.compact.a.col);
    ws.push_back({circuits[i].inputs(), circuits[i].aux()});
    const auto [r, s] = fixed_rs(100 + i);
    rs.push_back(r);
    ss.push_back(s);
  }
  ProveTimings t;
  const std::vector<Proof> many = prove_many(f.pk, f.c.pce, ws, rs, ss, &t);
  ASSERT_EQ(many.size(), ws.size());
  for (size_t i = 0; i < ws.size(); ++i) {
    EXPECT_EQ(many[i], prove(f.pk, f.c.pce, ws[i].inputs, ws[i].aux, rs[i], ss[i]));
    EXPECT_TRUE(g16_ref::verify(f.pk.vk, ws[i].inputs, many[i]));
  }
  EXPECT_NE(many[0], many[1]);
  const std::vector<Proof> random = prove_many(f.pk, f.c.pce, ws);
  ASSERT_EQ(random.size(), ws.size());
  for (size_t i = 0; i < ws.size(); ++i) EXPECT_TRUE(g16_ref::verify(f.pk.vk, ws[i].inputs, random[i]));
  EXPECT_TRUE(prove_many(f.pk, f.c.pce, std::span<const Witness>{}).empty());
  EXPECT_THROW(prove_many(f.pk, f.c.pce, ws, std::span<const Fr>(rs).first(2), ss), std::invalid_argument);
}

TEST(Prover, SizeMismatchesRejected) {
  const Fixture f = make([](auto& cs) { filecoin_like(cs, 12, 1, 1); }, 12);
  const Fixture g = make([](auto& cs) { cubic(cs, Fr::from_u64(2)); }, 13);
  const auto rs12 = fixed_rs(12);
  // clang 14 cannot capture structured bindings: the lambda takes the pair.
  auto prove_with = [&](const ProvingKey& pk) {
    return prove(pk, f.c.pce, f.c.inputs(), f.c.aux(), rs12.first, rs12.second);
  };
  const auto& [r, s] = rs12;
  EXPECT_NO_THROW(validate_key(f.pk, f.c.pce));
  EXPECT_THROW(validate_key(g.pk, f.c.pce), std::invalid_argument);
  EXPECT_THROW(prove_with(g.pk), std::invalid_argument);
  auto expect_bad_key = [&](auto mutate, const char* what) {
    ProvingKey pk = f.pk;
    mutate(pk);
    try {
      validate_key(pk, f.c.pce);
      ADD_FAILURE() << what << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    EXPECT_THROW(prove_with(pk), std::invalid_argument);
  };
  expect_bad_key([](ProvingKey& pk) { pk.vk.ic.pop_back(); }, "ic");
  expect_bad_key([](ProvingKey& pk) { pk.l.push_back(pk.l[0]); }, "l (");
  expect_bad_key([](ProvingKey& pk) { pk.h.pop_back(); }, "h (");
  expect_bad_key([](ProvingKey& pk) { pk.a.pop_back(); }, "a (");
  expect_bad_key([](ProvingKey& pk) { pk.b_g1.pop_back(); }, "b_g1");
  expect_bad_key([](ProvingKey& pk) { pk.b_g2.push_back(pk.b_g2[0]); }, "b_g2");

  std::vector<Fr> inputs(f.c.inputs().begin(), f.c.inputs().end()), aux(f.c.aux().begin(), f.c.aux().end());
  auto short_in = std::span<const Fr>(inputs).first(inputs.size() - 1);
  auto short_aux = std::span<const Fr>(aux).first(aux.size() - 1);
  EXPECT_THROW(prove(f.pk, f.c.pce, short_in, aux, r, s), std::invalid_argument);
  EXPECT_THROW(prove(f.pk, f.c.pce, inputs, short_aux, r, s), std::invalid_argument);
  std::vector<Fr> bad_one = inputs;
  bad_one[0] = Fr::from_u64(2);
  EXPECT_THROW(prove(f.pk, f.c.pce, bad_one, aux, r, s), std::invalid_argument);
  EXPECT_THROW(make_prover_input(f.c.pce, short_in, aux), std::invalid_argument);

  ProverInput in = make_prover_input(f.c.pce, inputs, aux);
  in.c.pop_back();
  EXPECT_THROW(prove_stage1(f.pk, f.c.pce, std::move(in)), std::invalid_argument);
  ProverInput in2 = make_prover_input(f.c.pce, inputs, aux);
  in2.aux = short_aux;
  EXPECT_THROW(prove_stage1(f.pk, f.c.pce, std::move(in2)), std::invalid_argument);

  std::vector<Witness> ws = {{inputs, aux}, {short_in, aux}};
  std::vector<Fr> rs = {r, r}, ss = {s, s};
  EXPECT_THROW(prove_many(f.pk, f.c.pce, ws, rs, ss), std::invalid_argument);
}

// Setup and prove timings at a chosen size (see the header comment).
TEST(Prover, DISABLED_Timing) {
  const char* env = std::getenv("CUZK_G16_ROUNDS");
  const size_t rounds = env ? std::strtoull(env, nullptr, 10) : 390;
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
  auto t0 = clock::now();
  r1cs::RecordingCS rec;
  filecoin_like(rec, 1, rounds);
  rec.finalize();
  const pce::Pce p = pce::build_pce(rec.compact());
  r1cs::ProvingCS cs;
  filecoin_like(cs, 1, rounds);
  cs.finalize();
  std::printf(
      "circuit: %zu constraints (m = %zu), %zu inputs, %zu aux, nnz %zu/%zu/%zu; A aux %zu, B aux %zu; "
      "synth %.2fs, %u threads\n",
      static_cast<size_t>(p.num_constraints()), poly::Domain::size_for(p.num_constraints()),
      static_cast<size_t>(p.num_inputs()), static_cast<size_t>(p.num_aux()), static_cast<size_t>(p.info().nnz[0]),
      static_cast<size_t>(p.info().nnz[1]), static_cast<size_t>(p.info().nnz[2]),
      static_cast<size_t>(p.a_aux_density().count()), static_cast<size_t>(p.b_aux_density().count()), secs(t0),
      ThreadPool::global().size());
  t0 = clock::now();
  const ToxicWaste tw = ToxicWaste::from_seed(1);
  const QapAtTau q = evaluate_qap(p, tw.tau);
  std::printf("setup: QAP evaluation %.3fs\n", secs(t0));
  t0 = clock::now();
  const ProvingKey pk = setup(p, tw);
  std::printf("setup: total %.2fs (h %zu, l %zu, a %zu, b %zu points)\n", secs(t0), pk.h.size(), pk.l.size(),
              pk.a.size(), pk.b_g1.size());
  for (int run = 0; run < 2; ++run) {
    ProveTimings t;
    const auto [r, s] = fixed_rs(run);
    const Proof proof = prove(pk, p, cs.inputs(), cs.aux(), r, s, &t);
    std::printf(
        "prove: matvec %.3f  H %.3f  msm h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f  finalize %.4f  "
        "stage1 %.3f  total %.3fs\n",
        t.matvec_s, t.h_poly_s, t.msm_h_s, t.msm_l_s, t.msm_a_s, t.msm_b_g1_s, t.msm_b_g2_s, t.finalize_s, t.stage1_s(),
        t.total_s());
    EXPECT_TRUE(g16_ref::verify(pk.vk, cs.inputs(), proof));
  }
}

}  // namespace
