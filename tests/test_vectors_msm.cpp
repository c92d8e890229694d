// Known-answer tests of the multi-scalar multiplication (G1 and G2) against tests/vectors/msm.json
// (values computed by @noble/curves as sum scalars[i] * bases[i]; regenerate / re-check with
// tests/vectors/gen_vectors.mjs and check_live.mjs). Every case is run through msm (Montgomery Fr
// scalars) and msm_canonical (canonical limbs), on a private single-threaded pool and a private
// 3-thread pool, and the result must be noble's affine point exactly. Nothing here depends on the
// number or values of the cases, so the same tests run against freshly generated vectors
// (CUZK_VECTORS_DIR).
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"
#include "vectors.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::test::json;

namespace {

const json& msm_file() {
  static const json j = test::load_vectors("msm.json");
  return j;
}

// The pools the tests run on (created once; each MSM call gets one through MsmOptions::pool).
ThreadPool& pool1() {
  static ThreadPool p(1);
  return p;
}
ThreadPool& pool3() {
  static ThreadPool p(3);
  return p;
}

template <class C>
struct MsmTraits;
template <>
struct MsmTraits<G1Config> {
  static constexpr const char* key = "g1";
  static Fq coord(const json& j) { return test::fe<Fq>(j); }
  static json coord_json(const Fq& a) { return a.to_hex(); }
};
template <>
struct MsmTraits<G2Config> {
  static constexpr const char* key = "g2";
  static Fq2 coord(const json& j) { return test::fe2<Fq2>(j); }
  static json coord_json(const Fq2& a) { return json::array({a.c0.to_hex(), a.c1.to_hex()}); }
};

// {x, y, infinity} -> affine point; infinity must come with x = y = 0.
template <class C>
Affine<C> msm_point(const json& j) {
  using T = MsmTraits<C>;
  const auto x = T::coord(j.at("x")), y = T::coord(j.at("y"));
  if (j.at("infinity").get<bool>()) {
    if (!x.is_zero() || !y.is_zero()) throw std::invalid_argument("fixture infinity with non-zero coordinates");
    return Affine<C>();
  }
  return Affine<C>(x, y);
}

// The affine point written as the fixture writes it, for exact comparison with the fixture's JSON.
template <class C>
json as_json(const Affine<C>& p) {
  using T = MsmTraits<C>;
  using F = typename C::Base;
  const F x = p.infinity ? F::zero() : p.x, y = p.infinity ? F::zero() : p.y;
  return json{{"x", T::coord_json(x)}, {"y", T::coord_json(y)}, {"infinity", p.infinity}};
}

template <class C>
void expect_result(const Jacobian<C>& got, const json& want, const std::string& what) {
  EXPECT_TRUE(got.is_on_curve()) << what;
  EXPECT_EQ(as_json<C>(got.to_affine()).dump(), want.dump()) << what;
}

// One parsed case.
template <class C>
struct Case {
  std::vector<Affine<C>> bases;
  std::vector<Fr> scalars;
  std::vector<ff::Limbs<4>> canonical;
  const json* result = nullptr;
};

template <class C>
Case<C> parse_case(const json& t) {
  Case<C> c;
  const json& bs = t.at("bases");
  const json& ss = t.at("scalars");
  if (!bs.is_array() || !ss.is_array() || bs.size() != ss.size())
    throw std::invalid_argument("msm case: bases and scalars are not arrays of the same length");
  if (t.contains("n") && t.at("n").get<size_t>() != bs.size())
    throw std::invalid_argument("msm case: n != bases.size()");
  for (const json& b : bs) c.bases.push_back(msm_point<C>(b));
  for (const json& s : ss) {
    c.scalars.push_back(test::fe<Fr>(s));
    c.canonical.push_back(c.scalars.back().to_canonical());
  }
  c.result = &t.at("result");
  return c;
}

}  // namespace

template <class C>
class MsmVectors : public ::testing::Test {
 protected:
  using T = MsmTraits<C>;
  static const json& cases() { return msm_file().at(T::key); }
  static std::string where(size_t i) { return test::describe(msm_file(), std::string("msm.json ") + T::key, i); }
};
using MsmGroups = ::testing::Types<G1Config, G2Config>;
TYPED_TEST_SUITE(MsmVectors, MsmGroups);

TYPED_TEST(MsmVectors, FileHoldsCases) {
  ASSERT_TRUE(this->cases().is_array());
  EXPECT_FALSE(this->cases().empty());
}

// The fixture is self-consistent: bases on the curve and in G, result = plain sum of k_i * P_i.
TYPED_TEST(MsmVectors, NaiveSumMatchesFixture) {
  using C = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const Case<C> c = parse_case<C>(this->cases()[i]);
    Jacobian<C> acc = Jacobian<C>::identity();
    for (size_t j = 0; j < c.bases.size(); ++j) {
      EXPECT_TRUE(c.bases[j].is_on_curve()) << "base " << j;
      acc += Jacobian<C>(c.bases[j]).mul(c.scalars[j]);
    }
    expect_result<C>(acc, *c.result, "naive sum");
  }
}

TYPED_TEST(MsmVectors, MsmSingleAndMultiThreaded) {
  using C = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const Case<C> c = parse_case<C>(this->cases()[i]);
    for (ThreadPool* pool : {&pool1(), &pool3()}) {
      MsmOptions o;
      o.pool = pool;
      const std::string th = " (" + std::to_string(pool->size()) + " threads)";
      expect_result<C>(msm(std::span<const Affine<C>>(c.bases), std::span<const Fr>(c.scalars), o), *c.result,
                       "msm" + th);
      expect_result<C>(
          msm_canonical(std::span<const Affine<C>>(c.bases), std::span<const ff::Limbs<4>>(c.canonical), o), *c.result,
          "msm_canonical" + th);
    }
  }
}

// msm_canonical reduces scalars >= r: k + r (< 2^256 since 2r < 2^256) gives the same result.
TYPED_TEST(MsmVectors, CanonicalScalarsAboveR) {
  using C = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const Case<C> c = parse_case<C>(this->cases()[i]);
    std::vector<ff::Limbs<4>> wide = c.canonical;
    for (auto& k : wide) ASSERT_EQ(ff::add_limbs(k, k, Fr::MOD), 0u);
    for (ThreadPool* pool : {&pool1(), &pool3()}) {
      MsmOptions o;
      o.pool = pool;
      expect_result<C>(msm_canonical(std::span<const Affine<C>>(c.bases), std::span<const ff::Limbs<4>>(wide), o),
                       *c.result, "msm_canonical(k + r), " + std::to_string(pool->size()) + " threads");
    }
  }
}

// The bellperson density form: the fixture's scalars interleaved with scalars whose density bit is
// clear (they must be ignored), bases only for the set bits.
TYPED_TEST(MsmVectors, DensityBitmap) {
  using C = TypeParam;
  Xoshiro256 rng(0x5eed0777);
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const Case<C> c = parse_case<C>(this->cases()[i]);
    std::vector<Fr> full;
    std::vector<ff::Limbs<4>> full_canonical;
    std::vector<uint64_t> density;
    auto push = [&](const Fr& k, bool used) {
      const size_t bit = full.size();
      if (bit / 64 >= density.size()) density.push_back(0);
      if (used) density[bit / 64] |= uint64_t{1} << (bit % 64);
      full.push_back(k);
      full_canonical.push_back(k.to_canonical());
    };
    for (size_t j = 0; j < c.scalars.size(); ++j) {
      push(Fr::random(rng), false);
      push(c.scalars[j], true);
    }
    push(Fr::random(rng), false);
    for (ThreadPool* pool : {&pool1(), &pool3()}) {
      MsmOptions o;
      o.pool = pool;
      o.density = &density;
      const std::string th = " (" + std::to_string(pool->size()) + " threads)";
      expect_result<C>(msm(std::span<const Affine<C>>(c.bases), std::span<const Fr>(full), o), *c.result,
                       "msm with density" + th);
      expect_result<C>(
          msm_canonical(std::span<const Affine<C>>(c.bases), std::span<const ff::Limbs<4>>(full_canonical), o),
          *c.result, "msm_canonical with density" + th);
    }
  }
}

// Explicit configurations (window widths, splits, batch sizes, Jacobian buckets, chunking) on the
// same cases: every plan must give noble's point.
TYPED_TEST(MsmVectors, ExplicitConfigs) {
  using C = TypeParam;
  const std::vector<MsmConfig> cfgs = {
      {.window_bits = 2, .splits = 2},
      {.window_bits = 3},
      {.window_bits = 5, .splits = 3, .batch = 7},
      {.window_bits = 4, .jacobian_buckets = true},
      {.window_bits = 8, .chunk = 1},
      {.window_bits = 6, .splits = 4, .batch = 1, .chunk = 3},
  };
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const Case<C> c = parse_case<C>(this->cases()[i]);
    for (const MsmConfig& cfg : cfgs) {
      for (ThreadPool* pool : {&pool1(), &pool3()}) {
        MsmOptions o;
        o.pool = pool;
        o.config = &cfg;
        const std::string what =
            "c=" + std::to_string(cfg.window_bits) + " splits=" + std::to_string(cfg.splits) +
            " batch=" + std::to_string(cfg.batch) + " jacobian=" + std::to_string(cfg.jacobian_buckets) +
            " chunk=" + std::to_string(cfg.chunk) + ", " + std::to_string(pool->size()) + " threads";
        expect_result<C>(msm(std::span<const Affine<C>>(c.bases), std::span<const Fr>(c.scalars), o), *c.result,
                         "msm " + what);
      }
    }
  }
}
