// groth16::setup against a slow computation from the definitions (tests/groth16_reference.hpp):
// every query of keys.hpp, point by point, for several circuits, encodings and thread counts;
// the Lagrange basis, QAP evaluation and fixed-base tables on their own; the density/infinity
// filtering and its consistency errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "groth16/setup.hpp"
#include "groth16_reference.hpp"
#include "pce_test_circuits.hpp"
#include "poly/domain.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::groth16;
using namespace cuzk::pce_test;
using g16_ref::Circuit;

void expect_same_key(const ProvingKey& got, const ProvingKey& want) {
  EXPECT_EQ(got.vk.alpha_g1, want.vk.alpha_g1);
  EXPECT_EQ(got.vk.beta_g1, want.vk.beta_g1);
  EXPECT_EQ(got.vk.beta_g2, want.vk.beta_g2);
  EXPECT_EQ(got.vk.gamma_g2, want.vk.gamma_g2);
  EXPECT_EQ(got.vk.delta_g1, want.vk.delta_g1);
  EXPECT_EQ(got.vk.delta_g2, want.vk.delta_g2);
  EXPECT_EQ(got.vk.ic, want.vk.ic);
  EXPECT_EQ(got.h, want.h);
  EXPECT_EQ(got.l, want.l);
  EXPECT_EQ(got.a, want.a);
  EXPECT_EQ(got.b_g1, want.b_g1);
  EXPECT_EQ(got.b_g2, want.b_g2);
}

// Sizes through the densities; no point of a/b is infinity.
void expect_density_shape(const ProvingKey& pk, const pce::Pce& pce) {
  const size_t m = poly::Domain::size_for(pce.num_constraints());
  EXPECT_EQ(pk.vk.ic.size(), pce.num_inputs());
  EXPECT_EQ(pk.l.size(), pce.num_aux());
  EXPECT_EQ(pk.h.size(), m - 1);
  EXPECT_EQ(pk.a.size(), pce.num_inputs() + pce.a_aux_density().count());
  EXPECT_EQ(pk.b_g1.size(), pce.b_input_density().count() + pce.b_aux_density().count());
  EXPECT_EQ(pk.b_g2.size(), pk.b_g1.size());
  for (const auto& p : pk.a) EXPECT_FALSE(p.is_identity());
  for (const auto& p : pk.b_g1) EXPECT_FALSE(p.is_identity());
  for (const auto& p : pk.b_g2) EXPECT_FALSE(p.is_identity());
  for (const auto& p : pk.h) EXPECT_TRUE(p.is_on_curve() && !p.is_identity());
}

template <class F>
void check_against_reference(F&& circuit, uint64_t seed) {
  const Circuit c = g16_ref::build(circuit);
  const ToxicWaste tw = ToxicWaste::from_seed(seed);
  const ProvingKey want = g16_ref::setup(c.r1cs, tw);
  {
    SCOPED_TRACE("global pool");
    const ProvingKey pk = setup(c.pce, tw);
    expect_same_key(pk, want);
    expect_density_shape(pk, c.pce);
  }
  for (ThreadPool* pool : {&test::pool<1>(), &test::pool<4>()}) {
    SCOPED_TRACE(std::to_string(pool->size()) + " threads");
    expect_same_key(setup(c.pce, tw, {}, pool), want);
  }
  // Other Pce forms of the same matrices: full coefficients, u64 row pointers.
  const pce::Pce full =
      pce::build_pce(c.compact, {.circuit_id = "t", .encoding = pce::CoeffEncoding::Full, .force_row_ptr64 = true});
  expect_same_key(setup(full, tw, {}, &test::pool<4>()), want);
  if (c.compact.coeffs.size() <= 65536) {
    const pce::Pce d16 = pce::build_pce(c.compact, {.circuit_id = "t", .encoding = pce::CoeffEncoding::Dict16});
    expect_same_key(setup(d16, tw, {}, &test::pool<4>()), want);
  }
}

TEST(Setup, ToxicWasteFromSeed) {
  const ToxicWaste a = ToxicWaste::from_seed(1), b = ToxicWaste::from_seed(1), c = ToxicWaste::from_seed(2);
  EXPECT_EQ(a.tau, b.tau);
  EXPECT_EQ(a.delta, b.delta);
  EXPECT_NE(a.tau, c.tau);
  for (const Fr* x : {&a.tau, &a.alpha, &a.beta, &a.gamma, &a.delta}) EXPECT_FALSE(x->is_zero());
  EXPECT_NE(a.alpha, a.beta);
}

TEST(Setup, LagrangeBasis) {
  Xoshiro256 rng(3);
  for (size_t m : {2, 8, 64}) {
    const Fr tau = Fr::random(rng);
    const std::vector<Fr> want = g16_ref::lagrange(m, tau);
    EXPECT_EQ(lagrange_at(m, tau, &test::pool<1>()), want);
    EXPECT_EQ(lagrange_at(m, tau, &test::pool<4>()), want);
    Fr sum = Fr::zero();
    for (const Fr& l : want) sum += l;
    EXPECT_EQ(sum, Fr::one());  // the basis sums to the constant polynomial 1
  }
  // Larger than a chunk: compare against the closed form at a few points.
  const size_t m = size_t{1} << 14;
  const Fr tau = Fr::random(rng);
  const std::vector<Fr> l = lagrange_at(m, tau, &test::pool<4>());
  Fr sum = Fr::zero();
  for (const Fr& x : l) sum += x;
  EXPECT_EQ(sum, Fr::one());
  // tau in the domain is rejected.
  EXPECT_EQ(g16_ref::omega(64), poly::root_of_unity(6, poly::RootConvention::Zcash));
  EXPECT_THROW(lagrange_at(64, g16_ref::omega(64).pow(5)), std::invalid_argument);
}

TEST(Setup, QapMatchesNaive) {
  const Circuit c = g16_ref::build([](auto& cs) { random_coeffs(cs, 5, 30, 4, 12); });
  Xoshiro256 rng(9);
  const Fr tau = Fr::random(rng);
  const g16_ref::Qap want = g16_ref::qap_at(c.r1cs, tau);
  for (ThreadPool* pool : {&test::pool<1>(), &test::pool<4>()}) {
    const QapAtTau got = evaluate_qap(c.pce, tau, pool);
    EXPECT_EQ(got.domain_size, want.m);
    EXPECT_EQ(got.z, tau.pow(want.m) - Fr::one());
    EXPECT_EQ(got.u, want.u);
    EXPECT_EQ(got.v, want.v);
    EXPECT_EQ(got.w, want.w);
  }
}

template <class C>
void check_fixed_base(const ec::Affine<C>& base, std::initializer_list<unsigned> windows) {
  Xoshiro256 rng(11);
  std::vector<Fr> scalars = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2), Fr::from_u64(0xffffffffffffffffULL)};
  // More than 64 scalars: the batch-affine path (fewer take the Jacobian one; both checked).
  for (int i = 0; i < 75; ++i) scalars.push_back(Fr::random(rng));
  scalars.push_back(scalars[7]);
  std::vector<ec::Affine<C>> want;
  for (const Fr& k : scalars) want.push_back(g16_ref::naive_mul(base, k).to_affine());
  for (unsigned w : windows) {
    SCOPED_TRACE("window " + std::to_string(w));
    const FixedBaseTable<C> table(base, w, scalars.size(), &test::pool<4>());
    EXPECT_GE(table.window_bits() * table.num_windows(), 255u);
    for (size_t i = 0; i < scalars.size(); ++i) EXPECT_EQ(table.mul(scalars[i]).to_affine(), want[i]);
    for (ThreadPool* pool : {&test::pool<1>(), &test::pool<4>()}) {
      std::vector<ec::Affine<C>> out(scalars.size());
      std::atomic<uint64_t> done{0};
      table.mul_many(scalars, out, pool, [&](uint64_t k) { done += k; });
      EXPECT_EQ(out, want);
      EXPECT_EQ(done.load(), scalars.size());
    }
    std::vector<ec::Affine<C>> few(10);
    table.mul_many(std::span<const Fr>(scalars).first(10), few);
    EXPECT_EQ(few, std::vector<ec::Affine<C>>(want.begin(), want.begin() + 10));
  }
  std::vector<ec::Affine<C>> bad(scalars.size() + 1);
  EXPECT_THROW(FixedBaseTable<C>(base, 4).mul_many(scalars, bad), std::invalid_argument);
}

TEST(Setup, FixedBaseG1) {
  check_fixed_base(ec::g1_generator(), {1, 2, 3, 5, 9, 0});
}
TEST(Setup, FixedBaseG2) {
  check_fixed_base(ec::g2_generator(), {1, 4, 6, 0});
}
TEST(Setup, DefaultWindowGrowsWithCount) {
  EXPECT_LE(FixedBaseTable<ec::G1Config>::default_window(1), 6u);
  EXPECT_GE(FixedBaseTable<ec::G1Config>::default_window(1 << 20), 10u);
  // Rows (2^w entries) stay within 8 MiB however many points: 16 bits for G1, 15 for G2.
  EXPECT_EQ(FixedBaseTable<ec::G1Config>::default_window(size_t{1} << 30), 16u);
  EXPECT_EQ(FixedBaseTable<ec::G2Config>::default_window(size_t{1} << 30), 15u);
  // A 2 KiB PoRep key: 10.2 M G1 points, 0.69 M G2 points.
  EXPECT_EQ(FixedBaseTable<ec::G1Config>::default_window(10'240'446), 16u);
  EXPECT_EQ(FixedBaseTable<ec::G2Config>::default_window(685'525), 15u);
}

TEST(Setup, Cubic) {
  check_against_reference([](auto& cs) { cubic(cs, Fr::from_u64(3)); }, 1);
}
TEST(Setup, CornerCases) {
  check_against_reference([](auto& cs) { corner_cases(cs, 2); }, 2);
}
TEST(Setup, InputsOnly) {
  check_against_reference([](auto& cs) { inputs_only(cs, Fr::from_u64(7)); }, 3);
}
TEST(Setup, RandomCoeffs) {
  // > 256 distinct coefficients: Dict16.
  check_against_reference([](auto& cs) { random_coeffs(cs, 4, 40, 6, 16); }, 4);
}
TEST(Setup, FilecoinLike) {
  check_against_reference([](auto& cs) { filecoin_like(cs, 5, 1, 1); }, 5);
}

TEST(Setup, Densities) {
  // filecoin_like has aux columns absent from A (bits only in C) and from B, and inputs only in C
  // besides their input constraint: the a/b queries skip exactly the density's zero bits.
  const Circuit c = g16_ref::build([](auto& cs) { filecoin_like(cs, 6, 2, 1); });
  const pce::Pce& p = c.pce;
  ASSERT_LT(p.a_aux_density().count(), p.num_aux());
  ASSERT_LT(p.b_aux_density().count(), p.num_aux());
  ASSERT_LT(p.b_input_density().count(), p.num_inputs());
  const ToxicWaste tw = ToxicWaste::from_seed(6);
  const ProvingKey pk = setup(p, tw);
  expect_density_shape(pk, p);
  // a[k] is u_col(tau) G1 for the k-th column with a density bit (inputs always).
  const QapAtTau q = evaluate_qap(p, tw.tau);
  const FixedBaseTable<ec::G1Config> g1(ec::g1_generator(), 4);
  size_t ka = 0, kb = 0;
  for (uint64_t col = 0; col < p.num_columns(); ++col) {
    const bool in_a = col < p.num_inputs() || p.a_aux_density().test(col - p.num_inputs());
    const bool in_b =
        col < p.num_inputs() ? p.b_input_density().test(col) : p.b_aux_density().test(col - p.num_inputs());
    EXPECT_EQ(in_a, !q.u[col].is_zero());
    EXPECT_EQ(in_b, !q.v[col].is_zero());
    if (in_a) {
      EXPECT_EQ(pk.a.at(ka++), g1.mul(q.u[col]).to_affine());
    }
    if (in_b) {
      EXPECT_EQ(pk.b_g1.at(kb++), g1.mul(q.v[col]).to_affine());
    }
  }
  EXPECT_EQ(ka, pk.a.size());
  EXPECT_EQ(kb, pk.b_g1.size());
}

TEST(Setup, ProgressReachesTotal) {
  const Circuit c = g16_ref::build([](auto& cs) { filecoin_like(cs, 7, 1, 1); });
  std::atomic<uint64_t> last_total{0}, calls{0};
  std::mutex mu;
  uint64_t max_done = 0;
  setup(c.pce, ToxicWaste::from_seed(7), [&](uint64_t done, uint64_t total) {
    std::lock_guard lock(mu);
    max_done = std::max(max_done, done);
    last_total = total;
    ++calls;
  });
  EXPECT_GT(calls.load(), 1u);
  EXPECT_EQ(max_done, last_total.load());
}

// A column whose A entries cancel at tau: u(x) = L_0(x) + c L_1(x) with c chosen so that
// u(tau) = 0. The A density has the bit but the point would be infinity: setup must refuse.
TEST(Setup, DensityMismatchIsAnError) {
  const ToxicWaste tw = ToxicWaste::from_seed(8);
  const size_t m = 4;  // 2 constraints + 1 input constraint
  const Fr w = g16_ref::omega(m);
  const Fr coeff = (w - tw.tau) * (w * (tw.tau - Fr::one())).inverse();
  auto circuit = [&](auto& cs) {
    using CS = std::remove_reference_t<decltype(cs)>;
    r1cs::Variable x = cs.alloc([] { return "x"; }, [] { return Fr::zero(); });
    cs.enforce([] { return "r0"; }, [&](r1cs::LC lc) { return lc + x; }, [&](r1cs::LC lc) { return lc + CS::one(); },
               [&](r1cs::LC lc) { return lc; });
    cs.enforce([] { return "r1"; }, [&](r1cs::LC lc) { return lc + coeff * x; },
               [&](r1cs::LC lc) { return lc + CS::one(); }, [&](r1cs::LC lc) { return lc; });
  };
  const Circuit c = g16_ref::build(circuit);
  ASSERT_EQ(poly::Domain::size_for(c.pce.num_constraints()), m);
  ASSERT_TRUE(c.pce.a_aux_density().test(0));
  EXPECT_TRUE(evaluate_qap(c.pce, tw.tau).u[c.pce.num_inputs()].is_zero());
  EXPECT_THROW(setup(c.pce, tw), std::runtime_error);
  // Any other tau is fine.
  ToxicWaste other = tw;
  other.tau += Fr::one();
  const ProvingKey pk = setup(c.pce, other);
  EXPECT_EQ(pk.a.size(), c.pce.num_inputs() + 1);
}

// Without the input constraints an input that appears only in C has u_i = 0: refused.
TEST(Setup, MissingInputConstraintsIsAnError) {
  r1cs::RecordingCS rec;
  cubic(rec, Fr::from_u64(3));  // input "out" is only in C; no finalize()
  const pce::Pce p = pce::build_pce(rec.compact());
  EXPECT_THROW(setup(p, ToxicWaste::from_seed(9)), std::runtime_error);
}

TEST(Setup, ZeroToxicValueRejected) {
  const Circuit c = g16_ref::build([](auto& cs) { cubic(cs, Fr::from_u64(3)); });
  ToxicWaste tw = ToxicWaste::from_seed(10);
  tw.delta = Fr::zero();
  EXPECT_THROW(setup(c.pce, tw), std::invalid_argument);
  tw = ToxicWaste::from_seed(10);
  tw.tau = g16_ref::omega(8).pow(3);  // in the domain
  EXPECT_THROW(setup(c.pce, tw), std::invalid_argument);
}

}  // namespace
