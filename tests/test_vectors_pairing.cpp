// Known-answer tests of the optimal ate pairing against tests/vectors/pairing.json (values computed
// by @noble/curves; regenerate / re-check with tests/vectors/gen_vectors.mjs and check_live.mjs).
// Fq12 values are in the flat order of the generator (see fq12.json). The file is required: a
// missing or unreadable pairing.json is a test failure, not a skip. Every case the file holds is
// checked exactly; nothing here depends on the number or values of the cases, so the same tests run
// against freshly generated vectors (CUZK_VECTORS_DIR).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/pairing.hpp"
#include "ff/bls12_381.hpp"
#include "vectors.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::ff::Fq12;
using cuzk::ff::Fq6;
using cuzk::ff::Limbs;
using cuzk::test::json;

namespace {

const json& pairing_file() {
  static const json j = test::load_vectors("pairing.json");
  return j;
}

// ---------------------------------------------------------------- fixture values
using Flat = std::vector<std::string>;

Fq2 fq2(const json& j, size_t i = 0) {
  return Fq2(test::fe<Fq>(j.at(i)), test::fe<Fq>(j.at(i + 1)));
}

Fq12 fq12(const json& j) {
  if (!j.is_array() || j.size() != 12)
    throw std::invalid_argument("Fq12 fixture value is not 12 hex strings: " + j.dump());
  return Fq12(Fq6(fq2(j, 0), fq2(j, 2), fq2(j, 4)), Fq6(fq2(j, 6), fq2(j, 8), fq2(j, 10)));
}

Flat flat(const Fq12& a) {
  Flat out;
  for (const Fq6* s : {&a.c0, &a.c1})
    for (const Fq2* c : {&s->c0, &s->c1, &s->c2}) {
      out.push_back(c->c0.to_hex());
      out.push_back(c->c1.to_hex());
    }
  return out;
}

// Exact comparison with the fixture's hex strings.
void expect_fq12(const Fq12& got, const json& want, const std::string& what) {
  ASSERT_TRUE(want.is_array() && want.size() == 12) << what << ": malformed fixture " << want.dump();
  EXPECT_EQ(flat(got), want.get<Flat>()) << what;
}

G1Affine g1(const json& j) {
  const Fq x = test::fe<Fq>(j.at("x")), y = test::fe<Fq>(j.at("y"));
  if (j.at("infinity").get<bool>()) {
    if (!x.is_zero() || !y.is_zero()) throw std::invalid_argument("fixture infinity with non-zero coordinates");
    return G1Affine();
  }
  return G1Affine(x, y);
}
G2Affine g2(const json& j) {
  const Fq2 x = fq2(j.at("x")), y = fq2(j.at("y"));
  if (j.at("infinity").get<bool>()) {
    if (!x.is_zero() || !y.is_zero()) throw std::invalid_argument("fixture infinity with non-zero coordinates");
    return G2Affine();
  }
  return G2Affine(x, y);
}

// ---------------------------------------------------------------- (q^12 - 1)/r as limbs
// A minimal big unsigned integer (little-endian 64-bit words, no leading zero words).
using Big = std::vector<uint64_t>;
void trim(Big& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}
Big big_mul(const Big& a, const Big& b) {
  Big r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      const unsigned __int128 t = static_cast<unsigned __int128>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    r[i + b.size()] = static_cast<uint64_t>(carry);
  }
  trim(r);
  return r;
}
bool big_less(const Big& a, const Big& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}
void big_sub(Big& a, const Big& b) {  // a >= b
  uint64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const uint64_t bi = i < b.size() ? b[i] : 0;
    const unsigned __int128 t = static_cast<unsigned __int128>(a[i]) - bi - borrow;
    a[i] = static_cast<uint64_t>(t);
    borrow = static_cast<uint64_t>(t >> 64) & 1;
  }
  trim(a);
}
// Quotient and remainder by binary long division.
std::pair<Big, Big> big_divmod(const Big& a, const Big& b) {
  Big q(a.size(), 0), rem;
  const size_t bits = a.empty() ? 0 : 64 * a.size() - static_cast<size_t>(__builtin_clzll(a.back()));
  for (size_t i = bits; i-- > 0;) {
    uint64_t carry = (a[i / 64] >> (i % 64)) & 1;
    for (auto& w : rem) {
      const uint64_t top = w >> 63;
      w = (w << 1) | carry;
      carry = top;
    }
    if (carry) rem.push_back(carry);
    if (!big_less(rem, b)) {
      big_sub(rem, b);
      q[i / 64] |= uint64_t{1} << (i % 64);
    }
  }
  trim(q);
  return {q, rem};
}
template <size_t N>
Big big(const Limbs<N>& l) {
  Big a(l.begin(), l.end());
  trim(a);
  return a;
}

constexpr size_t kW = 72;  // 4608 bits: (q^12 - 1)/r has about 4314
// The plain final exponent (q^12 - 1)/r.
Limbs<kW> plain_final_exponent() {
  Big q12{1};
  for (int i = 0; i < 12; ++i) q12 = big_mul(q12, big(Fq::MOD));
  big_sub(q12, Big{1});
  const auto [e, rem] = big_divmod(q12, big(Fr::MOD));
  EXPECT_TRUE(rem.empty()) << "r does not divide q^12 - 1";
  EXPECT_LE(e.size(), kW);
  Limbs<kW> l{};
  for (size_t i = 0; i < e.size() && i < kW; ++i) l[i] = e[i];
  return l;
}

}  // namespace

TEST(PairingVectors, FileIsPresentAndHoldsCases) {
  const json& v = pairing_file();  // throws (a failure) when the file is missing or unparsable
  ASSERT_TRUE(v.contains("generator_pairing"));
  ASSERT_TRUE(v.at("cases").is_array());
  EXPECT_FALSE(v.at("cases").empty());
  ASSERT_TRUE(v.at("multi").is_array());
  EXPECT_FALSE(v.at("multi").empty());
}

TEST(PairingVectors, GeneratorPairing) {
  const json& v = pairing_file();
  const json& want = v.at("generator_pairing");
  expect_fq12(pairing(g1_generator(), g2_generator()), want, "e(G1, G2)");
  expect_fq12(final_exponentiation(miller_loop(g1_generator(), g2_generator())), want, "fe(ml(G1, G2))");
  expect_fq12(final_exponentiation(miller_loop(g1_generator(), G2Prepared(g2_generator()))), want,
              "fe(ml(G1, prepared G2))");
  const std::vector<std::pair<G1Affine, G2Affine>> one{{g1_generator(), g2_generator()}};
  expect_fq12(multi_pairing(one), want, "multi_pairing of one pair");
  // A generator of GT: not one, order r.
  const Fq12 e = fq12(want);
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::MOD).is_one());
}

// The plain reduced pairing f^((q^12 - 1)/r), whose cube is generator_pairing (noble's and our final
// exponentiation raise to 3 (q^12 - 1)/r).
TEST(PairingVectors, PlainExponent) {
  const json& v = pairing_file();
  if (!v.contains("generator_pairing_plain_exp")) GTEST_SKIP() << "pairing.json has no generator_pairing_plain_exp";
  const json& want = v.at("generator_pairing_plain_exp");
  const Fq12 plain = fq12(want);
  expect_fq12(miller_loop(g1_generator(), g2_generator()).pow(plain_final_exponent()), want,
              "ml(G1, G2)^((q^12 - 1)/r)");
  expect_fq12(plain * plain * plain, v.at("generator_pairing"), "plain^3");
  expect_fq12(plain.cyclotomic_square() * plain, v.at("generator_pairing"), "plain^2 (cyclotomic) * plain");
  EXPECT_TRUE(plain.pow(Fr::MOD).is_one());
}

TEST(PairingVectors, Pairings) {
  const json& v = pairing_file();
  const json& cases = v.at("cases");
  const Fq12 eg = fq12(v.at("generator_pairing"));
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(v, "pairing.json cases", i));
    const json& c = cases[i];
    const G1Affine p = g1(c.at("p"));
    const G2Affine q = g2(c.at("q"));
    ASSERT_TRUE(p.is_on_curve() && q.is_on_curve());
    EXPECT_TRUE(g1_in_subgroup(p) && g2_in_subgroup(q));
    const json& e = c.at("e");
    expect_fq12(pairing(p, q), e, "e(p, q)");
    expect_fq12(final_exponentiation(miller_loop(p, q)), e, "fe(ml(p, q))");
    expect_fq12(final_exponentiation(miller_loop(p, G2Prepared(q))), e, "fe(ml(p, prepared q))");
    const std::vector<std::pair<G1Affine, G2Affine>> single{{p, q}};
    expect_fq12(multi_pairing(single), e, "multi_pairing({(p, q)})");
    // With the identity added on either side (those pairs contribute 1).
    const std::vector<std::pair<G1Affine, G2Affine>> padded{{G1Affine(), q}, {p, q}, {p, G2Affine()}};
    expect_fq12(multi_pairing(padded), e, "multi_pairing with identity pairs");
    // The fixture's points are a*G1 and b*G2, and e = e(G1, G2)^(ab) (bilinearity).
    if (c.contains("a") && c.contains("b")) {
      const Fr a = test::fe<Fr>(c.at("a")), b = test::fe<Fr>(c.at("b"));
      EXPECT_EQ(G1(g1_generator()).mul(a).to_affine(), p) << "p == a*G1";
      EXPECT_EQ(G2(g2_generator()).mul(b).to_affine(), q) << "q == b*G2";
      expect_fq12(eg.pow((a * b).to_canonical()), e, "e(G1, G2)^(ab)");
    }
    // e(-p, q) = e(p, -q) = e(p, q)^-1 = conj(e(p, q)) (GT is in the cyclotomic subgroup).
    const Fq12 ei = fq12(e).conjugate();
    EXPECT_EQ(pairing(-p, q), ei);
    EXPECT_EQ(pairing(p, -q), ei);
  }
}

TEST(PairingVectors, MultiPairings) {
  const json& v = pairing_file();
  const json& multi = v.at("multi");
  for (size_t i = 0; i < multi.size(); ++i) {
    SCOPED_TRACE(test::describe(v, "pairing.json multi", i));
    const json& m = multi[i];
    const json& pairs = m.at("pairs");
    ASSERT_TRUE(pairs.is_array());
    std::vector<std::pair<G1Affine, G2Affine>> terms;
    std::vector<G2Prepared> preps;
    preps.reserve(pairs.size());
    Fq12 product = Fq12::one();
    for (size_t j = 0; j < pairs.size(); ++j) {
      const G1Affine p = g1(pairs[j].at("p"));
      const G2Affine q = g2(pairs[j].at("q"));
      ASSERT_TRUE(p.is_on_curve() && q.is_on_curve()) << "pair " << j;
      if (pairs[j].contains("a") && pairs[j].contains("b")) {
        EXPECT_EQ(G1(g1_generator()).mul(test::fe<Fr>(pairs[j].at("a"))).to_affine(), p) << "pair " << j;
        EXPECT_EQ(G2(g2_generator()).mul(test::fe<Fr>(pairs[j].at("b"))).to_affine(), q) << "pair " << j;
      }
      terms.emplace_back(p, q);
      preps.emplace_back(q);
      product *= pairing(p, q);
    }
    const json& want = m.at("result");
    expect_fq12(multi_pairing(terms), want, "multi_pairing");
    expect_fq12(final_exponentiation(multi_miller_loop(terms)), want, "fe(multi_miller_loop)");
    std::vector<std::pair<G1Affine, const G2Prepared*>> prepared;
    for (size_t j = 0; j < terms.size(); ++j) prepared.emplace_back(terms[j].first, &preps[j]);
    expect_fq12(multi_pairing(prepared), want, "multi_pairing (prepared)");
    expect_fq12(product, want, "product of single pairings");
    EXPECT_EQ(multi_pairing(terms).is_one(), fq12(want).is_one());
  }
}
