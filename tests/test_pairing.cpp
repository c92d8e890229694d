// The pairing tower (Fq6, Fq12) and the optimal ate pairing of BLS12-381: field axioms, Frobenius
// maps against plain exponentiation, cyclotomic squaring, final exponentiation against the plain
// exponent 3 (q^12 - 1)/r, bilinearity, identities, multi-pairings, prepared points, and the exact
// e(G1, G2) of @noble/curves 2.4.0 (below; the tests/vectors/pairing.json known answers are checked
// by test_vectors_pairing.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/pairing.hpp"
#include "ff/bls12_381.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::ff::Fq12;
using cuzk::ff::Fq6;
using cuzk::ff::Limbs;

namespace cuzk::ff {
// Readable failure messages: the 12 (or 6) canonical hex coordinates in the flat order.
template <class F6>
void PrintTo(const Fp12<F6>& x, std::ostream* os) {
  for (const auto* s : {&x.c0, &x.c1})
    for (const auto* c : {&s->c0, &s->c1, &s->c2}) *os << c->c0.to_hex() << ' ' << c->c1.to_hex() << ' ';
}
template <class F2>
void PrintTo(const Fp6<F2>& x, std::ostream* os) {
  for (const auto* c : {&x.c0, &x.c1, &x.c2}) *os << c->c0.to_hex() << ' ' << c->c1.to_hex() << ' ';
}
}  // namespace cuzk::ff

namespace {

// ---------------------------------------------------------------- a minimal big unsigned integer
// (little-endian 64-bit words, no leading zero words), enough to form exponents such as p^k and
// 3 (p^12 - 1)/r for the reference exponentiations.
using Big = std::vector<uint64_t>;

void trim(Big& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}
template <size_t N>
Big big(const Limbs<N>& l) {
  Big a(l.begin(), l.end());
  trim(a);
  return a;
}
Big big_mul(const Big& a, const Big& b) {
  Big r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) r[i + j] = ff::mac(r[i + j], a[i], b[j], carry);
    r[i + b.size()] = carry;
  }
  trim(r);
  return r;
}
Big big_mul_u64(const Big& a, uint64_t m) {
  return big_mul(a, Big{m});
}
Big big_sub_u64(Big a, uint64_t x) {  // a >= x
  for (size_t i = 0; x != 0; ++i) {
    uint64_t b = 0;
    a[i] = ff::subb(a[i], x, b);
    x = b;
  }
  trim(a);
  return a;
}
bool big_less(const Big& a, const Big& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}
void big_sub_in_place(Big& a, const Big& b) {  // a >= b
  uint64_t br = 0;
  for (size_t i = 0; i < a.size(); ++i) a[i] = ff::subb(a[i], i < b.size() ? b[i] : 0, br);
  trim(a);
}
size_t big_bits(const Big& a) {
  return a.empty() ? 0 : 64 * a.size() - static_cast<size_t>(__builtin_clzll(a.back()));
}
// Exact quotient a / b by binary long division (the tests only divide exact multiples).
Big big_div_exact(const Big& a, const Big& b) {
  Big q(a.size(), 0), rem;
  for (size_t i = big_bits(a); i-- > 0;) {
    // rem = 2 rem + bit i of a
    uint64_t carry = (a[i / 64] >> (i % 64)) & 1;
    for (auto& w : rem) {
      uint64_t top = w >> 63;
      w = (w << 1) | carry;
      carry = top;
    }
    if (carry) rem.push_back(carry);
    if (!big_less(rem, b)) {
      big_sub_in_place(rem, b);
      q[i / 64] |= uint64_t{1} << (i % 64);
    }
  }
  EXPECT_TRUE(rem.empty()) << "division is not exact";
  trim(q);
  return q;
}
Big big_pow(const Big& a, unsigned k) {
  Big r{1};
  for (unsigned i = 0; i < k; ++i) r = big_mul(r, a);
  return r;
}
constexpr size_t kW = 80;  // 5120 bits: room for every exponent below (3 (p^12 - 1)/r has ~4324)
Limbs<kW> limbs(const Big& a) {
  EXPECT_LE(a.size(), kW);
  Limbs<kW> l{};
  for (size_t i = 0; i < a.size() && i < kW; ++i) l[i] = a[i];
  return l;
}

const Big& P() {
  static const Big p = big(ff::Fq::MOD);
  return p;
}

// ---------------------------------------------------------------- helpers
Fq12 fq12_from_hex(const std::vector<std::string>& h) {
  EXPECT_EQ(h.size(), 12u);
  auto f = [&](size_t i) { return ff::Fq::from_hex(h.at(i)).value(); };
  auto f2 = [&](size_t i) { return ff::Fq2(f(i), f(i + 1)); };
  return Fq12(Fq6(f2(0), f2(2), f2(4)), Fq6(f2(6), f2(8), f2(10)));
}

// e(G1, G2) of @noble/curves 2.4.0 (bls12_381.pairing(G1.BASE, G2.BASE)), flat order
// c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
const Fq12& noble_e_g1_g2() {
  static const Fq12 e = fq12_from_hex({
      "0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
      "0x089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
      "0x1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
      "0x193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
      "0x01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
      "0x018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
      "0x19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
      "0x06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
      "0x11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
      "0x03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
      "0x04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
      "0x0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
  });
  return e;
}

// The easy part of the final exponentiation: a random element of the cyclotomic subgroup.
Fq12 easy_part(const Fq12& f) {
  Fq12 t = f.conjugate() * f.inverse();
  return t.frobenius(2) * t;
}

G1Affine g1_mul(const Fr& k) {
  return G1(g1_generator()).mul(k).to_affine();
}
G2Affine g2_mul(const Fr& k) {
  return G2(g2_generator()).mul(k).to_affine();
}

}  // namespace

// ---------------------------------------------------------------- Fq6
TEST(Fq6, FieldAxioms) {
  Xoshiro256 rng(101);
  const Fq6 v(ff::Fq2::zero(), ff::Fq2::one(), ff::Fq2::zero());
  for (int i = 0; i < 50; ++i) {
    Fq6 a = Fq6::random(rng), b = Fq6::random(rng), c = Fq6::random(rng);
    EXPECT_EQ((a + b) * c, a * c + b * c);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), Fq6::zero());
    EXPECT_EQ(a * Fq6::one(), a);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a * a.inverse(), Fq6::one());
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a * b.c1, a * Fq6(b.c1, ff::Fq2::zero(), ff::Fq2::zero()));
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * Fq6(b.c0, b.c1, ff::Fq2::zero()));
    EXPECT_EQ(a.mul_by_1(b.c1), a * Fq6(ff::Fq2::zero(), b.c1, ff::Fq2::zero()));
  }
  EXPECT_EQ(v * v * v, Fq6(ff::Fq2::one().mul_by_xi(), ff::Fq2::zero(), ff::Fq2::zero()));  // v^3 = xi
  EXPECT_TRUE(Fq6::zero().inverse().is_zero());
}

TEST(Fq6, FrobeniusIsPowerOfP) {
  Xoshiro256 rng(102);
  for (int i = 0; i < 2; ++i) {
    const Fq6 a = Fq6::random(rng);
    Fq6 x = a;
    for (unsigned k = 1; k <= 6; ++k) {
      x = x.pow(ff::Fq::MOD);  // a^(p^k)
      EXPECT_EQ(a.frobenius(k), x) << "k = " << k;
    }
    EXPECT_EQ(x, a);  // order 6
    EXPECT_EQ(a.frobenius(2).frobenius(3), a.frobenius(5));
  }
}

TEST(Fq6, FrobeniusCoefficientsAreXiPowers) {
  const ff::Fq2 xi = ff::Fq2::one().mul_by_xi();
  const auto& fc = Fq6::frobenius_coeffs();
  for (unsigned k = 0; k < 6; ++k) {
    const Big e = big_div_exact(big_sub_u64(big_pow(P(), k), 1), Big{3});  // (p^k - 1)/3
    EXPECT_EQ(fc.v[k], xi.pow(limbs(e))) << "k = " << k;
    EXPECT_EQ(fc.v2[k], xi.pow(limbs(big_mul_u64(e, 2)))) << "k = " << k;
  }
}

// ---------------------------------------------------------------- Fq12
TEST(Fq12, FieldAxioms) {
  Xoshiro256 rng(103);
  const Fq12 w(Fq6::zero(), Fq6::one());
  for (int i = 0; i < 30; ++i) {
    Fq12 a = Fq12::random(rng), b = Fq12::random(rng), c = Fq12::random(rng);
    EXPECT_EQ((a + b) * c, a * c + b * c);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), Fq12::zero());
    EXPECT_EQ(a * Fq12::one(), a);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a * a.inverse(), Fq12::one());
    EXPECT_EQ(a.mul_by_nonresidue(), a * w);
    EXPECT_EQ(a.conjugate(), a.frobenius(6));
    // Sparse product with a line-shaped element d0 + d1 v + d4 v w.
    const ff::Fq2 d0 = b.c0.c0, d1 = b.c0.c1, d4 = b.c1.c1;
    const Fq12 line(Fq6(d0, d1, ff::Fq2::zero()), Fq6(ff::Fq2::zero(), d4, ff::Fq2::zero()));
    EXPECT_EQ(a.mul_by_014(d0, d1, d4), a * line);
  }
  EXPECT_EQ(w * w, Fq12(Fq6(ff::Fq2::zero(), ff::Fq2::one(), ff::Fq2::zero()), Fq6::zero()));  // w^2 = v
  EXPECT_TRUE(Fq12::zero().inverse().is_zero());
}

TEST(Fq12, FrobeniusIsPowerOfP) {
  Xoshiro256 rng(104);
  const Fq12 a = Fq12::random(rng);
  Fq12 x = a;
  for (unsigned k = 1; k <= 12; ++k) {
    x = x.pow(ff::Fq::MOD);  // a^(p^k)
    EXPECT_EQ(a.frobenius(k), x) << "k = " << k;
  }
  EXPECT_EQ(x, a);  // order 12
  const Fq12 b = Fq12::random(rng);
  for (unsigned j = 0; j < 12; ++j) EXPECT_EQ(b.frobenius(j).frobenius(7), b.frobenius(j + 7));
  EXPECT_EQ((a * b).frobenius(5), a.frobenius(5) * b.frobenius(5));
}

TEST(Fq12, FrobeniusCoefficientsAreXiPowers) {
  const ff::Fq2 xi = ff::Fq2::one().mul_by_xi();
  const auto& fc = Fq12::frobenius_coeffs();
  for (unsigned k = 0; k < 12; ++k) {
    const Big e = big_div_exact(big_sub_u64(big_pow(P(), k), 1), Big{6});  // (p^k - 1)/6
    EXPECT_EQ(fc[k], xi.pow(limbs(e))) << "k = " << k;
  }
}

TEST(Fq12, CyclotomicSquaring) {
  Xoshiro256 rng(105);
  for (int i = 0; i < 10; ++i) {
    const Fq12 t = easy_part(Fq12::random(rng));
    EXPECT_EQ(t * t.conjugate(), Fq12::one());  // unitary: conj = inverse
    EXPECT_EQ(t.cyclotomic_square(), t.square());
    EXPECT_EQ(t.cyclotomic_square().cyclotomic_square(), t.pow(4));
  }
  // Karabina's compressed squaring agrees with Granger-Scott after decompression.
  std::array<Fq12::Compressed, 4> cs;
  std::array<Fq12, 4> want;
  for (size_t i = 0; i < cs.size(); ++i) {
    Fq12 t = easy_part(Fq12::random(rng));
    Fq12::Compressed c = t.compress();
    for (size_t k = 0; k <= 3 * i; ++k) {
      c = Fq12::compressed_square(c);
      t = t.cyclotomic_square();
    }
    cs[i] = c;
    want[i] = t;
  }
  EXPECT_EQ(Fq12::decompress(cs), want);
  const std::array<Fq12::Compressed, 2> ones = {Fq12::one().compress(),
                                                Fq12::compressed_square(Fq12::one().compress())};
  for (const Fq12& x : Fq12::decompress(ones)) EXPECT_EQ(x, Fq12::one());
  // Outside the subgroup the shortcut is (as expected) wrong: it relies on the subgroup's structure.
  Fq12 a = Fq12::random(rng);
  EXPECT_NE(a.cyclotomic_square(), a.square());
}

TEST(Fq12, CyclotomicExpByZ) {
  Xoshiro256 rng(106);
  const Fq12 t = easy_part(Fq12::random(rng));
  EXPECT_EQ(cyclotomic_exp_by_z(t), t.pow(BLS_X_ABS).inverse());  // z = -|z|
}

// ---------------------------------------------------------------- final exponentiation
TEST(Pairing, FinalExponentiationIsPlainPower) {
  // 3 (p^12 - 1)/r, the exponent of zkcrypto/bls12_381, blst and @noble/curves.
  const Big e = big_mul_u64(big_div_exact(big_sub_u64(big_pow(P(), 12), 1), big(Fr::MOD)), 3);
  Xoshiro256 rng(107);
  const Fq12 f = Fq12::random(rng);
  const Fq12 r = final_exponentiation(f);
  EXPECT_EQ(r, f.pow(limbs(e)));
  EXPECT_EQ(r.pow(Fr::MOD), Fq12::one());
  EXPECT_EQ(final_exponentiation(Fq12::one()), Fq12::one());
}

// ---------------------------------------------------------------- the pairing
TEST(Pairing, GeneratorsMatchNoble) {
  const Fq12 e = pairing(g1_generator(), g2_generator());
  EXPECT_EQ(e, noble_e_g1_g2());
  EXPECT_NE(e, Fq12::one());               // non-degenerate
  EXPECT_EQ(e.pow(Fr::MOD), Fq12::one());  // in GT
}

TEST(Pairing, Bilinearity) {
  Xoshiro256 rng(108);
  const Fq12 e = pairing(g1_generator(), g2_generator());
  for (int i = 0; i < 3; ++i) {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    const G1Affine pa = g1_mul(a);
    const G2Affine qb = g2_mul(b);
    const Fq12 eab = pairing(pa, qb);
    EXPECT_EQ(eab, e.pow((a * b).to_canonical()));
    EXPECT_EQ(eab, pairing(g1_mul(a * b), g2_generator()));
    EXPECT_EQ(eab, pairing(g1_generator(), g2_mul(a * b)));
    EXPECT_EQ(pairing(pa, g2_generator()) * pairing(g1_mul(b), g2_generator()), pairing(g1_mul(a + b), g2_generator()));
    // Negation on either side inverts (conjugates) the value.
    EXPECT_EQ(pairing(pa, -qb), eab.inverse());
    EXPECT_EQ(pairing(-pa, qb), eab.conjugate());
    EXPECT_EQ(pairing(pa, qb) * pairing(pa, -qb), Fq12::one());
  }
}

TEST(Pairing, NonDegenerateOnRandomPoints) {
  Xoshiro256 rng(109);
  for (int i = 0; i < 3; ++i) {
    const Fq12 e = pairing(g1_mul(Fr::random(rng)), g2_mul(Fr::random(rng)));
    EXPECT_NE(e, Fq12::one());
    EXPECT_EQ(e.pow(Fr::MOD), Fq12::one());
  }
}

TEST(Pairing, IdentityPairsToOne) {
  const G1Affine o1;
  const G2Affine o2;
  EXPECT_EQ(pairing(o1, g2_generator()), Fq12::one());
  EXPECT_EQ(pairing(g1_generator(), o2), Fq12::one());
  EXPECT_EQ(pairing(o1, o2), Fq12::one());
  EXPECT_EQ(miller_loop(o1, g2_generator()), Fq12::one());
  EXPECT_EQ(miller_loop(g1_generator(), G2Prepared()), Fq12::one());
  EXPECT_EQ(miller_loop(g1_generator(), G2Prepared(o2)), Fq12::one());
  EXPECT_TRUE(G2Prepared(o2).is_identity());
  EXPECT_EQ(multi_pairing(std::span<const std::pair<G1Affine, G2Affine>>()), Fq12::one());
  const std::pair<G1Affine, G2Affine> ids[] = {{o1, g2_generator()}, {g1_generator(), o2}};
  EXPECT_EQ(multi_pairing(ids), Fq12::one());
  // [r]P = O: e(P, Q)^r = 1 is also checked; here identity inputs must not disturb other pairs.
  const std::pair<G1Affine, G2Affine> mixed[] = {
      {o1, g2_generator()}, {g1_generator(), g2_generator()}, {g1_generator(), o2}};
  EXPECT_EQ(multi_pairing(mixed), noble_e_g1_g2());
}

TEST(Pairing, MultiPairingIsProduct) {
  Xoshiro256 rng(110);
  std::vector<std::pair<G1Affine, G2Affine>> terms;
  Fq12 product = Fq12::one();
  for (int i = 0; i < 4; ++i) {
    terms.emplace_back(g1_mul(Fr::random(rng)), g2_mul(Fr::random(rng)));
    product *= pairing(terms.back().first, terms.back().second);
  }
  EXPECT_EQ(multi_pairing(terms), product);
  // Miller loops multiply before the final exponentiation too.
  Fq12 ml = Fq12::one();
  for (const auto& [p, q] : terms) ml *= miller_loop(p, q);
  EXPECT_EQ(final_exponentiation(multi_miller_loop(terms)), final_exponentiation(ml));
  // A Groth16-style check: e(aP, bQ) e(-abP, Q) = 1.
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  const std::pair<G1Affine, G2Affine> check[] = {{g1_mul(a), g2_mul(b)}, {g1_mul(-(a * b)), g2_generator()}};
  EXPECT_EQ(multi_pairing(check), Fq12::one());
}

TEST(Pairing, PreparedMatchesUnprepared) {
  Xoshiro256 rng(111);
  std::vector<G1Affine> ps;
  std::vector<G2Affine> qs;
  std::vector<G2Prepared> preps;
  for (int i = 0; i < 3; ++i) {
    ps.push_back(g1_mul(Fr::random(rng)));
    qs.push_back(g2_mul(Fr::random(rng)));
    preps.emplace_back(qs.back());
  }
  EXPECT_EQ(preps[0].lines.size(), 68u);  // 63 doublings + 5 additions
  std::vector<std::pair<G1Affine, G2Affine>> plain;
  std::vector<std::pair<G1Affine, const G2Prepared*>> prepared;
  for (size_t i = 0; i < ps.size(); ++i) {
    EXPECT_EQ(miller_loop(ps[i], preps[i]), miller_loop(ps[i], qs[i]));
    plain.emplace_back(ps[i], qs[i]);
    prepared.emplace_back(ps[i], &preps[i]);
  }
  const G2Prepared none;
  prepared.emplace_back(ps[0], &none);
  prepared.emplace_back(G1Affine(), &preps[1]);
  prepared.emplace_back(ps[1], nullptr);
  EXPECT_EQ(multi_miller_loop(prepared), multi_miller_loop(plain));
  EXPECT_EQ(multi_pairing(prepared), multi_pairing(plain));
}
