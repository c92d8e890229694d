// Batch curve-equation checks (ec/on_curve.hpp): the AVX-512 IFMA path and the scalar path against
// Affine::is_on_curve point by point, on mixes of curve points, off-curve points and infinity.
#include <gtest/gtest.h>

#include <vector>

#include "ec/fq_ifma.hpp"
#include "ec/msm.hpp"
#include "ec/on_curve.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

// Restores the process-wide IFMA switch on scope exit.
struct SimdSwitch {
  explicit SimdSwitch(bool on) { fq_ifma::set_enabled(on); }
  ~SimdSwitch() { fq_ifma::set_enabled(true); }
};

size_t reference(std::span<const G1Affine> p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p[i].is_on_curve()) return i;
  }
  return p.size();
}
size_t reference(std::span<const G2Affine> p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p[i].is_on_curve()) return i;
  }
  return p.size();
}

template <class A>
std::vector<A> curve_points(size_t n, uint64_t seed) {
  if constexpr (std::is_same_v<A, G1Affine>) {
    return g1_test_bases(n, seed);
  } else {
    return g2_test_bases(n, seed);
  }
}

// Random mixes: every size up to a few groups, infinity sprinkled in, and zero or one off-curve
// point (y + 1, or random coordinates) at a random index; also several bad points, where the
// first must be reported.
template <class A>
void check_random(bool simd) {
  SimdSwitch sw(simd);
  Xoshiro256 rng(simd ? 11 : 12);
  const std::vector<A> good = curve_points<A>(700, 3);
  using F = typename A::F;
  for (size_t n : {0, 1, 7, 8, 9, 63, 255, 256, 257, 700}) {
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<A> p(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
      for (size_t i = 0; i < n; ++i) {
        if (rng() % 13 == 0) p[i] = A();
      }
      const int bad = n == 0 ? 0 : trial % 3;  // 0, 1 or 2 bad points
      for (int b = 0; b < bad; ++b) {
        const size_t at = rng() % n;
        if (rng() % 2) {
          p[at] = A(p[at].infinity ? F::one() : p[at].x, (p[at].infinity ? F::one() : p[at].y) + F::one());
        } else {
          p[at] = A(F::random(rng), F::random(rng));
        }
      }
      const size_t want = reference(std::span<const A>(p));
      if (bad > 0) {
        ASSERT_LT(want, n) << "the test should have made an off-curve point";
      }
      EXPECT_EQ(first_off_curve(std::span<const A>(p)), want) << "n " << n << " trial " << trial;
    }
  }
}

TEST(OnCurve, G1RandomSimd) {
  if (!fq_ifma::cpu_supported()) GTEST_SKIP() << "CPU lacks AVX-512 IFMA";
  check_random<G1Affine>(true);
}
TEST(OnCurve, G1RandomScalar) {
  check_random<G1Affine>(false);
}
TEST(OnCurve, G2RandomSimd) {
  if (!fq_ifma::cpu_supported()) GTEST_SKIP() << "CPU lacks AVX-512 IFMA";
  check_random<G2Affine>(true);
}
TEST(OnCurve, G2RandomScalar) {
  check_random<G2Affine>(false);
}

// Exact cases: (0, 2) and (0, -2) lie on y^2 = x^3 + 4 (outside the subgroup, which is not asked);
// (1, 2) and (0, 0) do not; the generators do. Both paths, with the bad point in every lane.
TEST(OnCurve, G1ExactPoints) {
  for (bool simd : {true, false}) {
    SimdSwitch sw(simd);
    const Fq two = Fq::from_u64(2);
    std::vector<G1Affine> p(16, g1_generator());
    p[3] = G1Affine(Fq::zero(), two);
    p[4] = G1Affine(Fq::zero(), -two);
    EXPECT_EQ(first_off_curve(std::span<const G1Affine>(p)), 16u);
    for (size_t lane = 0; lane < 16; ++lane) {
      std::vector<G1Affine> q = p;
      q[lane] = G1Affine(Fq::one(), two);
      EXPECT_EQ(first_off_curve(std::span<const G1Affine>(q)), lane);
      q[lane] = G1Affine(Fq::zero(), Fq::zero());
      EXPECT_EQ(first_off_curve(std::span<const G1Affine>(q)), lane);
    }
  }
}

TEST(OnCurve, G2ExactPoints) {
  for (bool simd : {true, false}) {
    SimdSwitch sw(simd);
    std::vector<G2Affine> p(9, g2_generator());
    EXPECT_EQ(first_off_curve(std::span<const G2Affine>(p)), 9u);
    // Swapping the components of y leaves the curve (y^2 changes, x^3 + b does not).
    p[8] = G2Affine(p[8].x, Fq2(p[8].y.c1, p[8].y.c0));
    EXPECT_EQ(first_off_curve(std::span<const G2Affine>(p)), 8u);
  }
}

}  // namespace
