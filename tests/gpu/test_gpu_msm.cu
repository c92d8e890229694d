// GPU MSM (gpu/msm.hpp) against the CPU ec::msm: random inputs at many sizes on G1 and G2, the 0/1
// split, extreme scalars, repeated and identity bases (doubling / inverse cases inside buckets),
// density bitmaps, forced window widths, engine reuse across sizes, and argument checks.
// On a mismatch the test narrows it down to the shortest differing prefix and prints that term.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "ff/bls12_381.hpp"
#include "gpu/device.hpp"
#include "gpu/msm.hpp"
#include "gpu/msm_internal.hpp"
#include "util/tuning.hpp"

using namespace cuzk;

namespace {

#define CUZK_REQUIRE_GPU()                                             \
  do {                                                                 \
    static const auto scan = ::cuzk::gpu::scan_devices();              \
    if (scan.devices.empty()) GTEST_SKIP() << scan.unavailable_reason; \
  } while (0)

using G1C = ec::G1Config;
using G2C = ec::G2Config;

template <class C>
std::vector<ec::Affine<C>> test_bases(size_t n, uint64_t seed) {
  if constexpr (std::is_same_v<C, G1C>)
    return ec::g1_test_bases(n, seed);
  else
    return ec::g2_test_bases(n, seed);
}

template <class C>
const char* group_name() {
  return std::is_same_v<C, G1C> ? "G1" : "G2";
}

std::vector<ff::Fr> random_scalars(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ff::Fr> k(n);
  for (auto& x : k) x = ff::Fr::random(rng);
  return k;
}

// frac_zero of the scalars 0, frac_one 1, the rest random.
std::vector<ff::Fr> mixed_scalars(size_t n, double frac_zero, double frac_one, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<ff::Fr> k(n);
  for (auto& x : k) {
    const double r = u(rng);
    x = r < frac_zero ? ff::Fr::zero() : r < frac_zero + frac_one ? ff::Fr::one() : ff::Fr::random(rng);
  }
  return k;
}

template <class C>
std::string describe(const ec::Jacobian<C>& p) {
  const auto a = p.to_affine();
  if (a.is_identity()) return "identity";
  if constexpr (std::is_same_v<C, G1C>)
    return "x=" + a.x.to_hex();
  else
    return "x.c0=" + a.x.c0.to_hex();
}

// GPU == CPU for one input; on failure, finds the shortest prefix that differs (binary search,
// sizes up to 2^16) and prints its last term and the run's statistics.
template <class C>
void expect_match(const std::vector<ec::Affine<C>>& bases, const std::vector<ff::Fr>& k, const std::string& label,
                  unsigned window_bits = 0) {
  gpu::DeviceBases<C> db(bases);
  gpu::Msm<C> engine;
  gpu::GpuMsmOptions opt;
  opt.window_bits = window_bits;
  const auto got = engine.run(db.view(), k, opt);
  const auto want = ec::msm(std::span<const ec::Affine<C>>(bases), std::span<const ff::Fr>(k));
  if (got == want) {
    SUCCEED();
    return;
  }
  const auto& st = engine.stats();
  std::string msg = label + " " + group_name<C>() + " n=" + std::to_string(k.size()) + ": GPU " + describe(got) +
                    " != CPU " + describe(want) + " (nontrivial " + std::to_string(st.nontrivial) + ", ones " +
                    std::to_string(st.ones) + ", c " + std::to_string(st.window_bits) + ")";
  if (k.size() <= (size_t{1} << 16)) {
    size_t lo = 0, hi = k.size();  // prefix lo matches, prefix hi differs
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      const auto g = engine.run(db.view(0, mid), std::span<const ff::Fr>(k.data(), mid), opt);
      const auto w = ec::msm(std::span<const ec::Affine<C>>(bases.data(), mid), std::span<const ff::Fr>(k.data(), mid));
      (g == w ? lo : hi) = mid;
    }
    msg += "; first differing prefix " + std::to_string(hi) + ", term " + std::to_string(hi - 1) + ": scalar " +
           k[hi - 1].to_hex() + ", base " +
           (bases[hi - 1].is_identity() ? std::string("identity") : describe(ec::Jacobian<C>(bases[hi - 1])));
  }
  ADD_FAILURE() << msg;
}

template <class C>
void random_sizes(const std::vector<size_t>& sizes) {
  const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  const auto bases = test_bases<C>(max_n, 11);
  const auto k = random_scalars(max_n, 12);
  for (size_t n : sizes)
    expect_match<C>(std::vector<ec::Affine<C>>(bases.begin(), bases.begin() + n),
                    std::vector<ff::Fr>(k.begin(), k.begin() + n), "random");
}

TEST(GpuMsm, G1RandomSizes) {
  CUZK_REQUIRE_GPU();
  random_sizes<G1C>({0, 1, 2, 3, 100, 1 << 10, 1 << 14, 1 << 16});
}
TEST(GpuMsm, G2RandomSizes) {
  CUZK_REQUIRE_GPU();
  random_sizes<G2C>({0, 1, 2, 3, 100, 1 << 10, 1 << 14, 1 << 16});
}
TEST(GpuMsm, G1Random2e20) {
  CUZK_REQUIRE_GPU();
  random_sizes<G1C>({1 << 20});
}
TEST(GpuMsm, G2Random2e18) {
  CUZK_REQUIRE_GPU();
  random_sizes<G2C>({1 << 18});
}

// Every window width, including ones far too wide for the size (most buckets empty) and the
// narrowest (128 windows).
template <class C>
void window_widths() {
  const auto bases = test_bases<C>(777, 21);
  const auto k = random_scalars(777, 22);
  for (unsigned c : {2u, 3u, 5u, 8u, 11u, 13u, 16u, 17u, 22u})
    expect_match<C>(bases, k, "window_bits=" + std::to_string(c), c);
}
TEST(GpuMsm, G1WindowWidths) {
  CUZK_REQUIRE_GPU();
  window_widths<G1C>();
}
TEST(GpuMsm, G2WindowWidths) {
  CUZK_REQUIRE_GPU();
  window_widths<G2C>();
}

// Windows in passes (GpuMsmOptions::max_pairs_per_pass): one window per pass, uneven groups, and
// all at once give the CPU's result; the pass count follows windows_per_pass.
template <class C>
void window_passes() {
  const size_t n = 3001;
  const auto bases = test_bases<C>(n, 41);
  const auto k = random_scalars(n, 42);
  const auto want = ec::msm(std::span<const ec::Affine<C>>(bases), std::span<const ff::Fr>(k));
  gpu::DeviceBases<C> db(bases);
  gpu::Msm<C> engine;
  for (size_t cap : {size_t{1}, n, 3 * n, 7 * n, 1000 * n}) {
    gpu::GpuMsmOptions opt;
    opt.window_bits = 5;  // 52 windows
    opt.max_pairs_per_pass = cap;
    EXPECT_EQ(engine.run(db.view(), k, opt), want) << "max_pairs_per_pass " << cap;
    const unsigned g = gpu::msm_detail::windows_per_pass(engine.stats().nontrivial, 52, cap);
    EXPECT_EQ(engine.stats().passes, (52 + g - 1) / g) << "max_pairs_per_pass " << cap;
  }
  EXPECT_EQ(gpu::msm_detail::windows_per_pass(n, 52, n), 1u);
  EXPECT_EQ(gpu::msm_detail::windows_per_pass(n, 52, 1000 * n), 52u);
  EXPECT_EQ(gpu::msm_detail::windows_per_pass(n, 52, 7 * n), 7u);            // 8 passes of 7 or fewer
  EXPECT_EQ(gpu::msm_detail::windows_per_pass(n, 12, 5 * n), 4u);            // 3 passes of 4, not 5 + 5 + 2
  EXPECT_EQ(gpu::msm_detail::windows_per_pass(size_t{1} << 27, 12, 0), 4u);  // 32 GiB h: 3 passes
}
TEST(GpuMsm, G1WindowPasses) {
  CUZK_REQUIRE_GPU();
  window_passes<G1C>();
}
TEST(GpuMsm, G2WindowPasses) {
  CUZK_REQUIRE_GPU();
  window_passes<G2C>();
}

// 90 % zeros and ones (Filecoin witnesses), all zero, all one, all r - 1, and the split counts.
template <class C>
void special_scalars(size_t n) {
  const auto bases = test_bases<C>(n, 31);
  const auto heavy = mixed_scalars(n, 0.6, 0.3, 32);
  expect_match<C>(bases, heavy, "90% zero/one");
  {
    gpu::DeviceBases<C> db(bases);
    gpu::Msm<C> engine;
    engine.run(db.view(), heavy);
    const size_t zeros = std::count(heavy.begin(), heavy.end(), ff::Fr::zero());
    const size_t ones = std::count(heavy.begin(), heavy.end(), ff::Fr::one());
    EXPECT_EQ(engine.stats().ones, ones);
    EXPECT_EQ(engine.stats().nontrivial, n - zeros - ones);
    EXPECT_EQ(engine.stats().scalars, n);
  }
  expect_match<C>(bases, std::vector<ff::Fr>(n, ff::Fr::zero()), "all zero");
  expect_match<C>(bases, std::vector<ff::Fr>(n, ff::Fr::one()), "all one");
  expect_match<C>(bases, std::vector<ff::Fr>(n, -ff::Fr::one()), "all r-1");
  expect_match<C>(bases, std::vector<ff::Fr>(n, ff::Fr::one() + ff::Fr::one()), "all two");
  // Digits at the signed-window boundaries: 2^(c-1), 2^c - 1 and r - 2^k.
  std::vector<ff::Fr> edge(n);
  for (size_t i = 0; i < n; ++i) {
    ff::Limbs<4> l{};
    l[(i / 64) % 4] = uint64_t{1} << (i % 64);
    edge[i] =
        (i % 2 ? ff::Fr::zero() : ff::Fr::from_canonical(l)) - ff::Fr::from_canonical(ff::Limbs<4>{i % 7, 0, 0, 0});
  }
  expect_match<C>(bases, edge, "powers of two minus small");
  // The sum of all bases comes out as identity for the all-zero case.
  gpu::DeviceBases<C> db(bases);
  EXPECT_TRUE(gpu::msm<C>(db, std::vector<ff::Fr>(n, ff::Fr::zero())).is_identity());
}
TEST(GpuMsm, G1SpecialScalars) {
  CUZK_REQUIRE_GPU();
  special_scalars<G1C>(1 << 16);
}
TEST(GpuMsm, G2SpecialScalars) {
  CUZK_REQUIRE_GPU();
  special_scalars<G2C>(1 << 14);
}

// The same point many times (doublings inside one bucket, one bucket spanning many slices),
// P and -P mixed (inverse cases), and bases equal to the identity.
template <class C>
void special_bases() {
  const size_t n = 1 << 15;
  const auto distinct = test_bases<C>(8, 41);
  std::vector<ec::Affine<C>> same(n, distinct[0]);
  expect_match<C>(same, random_scalars(n, 42), "one repeated base, random scalars");
  expect_match<C>(same, std::vector<ff::Fr>(n, ff::Fr::from_canonical(ff::Limbs<4>{12345, 0, 0, 0})),
                  "one repeated base, one repeated scalar");
  std::vector<ec::Affine<C>> pm(n);
  for (size_t i = 0; i < n; ++i) pm[i] = i % 2 ? -distinct[i % 8] : distinct[i % 8];
  expect_match<C>(pm, std::vector<ff::Fr>(n, ff::Fr::from_canonical(ff::Limbs<4>{777, 0, 0, 0})),
                  "P and -P with equal scalars");
  expect_match<C>(pm, random_scalars(n, 43), "few distinct bases +-, random scalars");
  auto with_id = test_bases<C>(4096, 44);
  for (size_t i = 0; i < with_id.size(); i += 3) with_id[i] = ec::Affine<C>::identity();
  expect_match<C>(with_id, mixed_scalars(4096, 0.2, 0.2, 45), "identity bases");
  expect_match<C>(std::vector<ec::Affine<C>>(100, ec::Affine<C>::identity()), random_scalars(100, 46),
                  "all identity bases");
}
TEST(GpuMsm, G1SpecialBases) {
  CUZK_REQUIRE_GPU();
  special_bases<G1C>();
}
TEST(GpuMsm, G2SpecialBases) {
  CUZK_REQUIRE_GPU();
  special_bases<G2C>();
}

// Density bitmap: scalars are the full assignment, the bases only those with their bit set.
template <class C>
void density(size_t n) {
  std::mt19937_64 rng(51);
  std::vector<uint64_t> bits((n + 63) / 64 + 1);
  for (auto& w : bits) w = rng() & rng();  // ~25 % set
  bits[0] |= 1;                            // first scalar in, and bits past n must be ignored
  bits.back() = ~uint64_t{0};
  size_t taking = 0;
  for (size_t i = 0; i < n; ++i) taking += (bits[i / 64] >> (i % 64)) & 1;
  const auto bases = test_bases<C>(taking, 52);
  const auto k = mixed_scalars(n, 0.3, 0.3, 53);
  gpu::DeviceBases<C> db(bases);
  gpu::Msm<C> engine;
  gpu::GpuMsmOptions opt;
  opt.density = &bits;
  ec::MsmOptions cpu;
  cpu.density = &bits;
  const auto got = engine.run(db.view(), k, opt);
  const auto want = ec::msm(std::span<const ec::Affine<C>>(bases), std::span<const ff::Fr>(k), cpu);
  EXPECT_TRUE(got == want) << group_name<C>() << " density n=" << n << " taking " << taking << ": GPU " << describe(got)
                           << " CPU " << describe(want);
  EXPECT_EQ(engine.stats().scalars, taking);
  // Wrong base count and a short bitmap are rejected.
  EXPECT_THROW(engine.run(db.view(0, taking - 1), k, opt), std::invalid_argument);
  std::vector<uint64_t> shortbits(bits.begin(), bits.begin() + (n - 1) / 64);
  opt.density = &shortbits;
  EXPECT_THROW(engine.run(db.view(), k, opt), std::invalid_argument);
}
TEST(GpuMsm, G1Density) {
  CUZK_REQUIRE_GPU();
  density<G1C>(100000);
}
TEST(GpuMsm, G2Density) {
  CUZK_REQUIRE_GPU();
  density<G2C>(20000);
}

// Canonical scalars, including values >= r (reduced mod r like ec::msm_canonical).
template <class C>
void canonical() {
  const size_t n = 3000;
  const auto bases = test_bases<C>(n, 61);
  std::mt19937_64 rng(62);
  std::vector<ff::Limbs<4>> kc(n);
  for (size_t i = 0; i < n; ++i) {
    for (auto& w : kc[i]) w = rng();
    if (i % 5 == 0) kc[i] = ff::Fr::MOD;                               // r == 0
    if (i % 5 == 1) kc[i] = ff::Limbs<4>{1, 0, 0, 0};                  // 1
    if (i % 7 == 2) kc[i] = ff::Limbs<4>{~0ull, ~0ull, ~0ull, ~0ull};  // 2^256 - 1
  }
  gpu::DeviceBases<C> db(bases);
  const auto got = gpu::msm_canonical<C>(db, kc);
  const auto want = ec::msm_canonical(std::span<const ec::Affine<C>>(bases), std::span<const ff::Limbs<4>>(kc));
  EXPECT_TRUE(got == want) << group_name<C>() << " canonical: GPU " << describe(got) << " CPU " << describe(want);
}
TEST(GpuMsm, G1Canonical) {
  CUZK_REQUIRE_GPU();
  canonical<G1C>();
}
TEST(GpuMsm, G2Canonical) {
  CUZK_REQUIRE_GPU();
  canonical<G2C>();
}

// One engine across growing and shrinking sizes (scratch reuse) and base views.
TEST(GpuMsm, EngineReuseAndViews) {
  CUZK_REQUIRE_GPU();
  const auto bases = test_bases<G1C>(1 << 15, 71);
  const auto k = random_scalars(1 << 15, 72);
  gpu::G1DeviceBases db(bases);
  gpu::G1Msm engine;
  for (size_t n : {size_t{1} << 15, size_t{5}, size_t{1} << 12, size_t{1} << 15, size_t{300}}) {
    const size_t first = n == 300 ? 1000 : 0;
    const auto got = engine.run(db.view(first, n), std::span<const ff::Fr>(k.data(), n));
    const auto want =
        ec::msm(std::span<const ec::G1Affine>(bases.data() + first, n), std::span<const ff::Fr>(k.data(), n));
    EXPECT_TRUE(got == want) << "n=" << n << " first=" << first;
  }
}

// Precomputed window tables: every window width class, random / 0-1-heavy / density inputs, views
// that start inside the bases, the same engine with and without the table, and dropping it.
template <class C>
void tables(size_t n, const std::vector<unsigned>& widths) {
  const auto bases = test_bases<C>(n, 91);
  const auto k = random_scalars(n, 92);
  const auto mixed = mixed_scalars(n, 0.2, 0.2, 93);
  gpu::DeviceBases<C> db(bases);
  gpu::Msm<C> engine;
  const std::span<const ec::Affine<C>> hb(bases);
  for (unsigned c : widths) {
    db.precompute(c);
    EXPECT_EQ(db.table_bits(), c);
    EXPECT_EQ(db.table_bytes(), gpu::DeviceBases<C>::bytes_for_table(n, c));
    const size_t first = n / 3, count = n - n / 3 - 7;
    struct Case {
      const char* what;
      const std::vector<ff::Fr>* k;
      size_t first, count;
    };
    for (const Case& cs : {Case{"random", &k, 0, n}, Case{"0/1-heavy", &mixed, 0, n}, Case{"view", &k, first, count}}) {
      const auto got = engine.run(db.view(cs.first, cs.count), std::span<const ff::Fr>(cs.k->data(), cs.count));
      EXPECT_TRUE(engine.stats().table) << cs.what << " c=" << c;
      EXPECT_EQ(engine.stats().window_bits, c);
      const auto want = ec::msm(hb.subspan(cs.first, cs.count), std::span<const ff::Fr>(cs.k->data(), cs.count));
      EXPECT_TRUE(got == want) << group_name<C>() << " table c=" << c << " " << cs.what << ": GPU " << describe(got)
                               << " CPU " << describe(want);
    }
    // Another width than the table's runs without it, with the same result.
    gpu::GpuMsmOptions other;
    other.window_bits = c == 7 ? 8 : 7;
    const auto plain = engine.run(db.view(), k, other);
    EXPECT_FALSE(engine.stats().table);
    EXPECT_TRUE(plain == ec::msm(hb, std::span<const ff::Fr>(k))) << "c=" << c << " without the table";
  }
  // Density: the table rows follow the bases, the scalars skip the clear bits.
  std::vector<uint64_t> bits((2 * n + 63) / 64);
  std::mt19937_64 rng(94);
  size_t taking = 0;
  for (size_t i = 0; i < 2 * n && taking < n; ++i)
    if (rng() & 1) bits[i / 64] |= uint64_t{1} << (i % 64), ++taking;
  const size_t full = [&] {  // scalars covering exactly `taking` set bits
    size_t seen = 0, i = 0;
    for (; i < 2 * n && seen < taking; ++i) seen += (bits[i / 64] >> (i % 64)) & 1;
    return i;
  }();
  const auto kd = mixed_scalars(full, 0.1, 0.1, 95);
  gpu::GpuMsmOptions dopt;
  dopt.density = &bits;
  ec::MsmOptions cpu;
  cpu.density = &bits;
  const auto got = engine.run(db.view(0, taking), kd, dopt);
  EXPECT_TRUE(engine.stats().table);
  EXPECT_TRUE(got == ec::msm(hb.first(taking), std::span<const ff::Fr>(kd), cpu)) << "table with density";
  db.drop_table();
  EXPECT_EQ(db.table_bits(), 0u);
  EXPECT_TRUE(engine.run(db.view(), k) == ec::msm(hb, std::span<const ff::Fr>(k))) << "after drop_table";
  EXPECT_FALSE(engine.stats().table);
}
TEST(GpuMsm, G1Tables) {
  CUZK_REQUIRE_GPU();
  tables<G1C>(5000, {2, 7, 13, 16, 24});
}
TEST(GpuMsm, G2Tables) {
  CUZK_REQUIRE_GPU();
  tables<G2C>(1500, {9, 16});
}
TEST(GpuMsm, TableArguments) {
  CUZK_REQUIRE_GPU();
  gpu::G1DeviceBases db(test_bases<G1C>(10, 96));
  EXPECT_THROW(db.precompute(1), std::invalid_argument);
  EXPECT_THROW(db.precompute(25), std::invalid_argument);
  db.precompute(24);  // width 24 is allowed with a table (2..22 without)
  gpu::GpuMsmOptions opt;
  opt.window_bits = 24;
  const auto k = random_scalars(10, 97);
  const auto bases = test_bases<G1C>(10, 96);
  EXPECT_TRUE(gpu::G1Msm().run(db.view(), k, opt) ==
              ec::msm(std::span<const ec::G1Affine>(bases), std::span<const ff::Fr>(k)));
}

TEST(GpuMsm, BadArguments) {
  CUZK_REQUIRE_GPU();
  const auto bases = test_bases<G1C>(10, 81);
  gpu::G1DeviceBases db(bases);
  EXPECT_EQ(db.size(), 10u);
  EXPECT_EQ(db.bytes(), 10u * 96);
  EXPECT_THROW(gpu::msm<G1C>(db, random_scalars(9, 1)), std::invalid_argument);
  EXPECT_THROW(gpu::msm<G1C>(db, random_scalars(11, 1)), std::invalid_argument);
  EXPECT_THROW(db.view(5, 6), std::out_of_range);
  gpu::GpuMsmOptions opt;
  opt.window_bits = 23;
  EXPECT_THROW(gpu::msm<G1C>(db, random_scalars(10, 1), opt), std::invalid_argument);
  opt.window_bits = 1;
  EXPECT_THROW(gpu::msm<G1C>(db, random_scalars(10, 1), opt), std::invalid_argument);
  const auto b2 = test_bases<G2C>(4, 82);
  gpu::G2DeviceBases db2(b2);
  EXPECT_EQ(db2.bytes(), 4u * 192);
  EXPECT_THROW(gpu::msm<G2C>(db2, random_scalars(3, 1)), std::invalid_argument);
}

// Batch-affine accumulation ([tuning] gpu_msm_affine, msm_affine.cuh) on for one test.
class AffineOn {
 public:
  AffineOn() : saved_(tuning()) {
    Tuning t = saved_;
    t.gpu_msm_affine = true;
    set_tuning(t);
  }
  ~AffineOn() { set_tuning(saved_); }
  AffineOn(const AffineOn&) = delete;
  AffineOn& operator=(const AffineOn&) = delete;

 private:
  Tuning saved_;
};

TEST(GpuMsmAffine, G1RandomSizes) {
  CUZK_REQUIRE_GPU();
  AffineOn on;
  random_sizes<G1C>({0, 1, 2, 3, 100, 1 << 10, 1 << 14, 1 << 16, 1 << 20});
}
TEST(GpuMsmAffine, G2RandomSizes) {
  CUZK_REQUIRE_GPU();
  AffineOn on;
  random_sizes<G2C>({0, 1, 2, 3, 100, 1 << 10, 1 << 14, 1 << 18});
}
TEST(GpuMsmAffine, WindowWidthsAndPasses) {
  CUZK_REQUIRE_GPU();
  AffineOn on;
  window_widths<G1C>();
  window_widths<G2C>();
  window_passes<G1C>();
  window_passes<G2C>();
}
TEST(GpuMsmAffine, SpecialScalarsAndBases) {
  CUZK_REQUIRE_GPU();
  AffineOn on;
  special_scalars<G1C>(1 << 16);
  special_scalars<G2C>(1 << 12);
  special_bases<G1C>();
  special_bases<G2C>();
}
TEST(GpuMsmAffine, DensityCanonicalTables) {
  CUZK_REQUIRE_GPU();
  AffineOn on;
  density<G1C>(100000);
  density<G2C>(20000);
  canonical<G1C>();
  canonical<G2C>();
  tables<G1C>(5000, {2, 13, 24});
  tables<G2C>(1500, {16});
}

// Chunks of a few pairs: every round count, a bucket's items split across chunks (flushed into it
// by several chunks), repeated and opposite bases, identity bases and all-equal scalars.
template <class C>
void affine_chunks() {
  const size_t n = 5000;
  const auto bases = test_bases<C>(n, 101);
  const auto distinct = test_bases<C>(4, 102);
  std::vector<ec::Affine<C>> pm(n), with_id = bases;
  for (size_t i = 0; i < n; ++i) pm[i] = i % 2 ? -distinct[i % 4] : distinct[i % 4];
  for (size_t i = 0; i < n; i += 3) with_id[i] = ec::Affine<C>::identity();
  struct Case {
    const char* what;
    const std::vector<ec::Affine<C>>* bases;
    std::vector<ff::Fr> k;
  };
  const std::vector<Case> cases = {
      {"random", &bases, random_scalars(n, 103)},
      {"0/1-heavy", &bases, mixed_scalars(n, 0.3, 0.3, 104)},
      {"all equal", &bases, std::vector<ff::Fr>(n, ff::Fr::from_canonical(ff::Limbs<4>{99991, 0, 0, 0}))},
      {"P and -P, equal scalars", &pm, std::vector<ff::Fr>(n, ff::Fr::from_canonical(ff::Limbs<4>{5, 0, 0, 0}))},
      {"P and -P, random", &pm, random_scalars(n, 105)},
      {"identity bases", &with_id, random_scalars(n, 106)},
  };
  AffineOn on;
  struct Shape {
    size_t n, chunk;
    unsigned rounds, c;
  };
  // Chunks of 1 and 3 pairs on a short prefix (a launch per round and chunk); rounds 1..8, auto (0)
  // included, over several chunk sizes and window widths.
  const std::vector<Shape> shapes = {{40, 1, 1, 13},   {100, 3, 2, 13},  {1000, 64, 0, 13}, {1000, 64, 3, 13},
                                     {n, 1001, 1, 13}, {n, 1001, 8, 13}, {n, 0, 0, 13},     {n, 0, 2, 7},
                                     {n, 0, 8, 4},     {n, 4096, 5, 16}};
  for (const Case& cs : cases) {
    gpu::DeviceBases<C> db(*cs.bases);
    gpu::Msm<C> engine;
    for (const Shape& sh : shapes) {
      const std::span<const ff::Fr> k(cs.k.data(), sh.n);
      const auto want = ec::msm(std::span<const ec::Affine<C>>(cs.bases->data(), sh.n), k);
      gpu::GpuMsmOptions opt;
      opt.affine_chunk = sh.chunk;
      opt.affine_rounds = sh.rounds;
      opt.window_bits = sh.c;
      const auto got = engine.run(db.view(0, sh.n), k, opt);
      EXPECT_TRUE(got == want) << group_name<C>() << " " << cs.what << ", n " << sh.n << ", chunk " << sh.chunk
                               << ", rounds " << sh.rounds << " (ran " << engine.stats().affine_rounds << "), c "
                               << sh.c << ": GPU " << describe(got) << " CPU " << describe(want);
      if (sh.rounds != 0) EXPECT_EQ(engine.stats().affine_rounds, sh.rounds);
    }
  }
}
TEST(GpuMsmAffine, G1Chunks) {
  CUZK_REQUIRE_GPU();
  affine_chunks<G1C>();
}
TEST(GpuMsmAffine, G2Chunks) {
  CUZK_REQUIRE_GPU();
  affine_chunks<G2C>();
}

}  // namespace
