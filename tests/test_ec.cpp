// Group-law and encoding properties of G1 and G2 (exact vectors from @noble/curves are in
// test_vectors_ec.cpp).
#include <gtest/gtest.h>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

// A random point of E(F) (usually outside the prime-order subgroup): random x until x^3+b is square.
template <class C, class Rng>
Affine<C> random_curve_point(Rng& rng) {
  using F = typename C::Base;
  for (;;) {
    F x = F::random(rng);
    auto y = (x.square() * x + C::b()).sqrt();
    if (y) return Affine<C>(x, *y);
  }
}

}  // namespace

template <class C>
class GroupTest : public ::testing::Test {};
using Groups = ::testing::Types<G1Config, G2Config>;
TYPED_TEST_SUITE(GroupTest, Groups);

TYPED_TEST(GroupTest, GeneratorHasOrderR) {
  using J = Jacobian<TypeParam>;
  auto g = TypeParam::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(J(g).mul(Fr::MOD).is_identity());
  EXPECT_FALSE(J(g).mul_u64(12345).is_identity());
}

TYPED_TEST(GroupTest, GroupLaws) {
  using J = Jacobian<TypeParam>;
  Xoshiro256 rng(7);
  const J g(TypeParam::generator());
  for (int i = 0; i < 20; ++i) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    J p = g.mul(a), q = g.mul(b);
    EXPECT_TRUE(p.is_on_curve());
    EXPECT_EQ(p + q, q + p);
    EXPECT_EQ(p + q, g.mul(a + b));
    EXPECT_EQ(p.dbl(), p + p);
    EXPECT_EQ(p.add_affine(q.to_affine()), p + q);
    EXPECT_EQ(p.add_affine(p.to_affine()), p.dbl());
    EXPECT_TRUE(p.add_affine((-p).to_affine()).is_identity());
    EXPECT_TRUE((p - p).is_identity());
    EXPECT_EQ(p + J::identity(), p);
    EXPECT_EQ(p.mul(b), g.mul(a * b));
    EXPECT_EQ(J(p.to_affine()), p);
    EXPECT_EQ(g.mul(-a), -p);
  }
  EXPECT_EQ(g.mul_u64(5), g + g + g + g + g);
  EXPECT_TRUE(g.mul(Fr::zero()).is_identity());
}

TYPED_TEST(GroupTest, BatchToAffine) {
  using J = Jacobian<TypeParam>;
  Xoshiro256 rng(8);
  const J g(TypeParam::generator());
  std::vector<J> pts;
  for (int i = 0; i < 33; ++i) pts.push_back(i == 4 ? J::identity() : g.mul(Fr::random(rng)));
  std::vector<Affine<TypeParam>> out(pts.size());
  batch_to_affine<TypeParam>(pts, out);
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(out[i], pts[i].to_affine());
}

TEST(Subgroup, FastChecksAgreeWithOrderCheck) {
  Xoshiro256 rng(9);
  int outside1 = 0, outside2 = 0;
  for (int i = 0; i < 20; ++i) {
    auto p = random_curve_point<G1Config>(rng);
    bool by_order = g1_in_subgroup_by_order(p);
    EXPECT_EQ(g1_in_subgroup(p), by_order);
    outside1 += !by_order;
    auto q = random_curve_point<G2Config>(rng);
    by_order = g2_in_subgroup_by_order(q);
    EXPECT_EQ(g2_in_subgroup(q), by_order);
    outside2 += !by_order;
    // Clearing the cofactor part by multiplying subgroup points keeps them inside.
    EXPECT_TRUE(g1_in_subgroup(G1(g1_generator()).mul(Fr::random(rng)).to_affine()));
    EXPECT_TRUE(g2_in_subgroup(G2(g2_generator()).mul(Fr::random(rng)).to_affine()));
  }
  EXPECT_EQ(outside1, 20);  // the cofactors are huge: random points are essentially never inside
  EXPECT_EQ(outside2, 20);
}

TEST(Encoding, RoundTripsAndFlags) {
  Xoshiro256 rng(10);
  for (int i = 0; i < 10; ++i) {
    auto p = G1(g1_generator()).mul(Fr::random(rng)).to_affine();
    auto q = G2(g2_generator()).mul(Fr::random(rng)).to_affine();
    EXPECT_EQ(g1_from_compressed(g1_to_compressed(p)).value(), p);
    EXPECT_EQ(g1_from_uncompressed(g1_to_uncompressed(p)).value(), p);
    EXPECT_EQ(g2_from_compressed(g2_to_compressed(q)).value(), q);
    EXPECT_EQ(g2_from_uncompressed(g2_to_uncompressed(q)).value(), q);
    EXPECT_EQ(g1_from_snarkjs(g1_to_snarkjs(p)).value(), p);
    EXPECT_EQ(g2_from_snarkjs(g2_to_snarkjs(q)).value(), q);
    EXPECT_EQ(g1_to_compressed(p)[0] & 0x80, 0x80);
    EXPECT_EQ(g1_to_uncompressed(p)[0] & 0xe0, 0);
  }
  auto inf = g1_to_compressed(G1Affine());
  EXPECT_EQ(inf[0], 0xc0);
  EXPECT_TRUE(g1_from_compressed(inf).value().infinity);
  EXPECT_TRUE(g2_from_uncompressed(g2_to_uncompressed(G2Affine())).value().infinity);
  auto zeros = g1_to_snarkjs(G1Affine());
  for (auto c : zeros) EXPECT_EQ(c, 0);
  EXPECT_TRUE(g1_from_snarkjs(zeros).value().infinity);
}

TEST(Encoding, RejectsBadBytes) {
  Xoshiro256 rng(11);
  auto p = G1(g1_generator()).mul(Fr::random(rng)).to_affine();
  auto c = g1_to_compressed(p);
  EXPECT_FALSE(g1_from_compressed(std::span<const uint8_t>(c.data(), 47)).ok());
  EXPECT_FALSE(g1_from_uncompressed(c).ok());  // wrong length
  auto bad = c;
  bad[0] &= 0x7f;  // compression flag cleared
  EXPECT_FALSE(g1_from_compressed(bad).ok());
  bad = c;
  bad[0] |= 0x40;  // infinity flag with coordinates
  EXPECT_FALSE(g1_from_compressed(bad).ok());
  auto allff = c;
  std::fill(allff.begin(), allff.end(), 0xff);
  allff[0] = 0x9f;  // compressed, no other flag, x >= q
  auto r = g1_from_compressed(allff);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("canonical"), std::string::npos) << r.error();
  // A curve point outside the subgroup is rejected unless the check is waived.
  auto outside = random_curve_point<G1Config>(rng);
  auto u = g1_to_uncompressed(outside);
  auto r2 = g1_from_uncompressed(u);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().find("subgroup"), std::string::npos);
  EXPECT_TRUE(g1_from_uncompressed(u, SubgroupCheck::No).ok());
  // Off the curve.
  u[95] ^= 1;
  auto r3 = g1_from_uncompressed(u, SubgroupCheck::No);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().find("not on the curve"), std::string::npos);
  auto s = g2_to_snarkjs(G2(g2_generator()).to_affine());
  s[10] ^= 0x5a;
  EXPECT_FALSE(g2_from_snarkjs(s).ok());
}
