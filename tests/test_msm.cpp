// Multi-scalar multiplication (ec/msm.hpp) against naive sums and discrete-log checks, for G1 and G2.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "ec/msm_glv.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

template <class C>
std::vector<Affine<C>> test_bases(size_t n, uint64_t seed, ThreadPool* pool = nullptr) {
  if constexpr (std::is_same_v<C, G1Config>) {
    return g1_test_bases(n, seed, pool);
  } else {
    return g2_test_bases(n, seed, pool);
  }
}

// Independent random points k*G (k random).
template <class C, class Rng>
std::vector<Affine<C>> random_bases(size_t n, Rng& rng) {
  std::vector<Jacobian<C>> j(n);
  const Jacobian<C> g(C::generator());
  for (auto& p : j) p = g.mul(Fr::random(rng));
  std::vector<Affine<C>> out(n);
  batch_to_affine<C>(j, out);
  return out;
}

template <class C>
Jacobian<C> naive(std::span<const Affine<C>> bases, std::span<const Fr> k) {
  Jacobian<C> acc;
  for (size_t i = 0; i < k.size(); ++i) acc += Jacobian<C>(bases[i]).mul(k[i]);
  return acc;
}

template <class C>
Jacobian<C> run(std::span<const Affine<C>> bases, std::span<const Fr> k, const MsmOptions& o = {}) {
  return msm(bases, k, o);
}

template <class Rng>
std::vector<Fr> random_scalars(size_t n, Rng& rng) {
  std::vector<Fr> k(n);
  for (auto& x : k) x = Fr::random(rng);
  return k;
}

Fr r_minus_1() {
  return -Fr::one();
}

// mu = z^2 and values around the split boundaries (k div mu, k mod mu and their centring), as
// field elements.
Fr fr_u128(ff::u128 v) {
  return Fr::from_canonical({static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64), 0, 0});
}

std::vector<Fr> split_edge_scalars() {
  using msm_detail::kGlvMu;
  const Fr mu = fr_u128(kGlvMu), half = fr_u128(kGlvMu / 2), two128 = fr_u128(~ff::u128{0}) + Fr::one();
  std::vector<Fr> v = {Fr::zero(),
                       Fr::one(),
                       Fr::from_u64(2),
                       r_minus_1(),
                       r_minus_1() - Fr::one(),
                       two128,
                       two128 - Fr::one(),
                       two128 + Fr::one(),
                       fr_u128(ff::u128{1} << 127),
                       mu,
                       mu - Fr::one(),
                       mu + Fr::one(),
                       mu - Fr::from_u64(2),
                       half,
                       half + Fr::one(),
                       half - Fr::one(),
                       half + Fr::from_u64(2),
                       mu * mu - mu,
                       mu * (mu - Fr::one()) + half,
                       mu * half + half,
                       mu * (half + Fr::one()) + half + Fr::one(),
                       mu * (half + Fr::one()),
                       mu * (mu - Fr::from_u64(2)) + mu - Fr::one(),
                       -mu,
                       -half,
                       -(mu * half)};
  return v;
}

MsmOptions with_config(const MsmConfig& cfg, ThreadPool* pool = nullptr) {
  MsmOptions o;
  o.config = &cfg;
  o.pool = pool;
  return o;
}

}  // namespace

template <class C>
class MsmTest : public ::testing::Test {};
using Groups = ::testing::Types<G1Config, G2Config>;
TYPED_TEST_SUITE(MsmTest, Groups);

TYPED_TEST(MsmTest, MatchesNaiveOnRandomInputs) {
  using C = TypeParam;
  Xoshiro256 rng(1);
  for (size_t n : {0, 1, 2, 3, 7, 64, 1000}) {
    auto bases = n <= 64 ? random_bases<C>(n, rng) : test_bases<C>(n, 100 + n);
    auto k = random_scalars(n, rng);
    EXPECT_EQ(run<C>(bases, k), naive<C>(bases, k)) << "n = " << n;
  }
}

TYPED_TEST(MsmTest, LargeAgainstDiscreteLogs) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, G1Config> ? (size_t{1} << 14) + 3 : (size_t{1} << 13) + 5;
  Xoshiro256 rng(2);
  auto bases = test_bases<C>(n, 7);
  auto [a, b] = test_bases_dlog(7);
  auto k = random_scalars(n, rng);
  Fr expect = Fr::zero();
  for (size_t i = 0; i < n; ++i) expect += k[i] * (a + Fr::from_u64(i) * b);
  const Jacobian<C> g(C::generator());
  // The test bases really are (a + i b) G.
  EXPECT_EQ(Jacobian<C>(bases[12]), g.mul(a + Fr::from_u64(12) * b));
  EXPECT_EQ(run<C>(bases, k), g.mul(expect));
  // Several passes over the scalars (persistent buckets) give the same result.
  MsmConfig cfg;
  cfg.chunk = 1;
  MsmOptions o;
  o.config = &cfg;
  EXPECT_EQ(run<C>(bases, k, o), g.mul(expect));
}

TYPED_TEST(MsmTest, ZeroOneHeavyScalars) {
  using C = TypeParam;
  Xoshiro256 rng(3);
  const size_t n = 3000;
  auto bases = test_bases<C>(n, 8);
  std::vector<Fr> k(n);
  for (auto& x : k) {
    const uint64_t u = rng() % 100;
    x = u < 90 ? Fr::zero() : (u < 99 ? Fr::one() : Fr::random(rng));
  }
  Jacobian<C> expect;
  for (size_t i = 0; i < n; ++i) {
    if (k[i].is_one())
      expect += Jacobian<C>(bases[i]);
    else if (!k[i].is_zero())
      expect += Jacobian<C>(bases[i]).mul(k[i]);
  }
  EXPECT_EQ(run<C>(bases, k), expect);
}

TYPED_TEST(MsmTest, AllZerosAllOnesAndMinusOne) {
  using C = TypeParam;
  const size_t n = 2500;
  auto bases = test_bases<C>(n, 9);
  auto [a, b] = test_bases_dlog(9);
  const Jacobian<C> g(C::generator());
  Fr dlog_sum = Fr::zero();
  for (size_t i = 0; i < n; ++i) dlog_sum += a + Fr::from_u64(i) * b;
  EXPECT_TRUE(run<C>(bases, std::vector<Fr>(n, Fr::zero())).is_identity());
  EXPECT_EQ(run<C>(bases, std::vector<Fr>(n, Fr::one())), g.mul(dlog_sum));
  EXPECT_EQ(run<C>(bases, std::vector<Fr>(n, r_minus_1())), -g.mul(dlog_sum));
  // A few ones among r-1 and a small sum of ones (serial path).
  std::vector<Fr> k(n, r_minus_1());
  for (size_t i = 0; i < n; i += 7) k[i] = Fr::one();
  Fr e = Fr::zero();
  for (size_t i = 0; i < n; ++i) e += k[i] * (a + Fr::from_u64(i) * b);
  EXPECT_EQ(run<C>(bases, k), g.mul(e));
  std::span<const Affine<C>> few(bases.data(), 5);
  std::vector<Fr> ones5(5, Fr::one());
  EXPECT_EQ(run<C>(few, ones5), naive<C>(few, ones5));
}

TYPED_TEST(MsmTest, RepeatedBasesAndCancellations) {
  using C = TypeParam;
  Xoshiro256 rng(4);
  const Jacobian<C> g(C::generator());
  const Affine<C> ga = C::generator(), ng = -C::generator();
  const size_t n = 3000;
  // The same base everywhere, random scalars: (sum k) G.
  {
    std::vector<Affine<C>> bases(n, ga);
    auto k = random_scalars(n, rng);
    Fr s = Fr::zero();
    for (auto& x : k) s += x;
    EXPECT_EQ(run<C>(bases, k), g.mul(s));
  }
  // The same base and the same small scalar: every point lands in one bucket (doublings, then the
  // pending/spill path).
  for (uint64_t v : {2, 5, 12345}) {
    std::vector<Affine<C>> bases(n, ga);
    std::vector<Fr> k(n, Fr::from_u64(v));
    EXPECT_EQ(run<C>(bases, k), g.mul_u64(v * n)) << v;
  }
  // G and -G alternating with equal scalars: buckets hit P + (-P) over and over.
  {
    std::vector<Affine<C>> bases(n);
    for (size_t i = 0; i < n; ++i) bases[i] = (i % 2) ? ng : ga;
    std::vector<Fr> k(n, Fr::from_u64(77));
    EXPECT_TRUE(run<C>(bases, k).is_identity());
    k[0] = Fr::from_u64(78);
    EXPECT_EQ(run<C>(bases, k), g);
    std::vector<Fr> ones(n, Fr::one());
    EXPECT_TRUE(run<C>(bases, ones).is_identity());
  }
  // A few full-width scalars repeated over distinct bases, mixed with random ones (as in SHA-256
  // witnesses): buckets overflow into the Jacobian spill, which finish() folds back into the affine
  // buckets before the batched reduction.
  {
    const size_t m = 1200;
    auto bases = test_bases<C>(m, 21);
    std::vector<Fr> k(m);
    const Fr v[3] = {Fr::random(rng), Fr::random(rng), Fr::random(rng)};
    for (size_t i = 0; i < m; ++i) k[i] = i % 4 == 3 ? Fr::random(rng) : v[i % 3];
    Jacobian<C> want;
    for (size_t i = 0; i < m; ++i) want += Jacobian<C>(bases[i]).mul(k[i]);
    EXPECT_EQ(run<C>(bases, k), want);
  }
  // Small multiples of G with small scalars: many equal partial sums (P == Q inside buckets).
  {
    std::vector<Affine<C>> bases(n);
    std::vector<Fr> k(n);
    uint64_t e = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t m = 1 + i % 3, s = 2 + rng() % 4;
      bases[i] = g.mul_u64(m).to_affine();
      k[i] = Fr::from_u64(s);
      e += m * s;
    }
    EXPECT_EQ(run<C>(bases, k), g.mul_u64(e));
  }
}

TYPED_TEST(MsmTest, BasesWithInfinity) {
  using C = TypeParam;
  Xoshiro256 rng(5);
  const size_t n = 1000;
  auto bases = test_bases<C>(n, 10);
  auto k = random_scalars(n, rng);
  for (size_t i = 0; i < n; i += 3) bases[i] = Affine<C>::identity();
  for (size_t i = 0; i < n; i += 5) k[i] = Fr::one();
  EXPECT_EQ(run<C>(bases, k), naive<C>(bases, k));
  std::vector<Affine<C>> inf(50);
  EXPECT_TRUE(run<C>(inf, random_scalars(50, rng)).is_identity());
}

TYPED_TEST(MsmTest, DensityBitmap) {
  using C = TypeParam;
  Xoshiro256 rng(6);
  const size_t n = 9000;  // more than two classification blocks
  std::vector<uint64_t> density((n + 63) / 64 + 1);
  for (auto& w : density) w = rng() & rng();  // ~25% density
  density.back() = ~uint64_t{0};              // bits past n are ignored
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) m += (density[i / 64] >> (i % 64)) & 1;
  auto bases = test_bases<C>(m, 11);
  std::vector<Fr> k(n);
  for (auto& x : k) {
    const uint64_t u = rng() % 10;
    x = u < 3 ? Fr::zero() : (u < 6 ? Fr::one() : Fr::random(rng));
  }
  Jacobian<C> expect;
  for (size_t i = 0, j = 0; i < n; ++i) {
    if (!((density[i / 64] >> (i % 64)) & 1)) continue;
    expect += Jacobian<C>(bases[j++]).mul(k[i]);
  }
  MsmOptions o;
  o.density = &density;
  EXPECT_EQ(run<C>(bases, k, o), expect);
  // A wrong base count or a short bitmap is rejected.
  std::span<const Affine<C>> short_bases(bases.data(), m - 1);
  EXPECT_THROW(run<C>(short_bases, k, o), std::invalid_argument);
  std::vector<uint64_t> short_density(density.begin(), density.begin() + 3);
  o.density = &short_density;
  EXPECT_THROW(run<C>(bases, k, o), std::invalid_argument);
}

TYPED_TEST(MsmTest, ThreadCountsAndConfigsAgree) {
  using C = TypeParam;
  Xoshiro256 rng(7);
  const size_t n = 1500;
  auto bases = test_bases<C>(n, 12);
  auto k = random_scalars(n, rng);
  for (size_t i = 0; i < n; i += 11) k[i] = Fr::one();
  for (size_t i = 5; i < n; i += 13) k[i] = Fr::zero();
  ThreadPool one(1), four(4);
  MsmOptions o1, o4;
  o1.pool = &one;
  o4.pool = &four;
  const auto ref = run<C>(bases, k, o1);
  EXPECT_EQ(run<C>(bases, k, o4), ref);
  // Forced configurations: window widths (16-bit and 32-bit digits), bucket splits, batch sizes,
  // Jacobian buckets.
  std::vector<MsmConfig> cfgs = {
      {.window_bits = 3},
      {.window_bits = 5, .splits = 3},
      {.window_bits = 9, .splits = 8, .batch = 7},
      {.window_bits = 13, .splits = 2, .batch = 1000},
      {.window_bits = 11, .jacobian_buckets = true},
      {.window_bits = 12, .splits = 3, .chunk = 1},
      // Top windows with few magnitudes (c = 7: 8, c = 10: 29) get several copies per bucket.
      {.window_bits = 7, .splits = 2},
      {.window_bits = 10, .batch = 64}};
  if (std::is_same_v<C, G1Config>) {
    // Wide windows (the bucket reduction dominates at this size; G2 would take seconds).
    cfgs.push_back({.window_bits = 16, .splits = 4});
    cfgs.push_back({.window_bits = 17, .splits = 5});  // 32-bit digits
  } else {
    cfgs.push_back({.window_bits = 14, .splits = 64});
  }
  for (const auto& cfg : cfgs) {
    o4.config = &cfg;
    EXPECT_EQ(run<C>(bases, k, o4), ref) << "c=" << cfg.window_bits << " splits=" << cfg.splits;
  }
  // The narrowest window on a prefix.
  const MsmConfig c2{.window_bits = 2, .splits = 2};
  o4.config = &c2;
  std::span<const Affine<C>> b200(bases.data(), 200);
  std::span<const Fr> k200(k.data(), 200);
  o1.config = nullptr;
  EXPECT_EQ(run<C>(b200, k200, o4), run<C>(b200, k200, o1));
}

TYPED_TEST(MsmTest, MoreThreadsThanWindows) {
  // 48 threads and 32 windows (c = 8): the spare threads join windows that are in progress, each
  // with a bucket array of its own; with several passes (chunk = 1) the arrays are reused.
  using C = TypeParam;
  Xoshiro256 rng(15);
  const size_t n = std::is_same_v<C, G1Config> ? 16384 : 3000;  // G1 large enough for joins
  auto bases = test_bases<C>(n, 16);
  auto k = random_scalars(n, rng);
  ThreadPool one(1), many(48);
  MsmOptions o1, om;
  o1.pool = &one;
  om.pool = &many;
  const auto ref = run<C>(bases, k, o1);
  const MsmConfig c8{.window_bits = 8}, c8_chunks{.window_bits = 8, .chunk = 1};
  om.config = &c8;
  EXPECT_EQ(run<C>(bases, k, om), ref);
  om.config = &c8_chunks;
  EXPECT_EQ(run<C>(bases, k, om), ref);
}

TYPED_TEST(MsmTest, CanonicalScalars) {
  using C = TypeParam;
  Xoshiro256 rng(8);
  const size_t n = 700;
  auto bases = test_bases<C>(n, 13);
  auto k = random_scalars(n, rng);
  k[3] = Fr::one();
  k[4] = Fr::zero();
  std::vector<ff::Limbs<4>> kc(n);
  for (size_t i = 0; i < n; ++i) kc[i] = k[i].to_canonical();
  // Values >= r are reduced: r + 1 == 1, r == 0, 2^256 - 1.
  ff::Limbs<4> r = Fr::MOD, r1 = Fr::MOD;
  r1[0] += 1;
  kc[5] = r;
  k[5] = Fr::zero();
  kc[6] = r1;
  k[6] = Fr::one();
  kc[7] = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  k[7] = Fr::from_canonical({~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0} >> 2}) * Fr::from_u64(4) +
         Fr::from_u64(3);
  EXPECT_EQ(msm_canonical(std::span<const Affine<C>>(bases), kc), run<C>(bases, k));
}

TYPED_TEST(MsmTest, SizeMismatchThrows) {
  using C = TypeParam;
  auto bases = test_bases<C>(10, 14);
  std::vector<Fr> k(11, Fr::one());
  EXPECT_THROW(run<C>(bases, k), std::invalid_argument);
  std::vector<ff::Limbs<4>> kc(9);
  EXPECT_THROW(msm_canonical(std::span<const Affine<C>>(bases), kc), std::invalid_argument);
}

TEST(MsmConfigTest, WindowsCoverScalars) {
  for (unsigned c = 2; c <= 24; ++c) {
    const unsigned w = msm_num_windows(c);
    EXPECT_GE(w * c, 254u) << c;
    EXPECT_LE((w - 1) * c, 256u) << c;
  }
  EXPECT_EQ(msm_num_windows(16), 16u);
  EXPECT_EQ(msm_num_windows(15), 18u);  // r has 255 bits and r >> 240 = 0x73ed >= 2^14
  for (size_t n : {1, 100, 1 << 16, 1 << 20, 1 << 22}) {
    for (unsigned t : {1u, 2u, 16u}) {
      auto cfg = msm_default_config(n, t, false);
      EXPECT_GE(cfg.window_bits, 2u);
      EXPECT_LE(cfg.window_bits, 24u);
      EXPECT_GE(cfg.splits, 1u);
    }
  }
}

// The scalar split: k = s1 m1 + s2 m2 mu (mod r) with m1, m2 <= mu/2 + 1, at the boundaries and on
// random scalars.
TEST(MsmGlvTest, SplitRecombines) {
  using namespace msm_detail;
  Xoshiro256 rng(20);
  std::vector<Fr> ks = split_edge_scalars();
  for (int i = 0; i < 20000; ++i) ks.push_back(Fr::random(rng));
  const Fr mu = fr_u128(kGlvMu);
  for (const Fr& k : ks) {
    const GlvScalar g = glv_split(k.to_canonical());
    for (const ff::Limbs<4>* m : {&g.m1, &g.m2}) {
      ASSERT_EQ((*m)[2] | (*m)[3], 0u);
      ASSERT_FALSE(ff::less_than(kGlvMaxMagnitude, *m)) << k.to_hex();
    }
    const Fr k1 = g.neg1 ? -Fr::from_canonical(g.m1) : Fr::from_canonical(g.m1);
    const Fr k2 = g.neg2 ? -Fr::from_canonical(g.m2) : Fr::from_canonical(g.m2);
    ASSERT_EQ(k1 + k2 * mu, k) << k.to_hex();
  }
  // The magnitude bound is reached (the windows are sized for it).
  EXPECT_EQ(msm_num_windows(16, true), 8u);
  EXPECT_EQ(msm_num_windows(13, true), 10u);
}

TEST(MsmGlvTest, EndomorphismEigenvalue) {
  using namespace msm_detail;
  Xoshiro256 rng(21);
  for (int i = 0; i < 4; ++i) {
    const G1Affine p = G1(g1_generator()).mul(Fr::random(rng)).to_affine();
    const G2Affine q = G2(g2_generator()).mul(Fr::random(rng)).to_affine();
    EXPECT_EQ(G1(glv_image(p, glv_endo<G1Config>(), false)), G1(p).mul_u64(kGlvZ).mul_u64(kGlvZ));
    EXPECT_EQ(G2(glv_image(q, glv_endo<G2Config>(), false)), G2(q).mul_u64(kGlvZ).mul_u64(kGlvZ));
    EXPECT_EQ(G1(glv_image(p, glv_endo<G1Config>(), true)), -G1(p).mul_u64(kGlvZ).mul_u64(kGlvZ));
    EXPECT_EQ(G2(glv_image(q, glv_endo<G2Config>(), true)), -G2(q).mul_u64(kGlvZ).mul_u64(kGlvZ));
  }
  EXPECT_TRUE(glv_image(G1Affine::identity(), glv_endo<G1Config>(), true).is_identity());
  EXPECT_TRUE(glv_image(G2Affine::identity(), glv_endo<G2Config>(), false).is_identity());
}

TEST(MsmConfigTest, EndoWindowsCoverHalves) {
  for (unsigned c = 2; c <= 24; ++c) {
    const unsigned w = msm_num_windows(c, true);
    EXPECT_GE(w * c, 127u) << c;
    EXPECT_LE((w - 1) * c, 128u) << c;  // at most a window for the carry alone
  }
  // Automatic mode splits small MSMs only; explicit modes are kept.
  EXPECT_EQ(msm_default_config(1000, 2, false, MsmEndo::kOff).endo, MsmEndo::kOff);
  EXPECT_EQ(msm_default_config(size_t{1} << 22, 2, true, MsmEndo::kOn).endo, MsmEndo::kOn);
  EXPECT_EQ(msm_default_config(size_t{1} << 22, 2, false).endo, MsmEndo::kOff);
  EXPECT_EQ(msm_default_config(1000, 2, true).endo, msm_endo_default() ? MsmEndo::kOn : MsmEndo::kOff);
}

// The split path against the unsplit one and the naive sum: edge scalars, random, 0/1-heavy and
// density-filtered inputs, several thread counts, window widths and multi-pass chunks.
TYPED_TEST(MsmTest, EndomorphismSplitAgrees) {
  using C = TypeParam;
  constexpr bool kG1 = std::is_same_v<C, G1Config>;
  Xoshiro256 rng(22);
  const MsmConfig on{.endo = MsmEndo::kOn}, off{.endo = MsmEndo::kOff};
  // Every edge scalar alone, on one base and on two (n = 1, 2), and all of them together.
  const std::vector<Fr> edge = split_edge_scalars();
  auto bases = random_bases<C>(edge.size(), rng);
  for (size_t i = 0; i < edge.size(); ++i) {
    std::span<const Affine<C>> b1(&bases[i], 1);
    std::span<const Fr> k1(&edge[i], 1);
    const auto expect = Jacobian<C>(bases[i]).mul(edge[i]);
    EXPECT_EQ(run<C>(b1, k1, with_config(on)), expect) << i;
    EXPECT_EQ(run<C>(b1, k1, with_config(off)), expect) << i;
    if (i + 1 < bases.size()) {
      std::span<const Affine<C>> b2(&bases[i], 2);
      const std::vector<Fr> k2 = {edge[i], edge[(i + 7) % edge.size()]};
      EXPECT_EQ(run<C>(b2, k2, with_config(on)), naive<C>(b2, k2)) << i;
    }
  }
  EXPECT_EQ(run<C>(bases, edge, with_config(on)), naive<C>(bases, edge));
  EXPECT_TRUE(run<C>(std::span<const Affine<C>>(), std::span<const Fr>(), with_config(on)).is_identity());

  // Random scalars with zeros, ones and edge values sprinkled in; infinity among the bases.
  const size_t n = kG1 ? 5000 : 2000;
  auto tb = test_bases<C>(n, 23);
  auto k = random_scalars(n, rng);
  for (size_t i = 0; i < n; i += 17) k[i] = edge[(i / 17) % edge.size()];
  for (size_t i = 3; i < n; i += 29) k[i] = Fr::one();
  for (size_t i = 5; i < n; i += 31) tb[i] = Affine<C>::identity();
  ThreadPool one(1), four(4), many(48);
  const auto ref = run<C>(tb, k, with_config(off, &one));
  std::span<const Affine<C>> head(tb.data(), 300);
  std::span<const Fr> khead(k.data(), 300);
  EXPECT_EQ(run<C>(head, khead, with_config(on, &four)), naive<C>(head, khead));
  std::vector<MsmConfig> cfgs = {on,
                                 {.window_bits = 2, .endo = MsmEndo::kOn},
                                 {.window_bits = 5, .splits = 3, .endo = MsmEndo::kOn},
                                 {.window_bits = 9, .splits = 8, .batch = 7, .endo = MsmEndo::kOn},
                                 {.window_bits = 11, .jacobian_buckets = true, .endo = MsmEndo::kOn},
                                 {.window_bits = 12, .splits = 3, .chunk = 1, .endo = MsmEndo::kOn},
                                 {.window_bits = 13, .chunk = 700, .endo = MsmEndo::kOn},
                                 {.window_bits = 16, .splits = 4, .endo = MsmEndo::kOn},
                                 {.window_bits = 7, .splits = 2, .endo = MsmEndo::kOn}};
  if (kG1) cfgs.push_back({.window_bits = 17, .splits = 5, .endo = MsmEndo::kOn});  // 32-bit digits
  for (ThreadPool* pool : {&one, &four, &many}) {
    for (const auto& cfg : cfgs) {
      if (cfg.window_bits == 2 && pool != &four) continue;  // slow; once is enough
      EXPECT_EQ(run<C>(tb, k, with_config(cfg, pool)), ref)
          << "threads=" << pool->size() << " c=" << cfg.window_bits << " splits=" << cfg.splits;
    }
  }

  // 0/1-heavy scalars under a density bitmap.
  std::vector<uint64_t> density((n + 63) / 64);
  for (auto& w : density) w = rng() | rng();  // ~75% density
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) m += (density[i / 64] >> (i % 64)) & 1;
  std::vector<Fr> kd(n);
  for (auto& x : kd) {
    const uint64_t u = rng() % 10;
    x = u < 3 ? Fr::zero() : (u < 6 ? Fr::one() : (u < 7 ? edge[rng() % edge.size()] : Fr::random(rng)));
  }
  std::span<const Affine<C>> bd(tb.data(), m);
  Jacobian<C> expect;
  for (size_t i = 0, j = 0; i < n; ++i) {
    if (!((density[i / 64] >> (i % 64)) & 1)) continue;
    expect += Jacobian<C>(bd[j++]).mul(kd[i]);
  }
  for (const MsmConfig* cfg : {&on, &off}) {
    MsmOptions o = with_config(*cfg, &four);
    o.density = &density;
    EXPECT_EQ(run<C>(bd, kd, o), expect);
  }
  // Canonical scalars (reduced mod r first) take the same path.
  std::vector<ff::Limbs<4>> kc(n);
  for (size_t i = 0; i < n; ++i) kc[i] = k[i].to_canonical();
  kc[1] = Fr::MOD;  // == 0
  k[1] = Fr::zero();
  kc[2] = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  k[2] = Fr::from_canonical({~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0} >> 2}) * Fr::from_u64(4) +
         Fr::from_u64(3);
  EXPECT_EQ(msm_canonical(std::span<const Affine<C>>(tb), kc, with_config(on, &four)),
            run<C>(tb, k, with_config(off, &four)));
}

// The shared-batch path for small MSMs (MsmPath::kShared) against the naive sum: every window
// width it may take, with and without the split, edge scalars, zeros and ones, equal scalars (the
// same bucket twice in a batch), bases at infinity, a density bitmap, one and several threads.
TYPED_TEST(MsmTest, SharedPathAgrees) {
  using C = TypeParam;
  Xoshiro256 rng(24);
  const std::vector<Fr> edge = split_edge_scalars();
  const size_t n = 700;
  auto bases = test_bases<C>(n, 25);
  std::vector<Fr> k = random_scalars(n, rng);
  for (size_t i = 0; i < edge.size(); ++i) k[i * 11] = edge[i];
  for (size_t i = 4; i < n; i += 37) k[i] = k[3];  // equal scalars
  for (size_t i = 6; i < n; i += 41) bases[i] = Affine<C>::identity();
  ThreadPool one(1), four(4);
  for (size_t m : std::vector<size_t>{1, 2, 3, 9, 64, n}) {
    std::span<const Affine<C>> b(bases.data(), m);
    std::span<const Fr> km(k.data(), m);
    const Jacobian<C> expect = naive<C>(b, km);
    for (MsmEndo e : {MsmEndo::kOn, MsmEndo::kOff}) {
      for (unsigned c : {0u, 2u, 3u, 5u, 8u, 11u}) {
        if (c == 2 && m > 64) continue;  // slow; the smaller sizes cover it
        const MsmConfig cfg{.window_bits = c, .endo = e, .path = MsmPath::kShared};
        for (ThreadPool* pool : {&one, &four}) {
          EXPECT_EQ(run<C>(b, km, with_config(cfg, pool)), expect)
              << "n=" << m << " c=" << c << " endo=" << (e == MsmEndo::kOn) << " threads=" << pool->size();
        }
      }
    }
  }
  // A density bitmap over 0/1-heavy scalars.
  std::vector<uint64_t> density((2 * n + 63) / 64);
  for (auto& w : density) w = rng() | rng();
  size_t sel = 0;
  for (size_t i = 0; i < 2 * n; ++i) sel += (density[i / 64] >> (i % 64)) & 1;
  std::vector<Fr> kd(2 * n);
  for (auto& x : kd) {
    const uint64_t u = rng() % 4;
    x = u == 0 ? Fr::zero() : (u == 1 ? Fr::one() : Fr::random(rng));
  }
  auto bd = test_bases<C>(sel, 26);
  Jacobian<C> expect;
  for (size_t i = 0, j = 0; i < 2 * n; ++i) {
    if ((density[i / 64] >> (i % 64)) & 1) expect += Jacobian<C>(bd[j++]).mul(kd[i]);
  }
  const MsmConfig shared{.path = MsmPath::kShared};
  MsmOptions o = with_config(shared, &four);
  o.density = &density;
  EXPECT_EQ(run<C>(bd, kd, o), expect);
  o.config = nullptr;  // automatic: the same
  EXPECT_EQ(run<C>(bd, kd, o), expect);
}

// Which path the cost model takes: shared batches for a small proof's MSMs, jobs for large ones;
// a jobs knob without a path keeps the jobs path.
TEST(MsmConfigTest, SmallMsmsShareBatches) {
  for (bool g2 : {false, true}) {
    for (size_t n : {3, 16, 256, 1024}) {
      EXPECT_EQ(msm_default_config(n, 2, g2).path, MsmPath::kShared) << n << " g2=" << g2;
    }
    for (size_t n : {size_t{1} << 16, size_t{1} << 20}) {
      EXPECT_EQ(msm_default_config(n, 2, g2).path, MsmPath::kJobs) << n << " g2=" << g2;
      EXPECT_EQ(msm_default_config(n, 16, g2).path, MsmPath::kJobs) << n << " g2=" << g2;
    }
    EXPECT_EQ(msm_default_config(256, 2, g2, MsmEndo::kAuto, MsmPath::kJobs).path, MsmPath::kJobs);
    EXPECT_EQ(msm_default_config(size_t{1} << 20, 2, g2, MsmEndo::kAuto, MsmPath::kShared).path, MsmPath::kShared);
  }
}

// msm_sum: two MSMs as one, against their sum, for 0/1-heavy and full-width parts of different
// sizes (including empty ones), with and without an explicit configuration and the split.
TEST(MsmSumTest, MatchesTwoMsms) {
  Xoshiro256 rng(31);
  for (const auto& [n1, n2] : std::vector<std::pair<size_t, size_t>>{{0, 100}, {100, 0}, {3000, 5000}, {777, 20000}}) {
    auto b1 = test_bases<G1Config>(n1, 40 + n1);
    auto b2 = test_bases<G1Config>(n2, 50 + n2);
    std::vector<Fr> k1(n1);
    for (auto& x : k1) {
      const uint64_t u = rng() % 100;
      x = u < 50 ? Fr::zero() : (u < 90 ? Fr::one() : Fr::random(rng));
    }
    const std::vector<Fr> k2 = random_scalars(n2, rng);
    const G1 expect = run<G1Config>(b1, k1) + run<G1Config>(b2, k2);
    EXPECT_EQ(msm_sum(b1, k1, b2, k2), expect) << n1 << " + " << n2;
    for (MsmEndo e : {MsmEndo::kOff, MsmEndo::kOn}) {
      MsmConfig cfg = msm_default_config(n2, 2, false, e);
      MsmOptions o;
      o.config = &cfg;
      EXPECT_EQ(msm_sum(b1, k1, b2, k2, o), expect) << n1 << " + " << n2;
    }
  }
  auto b = test_bases<G1Config>(10, 60);
  std::vector<Fr> k(9, Fr::one());
  EXPECT_THROW(msm_sum(b, k, b, std::vector<Fr>(10, Fr::one())), std::invalid_argument);
}
