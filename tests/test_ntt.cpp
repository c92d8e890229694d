// Evaluation domains and NTTs (src/poly): root constants of both conventions, agreement with a naive
// O(n^2) DFT and with an independent textbook radix-2 NTT, round trips, thread-count independence,
// polynomial multiplication, error handling.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "poly/domain.hpp"
#include "poly/ntt_arith.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::poly;

namespace {

constexpr RootConvention kConventions[] = {RootConvention::Zcash, RootConvention::Snarkjs};

std::vector<Fr> random_vec(size_t n, uint64_t seed) {
  Xoshiro256 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

Fr horner(const std::vector<Fr>& coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

// out[i] = sum_j a[j] * (shift * w^i)^j, computed point by point.
std::vector<Fr> naive_dft(const std::vector<Fr>& a, const Fr& w, const Fr& shift) {
  std::vector<Fr> out(a.size());
  Fr x = shift;
  for (size_t i = 0; i < a.size(); ++i) {
    out[i] = horner(a, x);
    x *= w;
  }
  return out;
}

// Textbook recursive radix-2 decimation-in-time NTT (independent of the library's algorithm).
std::vector<Fr> ref_ntt(const std::vector<Fr>& a, const Fr& w) {
  const size_t n = a.size();
  if (n == 1) return a;
  std::vector<Fr> even(n / 2), odd(n / 2);
  for (size_t i = 0; i < n / 2; ++i) {
    even[i] = a[2 * i];
    odd[i] = a[2 * i + 1];
  }
  const Fr w2 = w.square();
  even = ref_ntt(even, w2);
  odd = ref_ntt(odd, w2);
  std::vector<Fr> out(n);
  Fr t = Fr::one();
  for (size_t k = 0; k < n / 2; ++k) {
    const Fr o = t * odd[k];
    out[k] = even[k] + o;
    out[k + n / 2] = even[k] - o;
    t *= w;
  }
  return out;
}

void scale_by_powers(std::vector<Fr>& a, const Fr& c, const Fr& base) {
  Fr s = c;
  for (auto& x : a) {
    x *= s;
    s *= base;
  }
}

Domain make(size_t n, RootConvention conv) {
  auto d = Domain::create(n, conv);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error());
  return std::move(d).value();
}

// Runs a test with the SIMD (AVX-512 IFMA) kernels enabled and with the scalar kernels forced; on a
// CPU without IFMA both variants exercise the scalar kernels.
class NttKernels : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { set_simd_enabled(GetParam()); }
  void TearDown() override { set_simd_enabled(true); }
};

std::string kernel_name(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "simd" : "scalar";
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Ntt, NttKernels, ::testing::Bool(), kernel_name);

TEST(Ntt, RootConstants) {
  // Derived in code as g^((r-1)/2^32); these are the published values.
  EXPECT_EQ(root_of_unity(32, RootConvention::Zcash).to_hex(),
            "0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
  EXPECT_EQ(root_of_unity(32, RootConvention::Snarkjs).to_hex(),
            "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
  EXPECT_EQ(multiplicative_generator(RootConvention::Zcash), Fr::from_u64(7));
  EXPECT_EQ(multiplicative_generator(RootConvention::Snarkjs), Fr::from_u64(5));
  for (auto conv : kConventions) {
    const Fr w32 = root_of_unity(32, conv);
    Fr x = w32;
    for (int i = 0; i < 31; ++i) x = x.square();
    EXPECT_EQ(x, -Fr::one());  // w_32^(2^31) = -1: primitive
    EXPECT_EQ(x.square(), Fr::one());
    EXPECT_EQ(root_of_unity(0, conv), Fr::one());
    EXPECT_EQ(root_of_unity(1, conv), -Fr::one());
    for (unsigned k = 0; k < 32; ++k) EXPECT_EQ(root_of_unity(k, conv), root_of_unity(k + 1, conv).square());
  }
  EXPECT_NE(root_of_unity(20, RootConvention::Zcash), root_of_unity(20, RootConvention::Snarkjs));
  EXPECT_THROW((void)root_of_unity(33, RootConvention::Zcash), std::invalid_argument);
}

TEST(Ntt, DomainAccessors) {
  for (auto conv : kConventions) {
    for (unsigned k = 1; k <= kMaxLogDomainSize; ++k) {
      const size_t n = size_t{1} << k;
      Domain d = make(n, conv);
      EXPECT_EQ(d.size(), n);
      EXPECT_EQ(d.log_size(), k);
      EXPECT_EQ(d.convention(), conv);
      EXPECT_EQ(d.omega(), root_of_unity(k, conv));
      EXPECT_EQ(d.omega().pow(static_cast<uint64_t>(n)), Fr::one());
      EXPECT_EQ(d.omega().pow(static_cast<uint64_t>(n / 2)), -Fr::one());
      EXPECT_EQ(d.omega() * d.omega_inv(), Fr::one());
      EXPECT_EQ(d.size_inv() * Fr::from_u64(n), Fr::one());
      EXPECT_EQ(d.generator(), multiplicative_generator(conv));
      EXPECT_EQ(d.element(3), d.omega().pow(uint64_t{3}));
      EXPECT_EQ(d.element(n + 1), d.omega());
      if (conv == RootConvention::Zcash) {
        EXPECT_EQ(d.default_coset_shift(), Fr::from_u64(7));
        EXPECT_EQ(d.z_on_coset(), Fr::from_u64(7).pow(static_cast<uint64_t>(n)) - Fr::one());
      } else {
        // w_2n: its square is w_n, and Z = x^n - 1 is -2 on the odd half of the 2n-domain.
        EXPECT_EQ(d.default_coset_shift(), root_of_unity(k + 1, conv));
        EXPECT_EQ(d.default_coset_shift().square(), d.omega());
        EXPECT_EQ(d.z_on_coset(), -Fr::from_u64(2));
      }
    }
  }
}

TEST(Ntt, InvalidSizes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{6}, size_t{1000}, (size_t{1} << 28) + 2, size_t{1} << 29,
                   size_t{1} << 40}) {
    auto d = Domain::create(n);
    EXPECT_FALSE(d.ok()) << n;
    if (!d.ok()) {
      EXPECT_NE(d.error().find("power of two"), std::string::npos) << d.error();
    }
  }
  EXPECT_EQ(Domain::size_for(0), 2u);
  EXPECT_EQ(Domain::size_for(1), 2u);
  EXPECT_EQ(Domain::size_for(2), 2u);
  EXPECT_EQ(Domain::size_for(5), 8u);
  EXPECT_EQ(Domain::size_for(1024), 1024u);
  EXPECT_EQ(Domain::size_for(1025), 2048u);
  EXPECT_EQ(Domain::size_for((size_t{1} << 28) + 1), 0u);
  auto d = Domain::create_at_least(1000, RootConvention::Snarkjs);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size(), 1024u);
  EXPECT_EQ(d->convention(), RootConvention::Snarkjs);
  EXPECT_FALSE(Domain::create_at_least((size_t{1} << 28) + 1).ok());
}

TEST(Ntt, WrongSpanSizeThrows) {
  Domain d = make(16, RootConvention::Zcash);
  std::vector<Fr> v(15);
  EXPECT_THROW(d.fft(v), std::invalid_argument);
  EXPECT_THROW(d.ifft(v), std::invalid_argument);
  EXPECT_THROW(d.coset_fft(v), std::invalid_argument);
  EXPECT_THROW(d.coset_ifft(v, Fr::from_u64(3)), std::invalid_argument);
  std::vector<Fr> w(16);
  EXPECT_THROW(d.coset_ifft(w, Fr::zero()), std::invalid_argument);
  try {
    d.fft(v);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 16"), std::string::npos) << e.what();
  }
}

TEST(Ntt, FieldHelpersMatchOperators) {
  std::vector<Fr> xs = random_vec(200, 12);
  xs.push_back(Fr::zero());
  xs.push_back(Fr::one());
  xs.push_back(-Fr::one());
  xs.push_back(-Fr::from_u64(2));
  for (const Fr& a : xs) {
    for (int i = 0; i < 8; ++i) {
      const Fr b = i < 4 ? xs[(i * 37 + 5) % xs.size()] : xs[xs.size() - 1 - (i - 4)];
      Fr r;
      poly::detail::add_to(poly::detail::limbs(&r), poly::detail::limbs(&a), poly::detail::limbs(&b));
      EXPECT_EQ(r, a + b);
      poly::detail::sub_to(poly::detail::limbs(&r), poly::detail::limbs(&a), poly::detail::limbs(&b));
      EXPECT_EQ(r, a - b);
      poly::detail::sub_to(poly::detail::limbs(&r), poly::detail::limbs(&b), poly::detail::limbs(&a));
      EXPECT_EQ(r, b - a);
      poly::detail::mul_to(poly::detail::limbs(&r), poly::detail::limbs(&a), poly::detail::limbs(&b));
      EXPECT_EQ(r, a * b);
      r = a;  // in place (the result aliases an operand)
      poly::detail::mul_to(poly::detail::limbs(&r), poly::detail::limbs(&r), poly::detail::limbs(&b));
      EXPECT_EQ(r, a * b);
      r = a;
      poly::detail::add_to(poly::detail::limbs(&r), poly::detail::limbs(&r), poly::detail::limbs(&r));
      EXPECT_EQ(r, a + a);
    }
  }
}

// Runs check() once with the scalar kernels forced and once with the SIMD kernels (if the CPU has
// them), so expensive expected values are computed once for both.
template <class F>
void for_each_kernel(F check) {
  for (bool simd : {false, true}) {
    if (simd && !simd_active()) continue;
    set_simd_enabled(simd);
    SCOPED_TRACE(simd ? "simd kernels" : "scalar kernels");
    check();
  }
  set_simd_enabled(true);
}

// Every transform against the O(n^2) definition, 2^1..2^10, both conventions.
TEST(Ntt, MatchesNaiveDft) {
  for (auto conv : kConventions) {
    for (unsigned k = 1; k <= 10; ++k) {
      const size_t n = size_t{1} << k;
      SCOPED_TRACE(std::string(to_string(conv)) + " n=2^" + std::to_string(k));
      Domain d = make(n, conv);
      const std::vector<Fr> a = random_vec(n, 100 + k);
      const std::vector<Fr> evals = naive_dft(a, d.omega(), Fr::one());
      // ifft: coefficients of the polynomial taking the values a at w^i.
      std::vector<Fr> coeffs = naive_dft(a, d.omega_inv(), Fr::one());
      for (auto& x : coeffs) x *= d.size_inv();
      // Default coset (7 for Zcash: bellperson multiplies coefficient i by 7^i; w_2n for Snarkjs).
      const std::vector<Fr> coset_evals = naive_dft(a, d.omega(), d.default_coset_shift());
      const Fr shift = random_vec(1, 200 + k)[0];
      const bool with_shift = k <= 8;
      const std::vector<Fr> shifted = with_shift ? naive_dft(a, d.omega(), shift) : std::vector<Fr>{};

      for_each_kernel([&] {
        std::vector<Fr> v = a;
        d.fft(v);
        EXPECT_EQ(v, evals);
        v = a;
        d.ifft(v);
        EXPECT_EQ(v, coeffs);
        v = a;
        d.coset_fft(v);
        EXPECT_EQ(v, coset_evals);
        d.coset_ifft(v);
        EXPECT_EQ(v, a);
        if (with_shift) {
          v = a;
          d.coset_fft(v, shift);
          EXPECT_EQ(v, shifted);
          // coset_ifft: values a at shift * w^i -> the coefficients that evaluate to them there.
          v = a;
          d.coset_ifft(v, shift);
          EXPECT_EQ(naive_dft(v, d.omega(), shift), a);
        }
      });
    }
  }
}

// Sizes across the direct / four-step boundary (four-step splits 6x7, 7x7, 7x8 points) against a
// textbook radix-2 NTT.
TEST(Ntt, MatchesReferenceNtt) {
  for (auto conv : kConventions) {
    for (unsigned k : {11u, 13u, 14u, 15u}) {
      const size_t n = size_t{1} << k;
      SCOPED_TRACE(std::string(to_string(conv)) + " n=2^" + std::to_string(k));
      Domain d = make(n, conv);
      const std::vector<Fr> a = random_vec(n, 300 + k);
      const Fr shift = k % 2 ? d.default_coset_shift() : Fr::from_u64(12345);

      const std::vector<Fr> evals = ref_ntt(a, d.omega());
      std::vector<Fr> coeffs = ref_ntt(a, d.omega_inv());
      std::vector<Fr> coset_coeffs = coeffs;
      for (auto& x : coeffs) x *= d.size_inv();
      scale_by_powers(coset_coeffs, d.size_inv(), shift.inverse());
      std::vector<Fr> distorted = a;
      scale_by_powers(distorted, Fr::one(), shift);
      const std::vector<Fr> coset_evals = ref_ntt(distorted, d.omega());

      for_each_kernel([&] {
        std::vector<Fr> v = a;
        d.fft(v);
        EXPECT_TRUE(v == evals);
        v = a;
        d.ifft(v);
        EXPECT_TRUE(v == coeffs);
        v = a;
        d.coset_fft(v, shift);
        EXPECT_TRUE(v == coset_evals);
        v = a;
        d.coset_ifft(v, shift);
        EXPECT_TRUE(v == coset_coeffs);
      });
    }
  }
}

TEST_P(NttKernels, LargeRoundTripsAndSpotChecks) {
  for (unsigned k : {17u, GetParam() ? 20u : 18u}) {
    const size_t n = size_t{1} << k;
    const RootConvention conv = k == 17 ? RootConvention::Snarkjs : RootConvention::Zcash;
    SCOPED_TRACE("n=2^" + std::to_string(k));
    Domain d = make(n, conv);
    const std::vector<Fr> a = random_vec(n, 400 + k);
    std::vector<Fr> v = a;
    d.fft(v);
    for (size_t i : {size_t{1}, n / 2 + 12345}) EXPECT_EQ(v[i], horner(a, d.element(i))) << i;
    d.ifft(v);
    EXPECT_TRUE(v == a);

    if (k == 17) {
      v = a;
      d.coset_fft(v);
      const Fr x = d.default_coset_shift() * d.element(777);
      EXPECT_EQ(v[777], horner(a, x));
      d.coset_ifft(v);
      EXPECT_TRUE(v == a);
    }
  }
}

TEST_P(NttKernels, MultiThreadedEqualsSingleThreaded) {
  ThreadPool serial(1);
  ThreadPool four(4);
  for (unsigned k : {12u, 14u, 15u}) {  // threads are used from 2^14 on
    const size_t n = size_t{1} << k;
    Domain d = make(n, RootConvention::Zcash);
    const std::vector<Fr> a = random_vec(n, 500 + k);
    std::vector<Fr> s = a, m = a;
    d.fft(s, serial);
    d.fft(m, four);
    EXPECT_TRUE(s == m) << k;
    d.coset_ifft(s, serial);
    d.coset_ifft(m, four);
    EXPECT_TRUE(s == m) << k;
    s = a;
    m = a;
    d.coset_fft(s, Fr::from_u64(5), serial);
    d.coset_fft(m, Fr::from_u64(5), four);
    EXPECT_TRUE(s == m) << k;
    d.ifft(s, serial);
    d.ifft(m, four);
    EXPECT_TRUE(s == m) << k;
  }
}

TEST_P(NttKernels, TransformsAreCalledFromInsidePoolTasks) {
  // Nested use (e.g. A, B and C transformed concurrently by a caller's parallel_for) runs serially.
  ThreadPool pool(3);
  Domain d = make(size_t{1} << 13, RootConvention::Snarkjs);
  std::vector<std::vector<Fr>> vs(3);
  for (size_t i = 0; i < 3; ++i) vs[i] = random_vec(d.size(), 600 + i);
  auto expect = vs;
  for (auto& v : expect) d.fft(v);
  pool.parallel_for(3, [&](size_t i) { d.fft(vs[i], pool); });
  EXPECT_TRUE(vs == expect);
}

TEST_P(NttKernels, PolynomialMultiplication) {
  Xoshiro256 rng(7);
  for (auto conv : kConventions) {
    for (int trial = 0; trial < 12; ++trial) {
      const size_t la = 1 + rng() % 90, lb = 1 + rng() % 90;
      const std::vector<Fr> a = random_vec(la, 700 + trial), b = random_vec(lb, 800 + trial);
      std::vector<Fr> school(la + lb - 1, Fr::zero());
      for (size_t i = 0; i < la; ++i)
        for (size_t j = 0; j < lb; ++j) school[i + j] += a[i] * b[j];

      auto dom = Domain::create_at_least(la + lb - 1, conv);
      ASSERT_TRUE(dom.ok());
      const size_t n = dom->size();
      std::vector<Fr> fa(n, Fr::zero()), fb(n, Fr::zero());
      std::copy(a.begin(), a.end(), fa.begin());
      std::copy(b.begin(), b.end(), fb.begin());
      const bool coset = trial % 2 == 1;  // also via coset evaluations
      if (coset) {
        dom->coset_fft(fa);
        dom->coset_fft(fb);
      } else {
        dom->fft(fa);
        dom->fft(fb);
      }
      for (size_t i = 0; i < n; ++i) fa[i] *= fb[i];
      if (coset) {
        dom->coset_ifft(fa);
      } else {
        dom->ifft(fa);
      }
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(fa[i], i < school.size() ? school[i] : Fr::zero()) << i;
    }
  }
}

// The two kernel families agree bit for bit on every operation (sizes where the IFMA four-step
// kernels take over, odd and even log sizes).
TEST(Ntt, SimdEqualsScalar) {
  if (!simd_active()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  for (auto conv : kConventions) {
    for (unsigned k : {6u, 7u, 9u, 12u, 13u, 15u}) {
      const size_t n = size_t{1} << k;
      Domain d = make(n, conv);
      const std::vector<Fr> a = random_vec(n, 900 + k);
      const Fr shift = random_vec(1, 950 + k)[0];
      for (int op = 0; op < 6; ++op) {
        std::vector<Fr> out[2];
        for (int simd = 0; simd < 2; ++simd) {
          set_simd_enabled(simd == 1);
          out[simd] = a;
          switch (op) {
            case 0:
              d.fft(out[simd]);
              break;
            case 1:
              d.ifft(out[simd]);
              break;
            case 2:
              d.coset_fft(out[simd]);
              break;
            case 3:
              d.coset_ifft(out[simd]);
              break;
            case 4:
              d.coset_fft(out[simd], shift);
              break;
            default:
              d.coset_ifft(out[simd], shift);
              break;
          }
        }
        set_simd_enabled(true);
        EXPECT_TRUE(out[0] == out[1]) << to_string(conv) << " k=" << k << " op=" << op;
      }
    }
  }
}

// Extreme inputs (0, 1, p - 1 everywhere) stress the lazy reductions of the kernels.
TEST_P(NttKernels, ExtremeValues) {
  for (unsigned k : {5u, 8u, 13u}) {
    const size_t n = size_t{1} << k;
    Domain d = make(n, RootConvention::Zcash);
    for (const Fr& c : {Fr::zero(), Fr::one(), -Fr::one()}) {
      std::vector<Fr> v(n, c);
      d.fft(v);
      // Every coefficient c: A(1) = n*c and A(w^i) = 0 for i != 0.
      EXPECT_EQ(v[0], Fr::from_u64(n) * c);
      for (size_t i = 1; i < n; ++i) ASSERT_TRUE(v[i].is_zero()) << i;
      d.ifft(v);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], c) << i;
    }
    std::vector<Fr> v(n, -Fr::one());
    for (size_t i = 0; i < n; i += 2) v[i] = Fr::zero();
    const std::vector<Fr> a = v;
    d.coset_fft(v);
    d.coset_ifft(v);
    EXPECT_TRUE(v == a);
  }
}

TEST(Ntt, VanishingPolynomial) {
  for (auto conv : kConventions) {
    Domain d = make(64, conv);
    for (size_t i = 0; i < 64; i += 7) EXPECT_TRUE(d.evaluate_vanishing(d.element(i)).is_zero());
    const Fr x = Fr::from_u64(3);
    EXPECT_EQ(d.evaluate_vanishing(x), x.pow(uint64_t{64}) - Fr::one());
    EXPECT_EQ(d.z_on_coset(x), d.evaluate_vanishing(x));
    // Z is constant on the coset: Z(shift * w^i) = shift^n - 1.
    for (size_t i = 0; i < 64; i += 9) EXPECT_EQ(d.evaluate_vanishing(x * d.element(i)), d.z_on_coset(x));
    EXPECT_FALSE(d.z_on_coset().is_zero());
  }
}
