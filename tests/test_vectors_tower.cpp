// Known-answer tests of the pairing tower Fq6 = Fq2[v]/(v^3 - (u + 1)) and Fq12 = Fq6[w]/(w^2 - v)
// against tests/vectors/fq6.json and fq12.json (values computed by @noble/curves; regenerate /
// re-check with tests/vectors/gen_vectors.mjs and check_live.mjs). Elements are written in the flat
// order of the generator: Fq6 = [c0.c0, c0.c1, c1.c0, c1.c1, c2.c0, c2.c1], Fq12 = [c0 (6), c1 (6)].
// Every case the files hold is checked, with exact (hex string) comparison; nothing here depends on
// the number or values of the cases, so the same tests run against freshly generated vectors
// (CUZK_VECTORS_DIR).
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ff/bls12_381.hpp"
#include "vectors.hpp"

using namespace cuzk;
using namespace cuzk::ff;
using cuzk::test::json;

namespace {

using Flat = std::vector<std::string>;

// --- flat coefficient lists <-> tower elements
Fq2 fq2_at(const json& j, size_t i) {
  return Fq2(test::fe<Fq>(j.at(i)), test::fe<Fq>(j.at(i + 1)));
}

Fq6 fq6_at(const json& j, size_t off) {
  return Fq6(fq2_at(j, off), fq2_at(j, off + 2), fq2_at(j, off + 4));
}

void append(Flat& out, const Fq2& a) {
  out.push_back(a.c0.to_hex());
  out.push_back(a.c1.to_hex());
}
void append(Flat& out, const Fq6& a) {
  append(out, a.c0);
  append(out, a.c1);
  append(out, a.c2);
}
void append(Flat& out, const Fq12& a) {
  append(out, a.c0);
  append(out, a.c1);
}

template <class E>
struct Tower;

template <>
struct Tower<Fq6> {
  static constexpr const char* file = "fq6.json";
  static constexpr const char* name = "Fq6";
  static constexpr size_t width = 6;
  static Fq6 parse_flat(const json& j) { return fq6_at(j, 0); }
};
template <>
struct Tower<Fq12> {
  static constexpr const char* file = "fq12.json";
  static constexpr const char* name = "Fq12";
  static constexpr size_t width = 12;
  static Fq12 parse_flat(const json& j) { return Fq12(fq6_at(j, 0), fq6_at(j, 6)); }
};

template <class E>
E parse(const json& j) {
  if (!j.is_array() || j.size() != Tower<E>::width)
    throw std::invalid_argument(std::string(Tower<E>::name) + " fixture value is not " +
                                std::to_string(Tower<E>::width) + " hex strings: " + j.dump());
  return Tower<E>::parse_flat(j);
}

template <class E>
Flat flat(const E& a) {
  Flat out;
  append(out, a);
  return out;
}

// Exact comparison with the fixture's strings (a non-canonical representation would show).
template <class E>
void expect_flat(const E& got, const json& want, const std::string& what) {
  ASSERT_TRUE(want.is_array() && want.size() == Tower<E>::width) << what << ": malformed fixture " << want.dump();
  EXPECT_EQ(flat(got), want.get<Flat>()) << what;
}

}  // namespace

template <class E>
const json& tower_file() {
  static const json j = test::load_vectors(Tower<E>::file);
  return j;
}

template <class E>
class TowerVectors : public ::testing::Test {
 protected:
  using T = Tower<E>;
  static const json& file() { return tower_file<E>(); }
  static const json& cases() { return file().at("cases"); }
  static std::string where(size_t i) { return test::describe(file(), T::file, i); }
};
using TowerFields = ::testing::Types<Fq6, Fq12>;
TYPED_TEST_SUITE(TowerVectors, TowerFields);

TYPED_TEST(TowerVectors, FileDescribesThisField) {
  using E = TypeParam;
  const json& v = this->file();
  EXPECT_EQ(v.at("field").get<std::string>(), Tower<E>::name);
  ASSERT_TRUE(v.at("cases").is_array());
  EXPECT_FALSE(v.at("cases").empty());
  // Every key of every case is one this file checks: a new kind of value in the generator must get
  // a check here, not be ignored silently.
  const std::set<std::string> known =
      std::is_same_v<E, Fq6>
          ? std::set<std::string>{"a", "b", "add", "sub", "mul", "sq", "neg", "inv", "mul_by_nonresidue", "frobenius"}
          : std::set<std::string>{"a", "b", "add", "sub", "mul", "sq", "neg", "inv", "conjugate", "frobenius"};
  for (size_t i = 0; i < this->cases().size(); ++i)
    for (const auto& [key, value] : this->cases()[i].items())
      EXPECT_TRUE(known.count(key)) << this->where(i) << ": unchecked key \"" << key << "\"";
}

TYPED_TEST(TowerVectors, RoundTripFlatOrder) {
  using E = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const json& t = this->cases()[i];
    expect_flat(parse<E>(t.at("a")), t.at("a"), "a");
    expect_flat(parse<E>(t.at("b")), t.at("b"), "b");
  }
}

TYPED_TEST(TowerVectors, AddSubNeg) {
  using E = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const json& t = this->cases()[i];
    const E a = parse<E>(t.at("a")), b = parse<E>(t.at("b"));
    expect_flat(a + b, t.at("add"), "a + b");
    expect_flat(b + a, t.at("add"), "b + a");
    expect_flat(a - b, t.at("sub"), "a - b");
    expect_flat(-a, t.at("neg"), "-a");
    expect_flat(E::zero() - a, t.at("neg"), "0 - a");
    EXPECT_EQ(a.dbl(), a + a);
    E x = a;
    x += b;
    expect_flat(x, t.at("add"), "+=");
    x = a;
    x -= b;
    expect_flat(x, t.at("sub"), "-=");
  }
}

TYPED_TEST(TowerVectors, MulAndSquare) {
  using E = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const json& t = this->cases()[i];
    const E a = parse<E>(t.at("a")), b = parse<E>(t.at("b"));
    expect_flat(a * b, t.at("mul"), "a * b");
    expect_flat(b * a, t.at("mul"), "b * a");
    E x = a;
    x *= b;
    expect_flat(x, t.at("mul"), "*=");
    expect_flat(a.square(), t.at("sq"), "a.square()");
    expect_flat(a * a, t.at("sq"), "a * a");
    expect_flat(a.pow(Limbs<1>{2}), t.at("sq"), "a.pow(2)");
  }
}

TYPED_TEST(TowerVectors, Inverse) {
  using E = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const json& t = this->cases()[i];
    const E a = parse<E>(t.at("a"));
    if (t.at("inv").is_null()) {  // (the generator never draws zero, but be ready for it)
      EXPECT_TRUE(a.is_zero());
      EXPECT_TRUE(a.inverse().is_zero());
      continue;
    }
    expect_flat(a.inverse(), t.at("inv"), "a.inverse()");
    const E inv = parse<E>(t.at("inv"));
    EXPECT_TRUE((a * inv).is_one());
    expect_flat(inv.inverse(), t.at("a"), "inv.inverse()");
  }
}

TYPED_TEST(TowerVectors, Frobenius) {
  using E = TypeParam;
  for (size_t i = 0; i < this->cases().size(); ++i) {
    SCOPED_TRACE(this->where(i));
    const json& t = this->cases()[i];
    const E a = parse<E>(t.at("a"));
    const json& fr = t.at("frobenius");  // fr[k-1] = a^(q^k)
    ASSERT_TRUE(fr.is_array());
    EXPECT_FALSE(fr.empty());
    E iterated = a;
    for (size_t k = 1; k <= fr.size(); ++k) {
      const std::string what = "a^(q^" + std::to_string(k) + ")";
      expect_flat(a.frobenius(static_cast<unsigned>(k)), fr[k - 1], what);
      iterated = iterated.frobenius(1);
      expect_flat(iterated, fr[k - 1], what + " as frobenius(1) applied " + std::to_string(k) + " times");
      // The map has order 6 on Fq6 and 12 on Fq12; frobenius(k) takes k modulo that.
      const unsigned order = std::is_same_v<E, Fq6> ? 6u : 12u;
      expect_flat(a.frobenius(static_cast<unsigned>(k) + order), fr[k - 1], what + " (k + order)");
      // Ring homomorphism: (a b)^(q^k) = a^(q^k) b^(q^k), checked with noble's product.
      const E ab = parse<E>(t.at("mul"));
      EXPECT_EQ(ab.frobenius(static_cast<unsigned>(k)),
                parse<E>(fr[k - 1]) * parse<E>(t.at("b")).frobenius(static_cast<unsigned>(k)))
          << what << " of a*b";
    }
  }
}

// Fq6 only: multiplication by the Fq12 non-residue v, and the sparse products of the Miller loop.
TEST(TowerVectorsFq6, MulByNonresidueAndSparse) {
  const json& file = tower_file<Fq6>();
  const json& cases = file.at("cases");
  const Fq6 v(Fq2::zero(), Fq2::one(), Fq2::zero());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(file, "fq6.json", i));
    const json& t = cases[i];
    const Fq6 a = parse<Fq6>(t.at("a")), b = parse<Fq6>(t.at("b"));
    expect_flat(a.mul_by_nonresidue(), t.at("mul_by_nonresidue"), "a.mul_by_nonresidue()");
    expect_flat(a * v, t.at("mul_by_nonresidue"), "a * v");
    // Sparse operands taken from b: (b.c0 + b.c1 v) and (b.c1 v).
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * Fq6(b.c0, b.c1, Fq2::zero()));
    EXPECT_EQ(a.mul_by_1(b.c1), a * Fq6(Fq2::zero(), b.c1, Fq2::zero()));
    // Multiplication by an Fq2 scalar.
    EXPECT_EQ(a * b.c0, a * Fq6(b.c0, Fq2::zero(), Fq2::zero()));
  }
}

// Fq12 only: conjugation (= a^(q^6)), the sparse line product, and the cyclotomic squarings on
// elements built from noble's values (conj(a) * a^-1 = a^(q^6 - 1), then x^(q^2) * x).
TEST(TowerVectorsFq12, ConjugateSparseAndCyclotomic) {
  const json& file = tower_file<Fq12>();
  const json& cases = file.at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(file, "fq12.json", i));
    const json& t = cases[i];
    const Fq12 a = parse<Fq12>(t.at("a")), b = parse<Fq12>(t.at("b"));
    expect_flat(a.conjugate(), t.at("conjugate"), "a.conjugate()");
    expect_flat(a.frobenius(6), t.at("conjugate"), "a.frobenius(6)");
    // Multiplication by w: w * w = v, and (c0 + c1 w) w = v c1 + c0 w.
    const Fq12 w(Fq6::zero(), Fq6::one());
    EXPECT_EQ(a.mul_by_nonresidue(), a * w);
    // Line shape d0 + d1 v + d4 v w (flat slots 0, 1 and 4 over Fq2), taken from b.
    const Fq2 d0 = b.c0.c0, d1 = b.c0.c1, d4 = b.c1.c1;
    const Fq12 line(Fq6(d0, d1, Fq2::zero()), Fq6(Fq2::zero(), d4, Fq2::zero()));
    EXPECT_EQ(a.mul_by_014(d0, d1, d4), a * line);
    // Into the cyclotomic subgroup with noble's conjugate and inverse.
    const Fq12 x0 = parse<Fq12>(t.at("conjugate")) * parse<Fq12>(t.at("inv"));
    const Fq12 x = x0.frobenius(2) * x0;
    EXPECT_TRUE(x.frobenius(4) * x == x.frobenius(2)) << "x^(q^4 - q^2 + 1) == 1";
    EXPECT_EQ(x.cyclotomic_square(), x.square());
    const std::array<Fq12::Compressed, 1> c{Fq12::compressed_square(x.compress())};
    EXPECT_EQ(Fq12::decompress(c)[0], x.square());
  }
}
