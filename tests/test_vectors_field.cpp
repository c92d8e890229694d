// Known-answer tests of Fr and Fq against tests/vectors/fr.json and fq.json (values computed by
// @noble/curves; regenerate / re-check with tests/vectors/gen_vectors.mjs and check_live.mjs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "vectors.hpp"

using namespace cuzk;
using namespace cuzk::ff;
using cuzk::test::json;

namespace {

template <class F>
struct FieldFile;
template <>
struct FieldFile<Fr> {
  static constexpr const char* file = "fr.json";
  static constexpr const char* name = "Fr";
};
template <>
struct FieldFile<Fq> {
  static constexpr const char* file = "fq.json";
  static constexpr const char* name = "Fq";
};

template <class F>
typename F::LimbsT limbs_of(const json& j) {
  // Any integer below 2^(64N), not only canonical field elements (the Montgomery INV, ...).
  typename F::LimbsT l{};
  const auto bytes = test::hex_to_bytes(j.get<std::string>());
  for (size_t k = 0; k < bytes.size(); ++k) {
    const size_t bit = 8 * (bytes.size() - 1 - k);
    if (bit / 64 < F::N)
      l[bit / 64] |= static_cast<uint64_t>(bytes[k]) << (bit % 64);
    else if (bytes[k] != 0)
      throw std::invalid_argument("constant wider than the field");
  }
  return l;
}

}  // namespace

template <class F>
class FieldVectors : public ::testing::Test {
 protected:
  static const json& file() {
    static const json j = test::load_vectors(FieldFile<F>::file);
    return j;
  }
};
using VectorFields = ::testing::Types<Fr, Fq>;
TYPED_TEST_SUITE(FieldVectors, VectorFields);

TYPED_TEST(FieldVectors, FileDescribesThisField) {
  using F = TypeParam;
  const json& v = this->file();
  EXPECT_EQ(v.at("field").get<std::string>(), FieldFile<F>::name);
  EXPECT_FALSE(v.at("cases").empty());
}

TYPED_TEST(FieldVectors, Constants) {
  using F = TypeParam;
  const json& c = this->file().at("constants");
  EXPECT_EQ(limbs_of<F>(c.at("modulus")), F::MOD);
  EXPECT_EQ(limbs_of<F>(c.at("r_mod_p")), F::R1);
  EXPECT_EQ(limbs_of<F>(c.at("r2_mod_p")), F::R2);
  EXPECT_EQ(limbs_of<F>(c.at("p_minus_1_over_2")), F::P_MINUS_1_OVER_2);
  EXPECT_EQ(test::u64_from_hex(c.at("mont_inv64").get<std::string>()), F::INV);
}

TYPED_TEST(FieldVectors, ParseAndPrintExactly) {
  using F = TypeParam;
  const json& cases = this->file().at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), FieldFile<F>::file, i));
    const json& t = cases[i];
    const std::string ahex = t.at("a").get<std::string>();
    const F a = test::fe<F>(t.at("a"));
    EXPECT_EQ(a.to_hex(), ahex);
    // Montgomery form (the representation snarkjs stores): raw limbs == a*R mod p.
    EXPECT_EQ(a.raw(), test::fe<F>(t.at("a_mont")).to_canonical());
    EXPECT_EQ(F::from_raw(a.raw()), a);
    // Big- and little-endian bytes.
    const auto be = test::hex_to_bytes(ahex);
    ASSERT_EQ(be.size(), F::NUM_BYTES);
    std::vector<uint8_t> out(F::NUM_BYTES);
    a.to_bytes_be(out);
    EXPECT_EQ(out, be);
    std::vector<uint8_t> le(be.rbegin(), be.rend());
    a.to_bytes_le(out);
    EXPECT_EQ(out, le);
    EXPECT_EQ(F::from_bytes_le(le).value(), a);
    EXPECT_EQ(F::from_bytes_be(be).value(), a);
    EXPECT_EQ(F::from_decimal(a.to_decimal()).value(), a);
  }
}

TYPED_TEST(FieldVectors, Arithmetic) {
  using F = TypeParam;
  const json& cases = this->file().at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), FieldFile<F>::file, i));
    const json& t = cases[i];
    const F a = test::fe<F>(t.at("a")), b = test::fe<F>(t.at("b"));
    EXPECT_EQ((a + b).to_hex(), t.at("add").get<std::string>());
    EXPECT_EQ((a - b).to_hex(), t.at("sub").get<std::string>());
    EXPECT_EQ((a * b).to_hex(), t.at("mul").get<std::string>());
    EXPECT_EQ((b * a).to_hex(), t.at("mul").get<std::string>());
    EXPECT_EQ(F::from_raw(F::mont_mul_portable(a.raw(), b.raw())).to_hex(), t.at("mul").get<std::string>());
    EXPECT_EQ(a.square().to_hex(), t.at("sq").get<std::string>());
    EXPECT_EQ((-a).to_hex(), t.at("neg").get<std::string>());
    EXPECT_EQ(a.half().to_hex(), t.at("half").get<std::string>());
    EXPECT_EQ(a.dbl(), a + a);
    F x = a;
    x += b;
    EXPECT_EQ(x.to_hex(), t.at("add").get<std::string>());
    x = a;
    x -= b;
    EXPECT_EQ(x.to_hex(), t.at("sub").get<std::string>());
    x = a;
    x *= b;
    EXPECT_EQ(x.to_hex(), t.at("mul").get<std::string>());
    EXPECT_EQ(a.is_zero(), a == F::zero());
  }
}

TYPED_TEST(FieldVectors, InverseAndBatchInverse) {
  using F = TypeParam;
  const json& cases = this->file().at("cases");
  std::vector<F> xs, expect;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), FieldFile<F>::file, i));
    const json& t = cases[i];
    const F a = test::fe<F>(t.at("a"));
    xs.push_back(a);
    if (t.at("inv").is_null()) {
      EXPECT_TRUE(a.is_zero());
      EXPECT_TRUE(a.inverse().is_zero());  // our convention: inverse of zero is zero
      expect.push_back(F::zero());
    } else {
      EXPECT_EQ(a.inverse().to_hex(), t.at("inv").get<std::string>());
      expect.push_back(test::fe<F>(t.at("inv")));
    }
  }
  batch_inverse<F>(xs);
  EXPECT_EQ(xs, expect);
}

TYPED_TEST(FieldVectors, Pow) {
  using F = TypeParam;
  const json& cases = this->file().at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), FieldFile<F>::file, i));
    const json& t = cases[i];
    const F a = test::fe<F>(t.at("a"));
    const uint64_t e = test::u64_from_hex(t.at("pow").at("e").get<std::string>());
    EXPECT_EQ(a.pow(e).to_hex(), t.at("pow").at("r").get<std::string>()) << "e = " << e;
  }
}

TYPED_TEST(FieldVectors, LegendreAndSqrt) {
  using F = TypeParam;
  const json& cases = this->file().at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), FieldFile<F>::file, i));
    const json& t = cases[i];
    const F a = test::fe<F>(t.at("a"));
    EXPECT_EQ(a.legendre(), t.at("legendre").get<int>());
    // Square root of a: exists exactly when noble found one; either root is acceptable.
    const auto s = a.sqrt();
    ASSERT_EQ(s.has_value(), t.at("is_square").get<bool>());
    if (s) {
      const F noble = test::fe<F>(t.at("sqrt"));
      EXPECT_EQ(s->square(), a);
      EXPECT_TRUE(*s == noble || *s == -noble) << s->to_hex() << " vs noble " << noble.to_hex();
    } else {
      EXPECT_TRUE(t.at("sqrt").is_null());
    }
    // Square root of a^2 is +-a.
    const F asq = test::fe<F>(t.at("a_sq"));
    EXPECT_EQ(a.square(), asq);
    const auto r = asq.sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
    const F noble = test::fe<F>(t.at("sqrt_of_a_sq"));
    EXPECT_TRUE(noble == a || noble == -a);
  }
}
