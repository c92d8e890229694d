// Known-answer tests of G1 and G2 (group law, scalar multiplication, zcash and snarkjs point
// encodings) against tests/vectors/g1.json, g2.json and snarkjs_points.json (values computed by
// @noble/curves; regenerate / re-check with tests/vectors/gen_vectors.mjs and check_live.mjs).
// Every case the files hold is checked; nothing here depends on the number or the values of the
// cases, so the same tests run against freshly generated vectors (CUZK_VECTORS_DIR).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "util/rng.hpp"
#include "vectors.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::test::json;

namespace {

using Bytes = std::vector<uint8_t>;

template <size_t N>
std::string hex(const std::array<uint8_t, N>& a) {
  return test::bytes_to_hex(a);
}

template <class C>
struct GroupTraits;

template <>
struct GroupTraits<G1Config> {
  static constexpr const char* file = "g1.json";
  static constexpr const char* snarkjs_key = "g1";
  static constexpr const char* snarkjs_infinity_key = "g1_infinity";
  static constexpr size_t compressed_len = G1_COMPRESSED;
  static Fq coord(const json& j) { return test::fe<Fq>(j); }
  static std::string coord_str(const Fq& a) { return json(a.to_hex()).dump(); }
  static const G1Affine& generator() { return g1_generator(); }
  static auto compress(const G1Affine& p) { return g1_to_compressed(p); }
  static auto uncompress(const G1Affine& p) { return g1_to_uncompressed(p); }
  static auto snarkjs(const G1Affine& p) { return g1_to_snarkjs(p); }
  static Result<G1Affine> from_compressed(std::span<const uint8_t> b, SubgroupCheck c) {
    return g1_from_compressed(b, c);
  }
  static Result<G1Affine> from_uncompressed(std::span<const uint8_t> b, SubgroupCheck c) {
    return g1_from_uncompressed(b, c);
  }
  static Result<G1Affine> from_snarkjs(std::span<const uint8_t> b, SubgroupCheck c) { return g1_from_snarkjs(b, c); }
  static bool in_subgroup(const G1Affine& p) { return g1_in_subgroup(p); }
  static bool in_subgroup_by_order(const G1Affine& p) { return g1_in_subgroup_by_order(p); }
};

template <>
struct GroupTraits<G2Config> {
  static constexpr const char* file = "g2.json";
  static constexpr const char* snarkjs_key = "g2";
  static constexpr const char* snarkjs_infinity_key = "g2_infinity";
  static constexpr size_t compressed_len = G2_COMPRESSED;
  static Fq2 coord(const json& j) { return test::fe2<Fq2>(j); }
  static std::string coord_str(const Fq2& a) { return json::array({a.c0.to_hex(), a.c1.to_hex()}).dump(); }
  static const G2Affine& generator() { return g2_generator(); }
  static auto compress(const G2Affine& p) { return g2_to_compressed(p); }
  static auto uncompress(const G2Affine& p) { return g2_to_uncompressed(p); }
  static auto snarkjs(const G2Affine& p) { return g2_to_snarkjs(p); }
  static Result<G2Affine> from_compressed(std::span<const uint8_t> b, SubgroupCheck c) {
    return g2_from_compressed(b, c);
  }
  static Result<G2Affine> from_uncompressed(std::span<const uint8_t> b, SubgroupCheck c) {
    return g2_from_uncompressed(b, c);
  }
  static Result<G2Affine> from_snarkjs(std::span<const uint8_t> b, SubgroupCheck c) { return g2_from_snarkjs(b, c); }
  static bool in_subgroup(const G2Affine& p) { return g2_in_subgroup(p); }
  static bool in_subgroup_by_order(const G2Affine& p) { return g2_in_subgroup_by_order(p); }
};

// {x, y, infinity} -> affine point; infinity must come with x = y = 0.
template <class C>
Affine<C> point(const json& j) {
  using T = GroupTraits<C>;
  const auto x = T::coord(j.at("x")), y = T::coord(j.at("y"));
  if (j.at("infinity").get<bool>()) {
    if (!x.is_zero() || !y.is_zero()) throw std::invalid_argument("fixture infinity with non-zero coordinates");
    return Affine<C>();
  }
  return Affine<C>(x, y);
}

// The affine point as the fixture writes it, for exact (string) comparison.
template <class C>
std::string show(const Affine<C>& p) {
  using T = GroupTraits<C>;
  using F = typename C::Base;
  const F x = p.infinity ? F::zero() : p.x, y = p.infinity ? F::zero() : p.y;
  return "{x: " + T::coord_str(x) + ", y: " + T::coord_str(y) + ", infinity: " + (p.infinity ? "true" : "false") + "}";
}
template <class C>
std::string show(const json& j) {
  return show<C>(point<C>(j));
}

// Exact check of a computed point against the fixture: the same canonical affine coordinates.
template <class C>
void expect_point(const Jacobian<C>& got, const json& want, const char* what) {
  EXPECT_TRUE(got.is_on_curve()) << what;
  EXPECT_EQ(show<C>(got.to_affine()), show<C>(want)) << what;
}

// The same point with a random non-trivial Z (X = x z^2, Y = y z^3), so that the Jacobian formulas
// are exercised with Z != 1 on both sides.
template <class C, class Rng>
Jacobian<C> randomize_z(const Affine<C>& p, Rng& rng) {
  using F = typename C::Base;
  if (p.infinity) return Jacobian<C>::identity();
  F z;
  do z = F::random(rng);
  while (z.is_zero());
  const F z2 = z.square();
  return Jacobian<C>(p.x * z2, p.y * z2 * z, z);
}

// Calls a decoder and turns an escaping exception into a test failure message (a decoder must
// report bad input through its Result, never by throwing or crashing).
template <class C>
std::optional<Result<Affine<C>>> decode_no_throw(
    const std::function<Result<Affine<C>>(std::span<const uint8_t>, SubgroupCheck)>& dec, std::span<const uint8_t> b,
    SubgroupCheck check) {
  try {
    return dec(b, check);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "decoder threw: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "decoder threw a non-std exception";
  }
  return std::nullopt;
}

// What the error message of our decoder must mention for each kind of bad encoding that
// gen_vectors.mjs produces (recognised by its "reason" text; first matching rule wins). An
// unrecognised reason is a test failure: a new kind of bad encoding needs its rule here.
struct BadRule {
  std::vector<const char*> reason_has;  // any of these substrings
  const char* message_has;              // required in our error message
};
const std::vector<BadRule>& bad_rules() {
  static const std::vector<BadRule> rules = {
      {{"subgroup", "has order"}, "subgroup"},
      {{"not canonical", ">= q"}, "canonical"},
      // Lengths that do not match the compression flag (the flag picks the decoder, as in noble).
      {{"bytes (", "bytes, infinity flag without the compression flag", "empty input", "1 byte", "given to"},
       "expected"},
      {{"sort flag"}, "sort flag"},
      {{"not on the curve", "not a square"}, "curve"},  // before "infinity": "... without the infinity flag ((0,0) ..."
      {{"infinity"}, "infinity"},
  };
  return rules;
}
const char* expected_message_for(const std::string& reason) {
  for (const BadRule& r : bad_rules())
    for (const char* s : r.reason_has)
      if (reason.find(s) != std::string::npos) return r.message_has;
  return nullptr;
}

}  // namespace

template <class C>
class GroupVectors : public ::testing::Test {
 protected:
  using T = GroupTraits<C>;
  using A = Affine<C>;
  using J = Jacobian<C>;
  static const json& file() {
    static const json j = test::load_vectors(T::file);
    return j;
  }
  static const json& snarkjs_file() {
    static const json j = test::load_vectors("snarkjs_points.json");
    return j;
  }
  // The zcash decoder that noble's fromBytes would use: chosen by the compression flag (an empty
  // input counts as uncompressed); the other decoder must reject the input as well.
  static Result<A> decode_like_noble(std::span<const uint8_t> b, SubgroupCheck check) {
    const bool compressed = !b.empty() && (b[0] & 0x80) != 0;
    return compressed ? T::from_compressed(b, check) : T::from_uncompressed(b, check);
  }
};
using VectorGroups = ::testing::Types<G1Config, G2Config>;
TYPED_TEST_SUITE(GroupVectors, VectorGroups);

TYPED_TEST(GroupVectors, FileDescribesThisGroupAndGenerator) {
  using C = TypeParam;
  const json& v = this->file();
  EXPECT_EQ(v.at("group").get<std::string>(), C::NAME);
  EXPECT_FALSE(v.at("points").empty());
  EXPECT_EQ(show<C>(GroupTraits<C>::generator()), show<C>(v.at("generator")));
  EXPECT_TRUE(GroupTraits<C>::generator().is_on_curve());
}

TYPED_TEST(GroupVectors, GeneratorMultiplesAndEncodings) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using J = Jacobian<C>;
  const json& pts = this->file().at("points");
  const J g(T::generator());
  for (size_t i = 0; i < pts.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), std::string(T::file) + " points", i));
    const json& t = pts[i];
    const Fr k = test::fe<Fr>(t.at("k"));
    const auto want = point<C>(t.at("point"));
    // k*G, by the Fr overload and by the raw-limb overload.
    expect_point<C>(g.mul(k), t.at("point"), "k*G");
    EXPECT_EQ(g.mul(k.to_canonical()), g.mul(k));
    EXPECT_TRUE(want.is_on_curve());
    EXPECT_TRUE(T::in_subgroup(want));
    // Our encodings are noble's bytes exactly.
    const std::string comp = t.at("compressed").get<std::string>(), unc = t.at("uncompressed").get<std::string>();
    EXPECT_EQ(hex(T::compress(want)), comp);
    EXPECT_EQ(hex(T::uncompress(want)), unc);
    EXPECT_EQ(hex(T::compress(g.mul(k).to_affine())), comp);
    // Decoding noble's bytes gives the point (with and without the subgroup check).
    const Bytes cb = test::hex_to_bytes(comp), ub = test::hex_to_bytes(unc);
    ASSERT_EQ(cb.size(), T::compressed_len);
    ASSERT_EQ(ub.size(), 2 * T::compressed_len);
    for (SubgroupCheck chk : {SubgroupCheck::Yes, SubgroupCheck::No}) {
      const auto dc = T::from_compressed(cb, chk);
      ASSERT_TRUE(dc.ok()) << dc.error();
      EXPECT_EQ(show<C>(*dc), show<C>(want));
      const auto du = T::from_uncompressed(ub, chk);
      ASSERT_TRUE(du.ok()) << du.error();
      EXPECT_EQ(show<C>(*du), show<C>(want));
    }
    // The other decoder rejects each (length / flag mismatch).
    EXPECT_FALSE(T::from_uncompressed(cb, SubgroupCheck::Yes).ok());
    EXPECT_FALSE(T::from_compressed(ub, SubgroupCheck::Yes).ok());
  }
}

TYPED_TEST(GroupVectors, Addition) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using J = Jacobian<C>;
  const json& cases = this->file().at("add");
  Xoshiro256 rng(0x5eed0001);
  std::vector<J> sums;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), std::string(T::file) + " add", i));
    const json& t = cases[i];
    const auto p = point<C>(t.at("p")), q = point<C>(t.at("q"));
    const json& sum = t.at("sum");
    const J jp(p), jq(q);
    expect_point<C>(jp + jq, sum, "p + q");
    expect_point<C>(jq + jp, sum, "q + p");
    expect_point<C>(jp.add_affine(q), sum, "p + q (mixed)");
    expect_point<C>(jq.add_affine(p), sum, "q + p (mixed)");
    const J rp = randomize_z(p, rng), rq = randomize_z(q, rng);
    expect_point<C>(rp + rq, sum, "p + q (Z != 1)");
    expect_point<C>(rq + rp, sum, "q + p (Z != 1)");
    expect_point<C>(rp.add_affine(q), sum, "p + q (mixed, Z != 1)");
    expect_point<C>(rp - (-rq), sum, "p - (-q)");
    J acc = rp;
    acc += q;
    expect_point<C>(acc, sum, "+= affine");
    acc = rp;
    acc += rq;
    expect_point<C>(acc, sum, "+= jacobian");
    EXPECT_EQ(rp + rq, J(point<C>(sum)));  // projective equality against the affine answer
    sums.push_back(rp + rq);
  }
  // Batch conversion to affine of all the (Z != 1) sums at once, identities included.
  std::vector<Affine<C>> out(sums.size());
  batch_to_affine<C>(sums, out);
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(show<C>(out[i]), show<C>(cases[i].at("sum"))) << "batch " << i;
}

TYPED_TEST(GroupVectors, Doubling) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using J = Jacobian<C>;
  const json& cases = this->file().at("double");
  Xoshiro256 rng(0x5eed0002);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), std::string(T::file) + " double", i));
    const json& t = cases[i];
    const auto p = point<C>(t.at("p"));
    const json& res = t.at("result");
    const J jp(p), rp = randomize_z(p, rng);
    expect_point<C>(jp.dbl(), res, "dbl");
    expect_point<C>(rp.dbl(), res, "dbl (Z != 1)");
    expect_point<C>(jp + jp, res, "p + p");
    expect_point<C>(rp + randomize_z(p, rng), res, "p + p (different Z)");
    expect_point<C>(rp.add_affine(p), res, "p + p (mixed)");
    expect_point<C>(rp.mul_u64(2), res, "2*p");
  }
}

TYPED_TEST(GroupVectors, ScalarMultiplication) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using J = Jacobian<C>;
  const json& cases = this->file().at("mul");
  Xoshiro256 rng(0x5eed0003);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(test::describe(this->file(), std::string(T::file) + " mul", i));
    const json& t = cases[i];
    const auto p = point<C>(t.at("p"));
    const Fr k = test::fe<Fr>(t.at("k"));
    const json& res = t.at("result");
    expect_point<C>(J(p).mul(k), res, "k*p");
    expect_point<C>(randomize_z(p, rng).mul(k), res, "k*p (Z != 1)");
    expect_point<C>(J(p).mul(k.to_canonical()), res, "k*p (limbs)");
    // The same scalar written with a wider integer (k + r): same point, since p has order r.
    ff::Limbs<5> wide{};
    const auto kc = k.to_canonical();
    for (size_t j = 0; j < 4; ++j) wide[j] = kc[j];
    ff::Limbs<5> r5{};
    for (size_t j = 0; j < 4; ++j) r5[j] = Fr::MOD[j];
    ff::add_limbs(wide, wide, r5);
    expect_point<C>(J(p).mul(wide), res, "(k + r)*p");
    // -(k*p) = (r - k)*p = k*(-p).
    expect_point<C>(-J(-p).mul(k), res, "-(k*(-p))");
    EXPECT_EQ(J(p).mul(-k), -J(point<C>(res)));
  }
}

TYPED_TEST(GroupVectors, Infinity) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using A = Affine<C>;
  const json& inf = this->file().at("infinity");
  const std::string comp = inf.at("compressed").get<std::string>(), unc = inf.at("uncompressed").get<std::string>();
  EXPECT_EQ(hex(T::compress(A())), comp);
  EXPECT_EQ(hex(T::uncompress(A())), unc);
  EXPECT_EQ(hex(T::compress(Jacobian<C>::identity().to_affine())), comp);
  for (SubgroupCheck chk : {SubgroupCheck::Yes, SubgroupCheck::No}) {
    const auto dc = T::from_compressed(test::hex_to_bytes(comp), chk);
    ASSERT_TRUE(dc.ok()) << dc.error();
    EXPECT_TRUE(dc->is_identity());
    const auto du = T::from_uncompressed(test::hex_to_bytes(unc), chk);
    ASSERT_TRUE(du.ok()) << du.error();
    EXPECT_TRUE(du->is_identity());
  }
  EXPECT_TRUE(T::in_subgroup(A()));
}

TYPED_TEST(GroupVectors, BadEncodingsAreRejected) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using A = Affine<C>;
  using Dec = std::function<Result<A>(std::span<const uint8_t>, SubgroupCheck)>;
  const json& cases = this->file().at("bad_encodings");
  EXPECT_FALSE(cases.empty());
  const Dec compressed = &T::from_compressed, uncompressed = &T::from_uncompressed;
  const Dec noble_like = &TestFixture::decode_like_noble;
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& t = cases[i];
    const std::string reason = t.at("reason").get<std::string>();
    const std::string noble_error = t.value("noble_error", "");
    SCOPED_TRACE(test::describe(this->file(), std::string(T::file) + " bad_encodings", i) + ": " + reason +
                 " [noble: " + noble_error + "]");
    const Bytes b = test::hex_to_bytes(t.at("bytes").get<std::string>());
    // Rejected by both zcash decoders.
    for (const Dec* dec : {&compressed, &uncompressed}) {
      const auto r = decode_no_throw<C>(*dec, b, SubgroupCheck::Yes);
      if (!r) continue;
      EXPECT_FALSE(r->ok()) << "accepted as " << show<C>(r->value()) << " by the "
                            << (dec == &compressed ? "compressed" : "uncompressed") << " decoder";
      if (!r->ok()) {
        EXPECT_FALSE(r->error().empty());
      }
    }
    // The decoder noble would use names the problem.
    const char* must_mention = expected_message_for(reason);
    if (must_mention == nullptr) {
      ADD_FAILURE() << "unknown kind of bad encoding (add a rule to bad_rules()): " << reason;
      continue;
    }
    const auto r = decode_no_throw<C>(noble_like, b, SubgroupCheck::Yes);
    if (!r) continue;
    ASSERT_FALSE(r->ok());
    EXPECT_NE(r->error().find(must_mention), std::string::npos)
        << "error \"" << r->error() << "\" does not mention \"" << must_mention << "\"";
    // Where noble reports a length ("expected N bytes"), we report the same one.
    if (const auto at = noble_error.find("expected "); at != std::string::npos) {
      const std::string want = noble_error.substr(at);  // "expected 96 bytes"
      EXPECT_NE(r->error().find(want), std::string::npos)
          << "error \"" << r->error() << "\" vs noble \"" << want << "\"";
    }
    // Without the subgroup check, only the subgroup cases decode, to a curve point outside G.
    const auto r2 = decode_no_throw<C>(noble_like, b, SubgroupCheck::No);
    if (!r2) continue;
    if (std::string(must_mention) == "subgroup") {
      ASSERT_TRUE(r2->ok()) << r2->error();
      const A p = r2->value();
      EXPECT_FALSE(p.is_identity());
      EXPECT_TRUE(p.is_on_curve());
      EXPECT_FALSE(T::in_subgroup(p));
      EXPECT_FALSE(T::in_subgroup_by_order(p));
      // Re-encoding the decoded point gives the input bytes back (flags included).
      if (b.size() == T::compressed_len)
        EXPECT_EQ(hex(T::compress(p)), test::bytes_to_hex(b));
      else
        EXPECT_EQ(hex(T::uncompress(p)), test::bytes_to_hex(b));
    } else {
      EXPECT_FALSE(r2->ok()) << "accepted without the subgroup check as " << show<C>(r2->value());
    }
  }
}

TYPED_TEST(GroupVectors, SnarkjsEncoding) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  using J = Jacobian<C>;
  const json& sj = this->snarkjs_file();
  const json& pts = sj.at(T::snarkjs_key);
  EXPECT_FALSE(pts.empty());
  const J g(T::generator());
  for (size_t i = 0; i < pts.size(); ++i) {
    SCOPED_TRACE(test::describe(sj, std::string("snarkjs_points.json ") + T::snarkjs_key, i));
    const json& t = pts[i];
    const auto want = point<C>(t.at("point"));
    expect_point<C>(g.mul(test::fe<Fr>(t.at("k"))), t.at("point"), "k*G");
    const std::string sbytes = t.at("snarkjs").get<std::string>();
    EXPECT_EQ(hex(T::snarkjs(want)), sbytes);
    EXPECT_EQ(hex(T::compress(want)), t.at("zcash_compressed").get<std::string>());
    const Bytes b = test::hex_to_bytes(sbytes);
    for (SubgroupCheck chk : {SubgroupCheck::Yes, SubgroupCheck::No}) {
      const auto d = T::from_snarkjs(b, chk);
      ASSERT_TRUE(d.ok()) << d.error();
      EXPECT_EQ(show<C>(*d), show<C>(want));
    }
    // Derived bad inputs: wrong length, a coordinate that is not reduced, a point off the curve.
    {
      const auto r = T::from_snarkjs(std::span<const uint8_t>(b.data(), b.size() - 1), SubgroupCheck::Yes);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.error().find("expected " + std::to_string(b.size()) + " bytes"), std::string::npos) << r.error();
    }
    {
      Bytes bad = b;  // x (first Fq limb-block) := q, little-endian
      for (size_t j = 0; j < 48; ++j) bad[j] = static_cast<uint8_t>(Fq::MOD[j / 8] >> (8 * (j % 8)));
      const auto r = T::from_snarkjs(bad, SubgroupCheck::No);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.error().find("modulus"), std::string::npos) << r.error();
    }
    {
      Bytes bad = b;
      bad[b.size() / 2] ^= 1;  // lowest byte of y's first Fq coordinate
      const auto r = T::from_snarkjs(bad, SubgroupCheck::No);
      ASSERT_FALSE(r.ok());
      EXPECT_TRUE(r.error().find("curve") != std::string::npos || r.error().find("modulus") != std::string::npos)
          << r.error();
    }
  }
  // Infinity: all zero bytes, both ways.
  const json& inf_j = sj.at(T::snarkjs_infinity_key);
  const std::string inf = inf_j.get<std::string>();
  EXPECT_EQ(hex(T::snarkjs(Affine<C>())), inf);
  const auto d = T::from_snarkjs(test::hex_to_bytes(inf), SubgroupCheck::Yes);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_TRUE(d->is_identity());
}

// The snarkjs and zcash fixtures describe the same generator multiples (same k) as g1/g2.json.
TYPED_TEST(GroupVectors, SnarkjsPointsMatchGroupFile) {
  using C = TypeParam;
  using T = GroupTraits<C>;
  const json& a = this->file().at("points");
  const json& b = this->snarkjs_file().at(T::snarkjs_key);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at("k"), b[i].at("k")) << i;
    EXPECT_EQ(a[i].at("compressed"), b[i].at("zcash_compressed")) << i;
  }
}
