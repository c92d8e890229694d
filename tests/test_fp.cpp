// Property tests of the generic prime field on both BLS12-381 fields (exact known-answer vectors
// from @noble/curves live in test_vectors_*.cpp).
#include <gtest/gtest.h>

#include "ff/bls12_381.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ff;

template <class F>
class FieldTest : public ::testing::Test {};
using Fields = ::testing::Types<Fr, Fq>;
TYPED_TEST_SUITE(FieldTest, Fields);

TYPED_TEST(FieldTest, RingAxioms) {
  using F = TypeParam;
  Xoshiro256 rng(1);
  for (int i = 0; i < 500; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ((a + b) * c, a * c + b * c);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.half().dbl(), a);
    EXPECT_EQ(F::mont_mul_portable(a.raw(), b.raw()), (a * b).raw());
  }
}

TYPED_TEST(FieldTest, InverseAndBatchInverse) {
  using F = TypeParam;
  Xoshiro256 rng(2);
  std::vector<F> xs(64), orig;
  for (auto& x : xs) x = F::random(rng);
  xs[5] = F::zero();
  orig = xs;
  batch_inverse<F>(xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    if (orig[i].is_zero()) {
      EXPECT_TRUE(xs[i].is_zero());
    } else {
      EXPECT_EQ(xs[i] * orig[i], F::one());
      EXPECT_EQ(xs[i], orig[i].inverse());
    }
  }
  EXPECT_TRUE(F::zero().inverse().is_zero());
  EXPECT_EQ(F::one().inverse(), F::one());
}

// inverse() (divsteps) against inverse_binary() (binary extended Euclid, an independent
// algorithm), on random elements and on raw representatives that stress the divsteps: small
// integers, powers of two, p - 1, p - 2, values with long runs of ones or zeros.
TYPED_TEST(FieldTest, InverseMatchesBinaryReference) {
  using F = TypeParam;
  using L = typename F::LimbsT;
  Xoshiro256 rng(22);
  std::vector<F> xs;
  for (int i = 0; i < 3000; ++i) xs.push_back(F::random(rng));
  for (uint64_t k : {1ULL, 2ULL, 3ULL, 5ULL, 0xffffffffULL, ~0ULL}) xs.push_back(F::from_raw(L{k}));
  for (unsigned bit = 0; bit + 1 < 64 * std::tuple_size_v<L>; bit += 7) {
    L l{};
    l[bit / 64] = uint64_t{1} << (bit % 64);
    if (ff::less_than(l, F::MOD)) xs.push_back(F::from_raw(l));
    L ones{};  // 2^bit - 1
    for (unsigned b = 0; b < bit; ++b) ones[b / 64] |= uint64_t{1} << (b % 64);
    if (ff::less_than(ones, F::MOD) && bit > 0) xs.push_back(F::from_raw(ones));
  }
  for (uint64_t k : {1ULL, 2ULL, 3ULL}) {
    L l = F::MOD;
    l[0] -= k;  // p - k (p is odd and > 3)
    xs.push_back(F::from_raw(l));
  }
  for (const F& x : xs) {
    const F inv = x.inverse();
    ASSERT_EQ(inv, x.inverse_binary()) << x.to_hex();
    ASSERT_EQ(inv * x, F::one()) << x.to_hex();
  }
  EXPECT_TRUE(F::zero().inverse_binary().is_zero());
}

TYPED_TEST(FieldTest, SqrtAndLegendre) {
  using F = TypeParam;
  Xoshiro256 rng(3);
  int non_residues = 0;
  for (int i = 0; i < 200; ++i) {
    F a = F::random(rng);
    auto s = a.square().sqrt();
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->square(), a.square());
    EXPECT_EQ(a.square().legendre(), a.is_zero() ? 0 : 1);
    if (a.legendre() == -1) {
      ++non_residues;
      EXPECT_FALSE(a.sqrt().has_value());
    }
  }
  EXPECT_GT(non_residues, 50);  // about half of all elements
  EXPECT_EQ(F::zero().legendre(), 0);
}

TYPED_TEST(FieldTest, EncodingsRoundTrip) {
  using F = TypeParam;
  Xoshiro256 rng(4);
  for (int i = 0; i < 100; ++i) {
    F a = F::random(rng);
    uint8_t le[F::NUM_BYTES], be[F::NUM_BYTES];
    a.to_bytes_le(le);
    a.to_bytes_be(be);
    EXPECT_EQ(F::from_bytes_le(le).value(), a);
    EXPECT_EQ(F::from_bytes_be(be).value(), a);
    for (size_t k = 0; k < F::NUM_BYTES; ++k) EXPECT_EQ(le[k], be[F::NUM_BYTES - 1 - k]);
    EXPECT_EQ(F::from_hex(a.to_hex()).value(), a);
    EXPECT_EQ(F::from_decimal(a.to_decimal()).value(), a);
  }
}

TYPED_TEST(FieldTest, RejectsNonCanonicalAndMalformed) {
  using F = TypeParam;
  uint8_t le[F::NUM_BYTES] = {};
  for (size_t i = 0; i < F::NUM_BYTES; ++i) le[i] = static_cast<uint8_t>(F::MOD[i / 8] >> (8 * (i % 8)));
  auto r = F::from_bytes_le(le);  // exactly p
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("canonical"), std::string::npos);
  EXPECT_FALSE(F::from_bytes_le(std::span<const uint8_t>(le, 3)).ok());
  EXPECT_FALSE(F::from_hex("0xzz").ok());
  EXPECT_FALSE(F::from_hex("").ok());
  EXPECT_FALSE(F::from_decimal("12a").ok());
  EXPECT_FALSE(F::from_decimal(std::string(200, '9')).ok());
  EXPECT_THROW((void)F::from_hex("0xzz").value(), std::runtime_error);
}

TEST(FieldConstants, KnownValues) {
  // -1 in canonical form is p - 1.
  EXPECT_EQ((-Fr::one()).to_hex(), "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000");
  EXPECT_EQ(Fr::from_u64(12345).to_decimal(), "12345");
  EXPECT_EQ(Fq::BITS, 381u);
  EXPECT_EQ(Fr::BITS, 255u);
  EXPECT_EQ(Fq::NUM_BYTES, 48u);
  EXPECT_EQ(Fr::NUM_BYTES, 32u);
  // 7 generates Fr^* (zcash's multiplicative generator), so it is a non-residue.
  EXPECT_EQ(Fr::from_u64(7).legendre(), -1);
  EXPECT_EQ(Fr::from_u64(5).legendre(), -1);
}
