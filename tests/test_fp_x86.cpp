// The x86-64 mulx/adcx/adox Montgomery multiplication must agree bit for bit with the portable
// CIOS loop (Fp::mont_mul_portable) on both BLS12-381 fields: random operands and edge cases.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "util/cpu_features.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ff;

template <class F>
class FieldX86Test : public ::testing::Test {};
using Fields = ::testing::Types<Fr, Fq>;
TYPED_TEST_SUITE(FieldX86Test, Fields);

TEST(CpuFeatures, RequireMatchesBuild) {
#if defined(CUZK_X86_ADX)
  if (cpu_has_adx_bmi2()) {
    EXPECT_NO_THROW(require_cpu_features());
  } else {
    try {
      require_cpu_features();
      FAIL() << "require_cpu_features() should throw on a CPU without ADX/BMI2";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("CUZK_X86_ADX=OFF"), std::string::npos);
    }
  }
#else
  EXPECT_NO_THROW(require_cpu_features());
#endif
}

#if defined(CUZK_X86_ADX)

namespace {

// Edge-case operands (raw Montgomery limbs, all < p): 0, 1, 2, p-1, p-2, R mod p (the Montgomery
// one), R^2 mod p, (p-1)/2, the largest values below p whose low limbs are all ones, single limbs
// set to all ones, and 2^k for k at each limb boundary.
template <class F>
std::vector<typename F::LimbsT> edge_cases() {
  using L = typename F::LimbsT;
  constexpr size_t N = F::N;
  std::vector<L> v;
  L x{};
  v.push_back(x);  // 0
  x[0] = 1;
  v.push_back(x);  // 1
  x[0] = 2;
  v.push_back(x);  // 2
  L pm1 = F::MOD;
  pm1[0] -= 1;  // p is odd
  v.push_back(pm1);
  L pm2 = F::MOD;
  pm2[0] -= 2;
  v.push_back(pm2);
  v.push_back(F::R1);
  v.push_back(F::R2);
  v.push_back(F::P_MINUS_1_OVER_2);
  // p with the k lowest limbs replaced by all ones and limb k decremented (k < N-1): the largest
  // value below p whose low k limbs are all ones.
  for (size_t k = 1; k < N; ++k) {
    L y = F::MOD;
    for (size_t j = 0; j < k; ++j) y[j] = ~uint64_t{0};
    if (y[k] == 0) continue;
    y[k] -= 1;
    v.push_back(y);
  }
  // All ones in every limb but the top one, with the top one just below p's.
  {
    L y;
    for (size_t j = 0; j + 1 < N; ++j) y[j] = ~uint64_t{0};
    y[N - 1] = F::MOD[N - 1] - 1;
    v.push_back(y);
  }
  // A single all-ones limb (below the top limb).
  for (size_t k = 0; k + 1 < N; ++k) {
    L y{};
    y[k] = ~uint64_t{0};
    v.push_back(y);
  }
  // 2^(64k) and 2^(64k) - 1.
  for (size_t k = 1; k < N; ++k) {
    L y{};
    y[k] = 1;
    v.push_back(y);
    L z{};
    for (size_t j = 0; j < k; ++j) z[j] = ~uint64_t{0};
    v.push_back(z);
  }
  for (const L& e : v) EXPECT_TRUE(less_than(e, F::MOD));
  return v;
}

template <class F>
typename F::LimbsT x86_mul(const typename F::LimbsT& a, const typename F::LimbsT& b) {
  typename F::LimbsT r;
  x86::mont_mul<F::N>(r.data(), a.data(), b.data(), F::MOD.data(), F::INV);
  return r;
}

template <class F>
typename F::LimbsT x86_sqr(const typename F::LimbsT& a) {
  typename F::LimbsT r;
  x86::mont_sqr<F::N>(r.data(), a.data(), F::MOD.data(), F::INV);
  return r;
}

}  // namespace

TYPED_TEST(FieldX86Test, MulMatchesPortableRandom) {
  using F = TypeParam;
  Xoshiro256 rng(0x5eed0001 + F::N);
  for (int i = 0; i < 100000; ++i) {
    const auto a = F::random(rng).raw();
    const auto b = F::random(rng).raw();
    const auto want = F::mont_mul_portable(a, b);
    ASSERT_EQ(x86_mul<F>(a, b), want) << "i=" << i;
    ASSERT_EQ(x86_sqr<F>(a), F::mont_mul_portable(a, a)) << "i=" << i;
  }
}

TYPED_TEST(FieldX86Test, MulMatchesPortableEdgeCases) {
  using F = TypeParam;
  const auto edges = edge_cases<F>();
  Xoshiro256 rng(7);
  for (const auto& a : edges) {
    EXPECT_EQ(x86_sqr<F>(a), F::mont_mul_portable(a, a));
    for (const auto& b : edges) EXPECT_EQ(x86_mul<F>(a, b), F::mont_mul_portable(a, b));
    for (int i = 0; i < 200; ++i) {
      const auto b = F::random(rng).raw();
      EXPECT_EQ(x86_mul<F>(a, b), F::mont_mul_portable(a, b));
      EXPECT_EQ(x86_mul<F>(b, a), F::mont_mul_portable(b, a));
    }
  }
}

TYPED_TEST(FieldX86Test, KnownIdentities) {
  using F = TypeParam;
  typename F::LimbsT one{};
  one[0] = 1;
  // mont_mul(R, x) = x; mont_mul(R^2, 1) = R; mont_mul(p-1, p-1) = mont_mul(1, 1) since (-1)^2 = 1.
  Xoshiro256 rng(11);
  for (int i = 0; i < 100; ++i) {
    const auto x = F::random(rng).raw();
    EXPECT_EQ(x86_mul<F>(F::R1, x), x);
  }
  EXPECT_EQ(x86_mul<F>(F::R2, one), F::R1);
  typename F::LimbsT pm1 = F::MOD;
  pm1[0] -= 1;
  EXPECT_EQ(x86_mul<F>(pm1, pm1), x86_mul<F>(one, one));
  EXPECT_EQ(x86_sqr<F>(pm1), x86_mul<F>(one, one));
}

TYPED_TEST(FieldX86Test, AliasedOutput) {
  using F = TypeParam;
  Xoshiro256 rng(12);
  for (int i = 0; i < 1000; ++i) {
    auto a = F::random(rng).raw();
    auto b = F::random(rng).raw();
    const auto want = F::mont_mul_portable(a, b);
    auto a2 = a;
    x86::mont_mul<F::N>(a2.data(), a2.data(), b.data(), F::MOD.data(), F::INV);  // r == a
    EXPECT_EQ(a2, want);
    auto b2 = b;
    x86::mont_mul<F::N>(b2.data(), a.data(), b2.data(), F::MOD.data(), F::INV);  // r == b
    EXPECT_EQ(b2, want);
    auto s = a;
    x86::mont_sqr<F::N>(s.data(), s.data(), F::MOD.data(), F::INV);  // r == a
    EXPECT_EQ(s, F::mont_mul_portable(a, a));
  }
}

TYPED_TEST(FieldX86Test, FieldOpsUseFastPath) {
  // Fp's operators go through x86::mont_mul at run time; cross-check a few ring identities
  // against values computed entirely by the portable loop.
  using F = TypeParam;
  Xoshiro256 rng(13);
  for (int i = 0; i < 1000; ++i) {
    F a = F::random(rng), b = F::random(rng);
    EXPECT_EQ((a * b).raw(), F::mont_mul_portable(a.raw(), b.raw()));
    EXPECT_EQ(a.square().raw(), F::mont_mul_portable(a.raw(), a.raw()));
    if (!a.is_zero()) {
      EXPECT_EQ(a * a.inverse(), F::one());
    }
  }
}

#else  // !CUZK_X86_ADX

TYPED_TEST(FieldX86Test, MulMatchesPortableRandom) {
  GTEST_SKIP() << "built without CUZK_X86_ADX";
}

#endif
