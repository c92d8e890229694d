// Groth16 verification, bellperson proof bytes and snarkjs JSON files, against proofs made by
// snarkjs 0.7.6 (tests/groth16/snarkjs/regen.sh: X.proof.json / X.public.json for the checked-in
// tests/zkey/X.zkey and their witnesses) and snarkjs's verification_key.json (tests/zkey/regen.sh).
//
// SnarkjsJson.WriteForSnarkjs writes our JSON files into $CUZK_SNARKJS_WRITE_DIR (skipped when
// unset) for regen.sh to check with `snarkjs groth16 verify`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "ec/pairing.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/snarkjs_json.hpp"
#include "groth16/verifier.hpp"
#include "groth16/zkey.hpp"
#include "util/rng.hpp"

namespace cuzk::groth16 {
namespace {

using ec::Fq;
using ec::Fq2;
using ec::G1;
using ec::G2;

std::string snarkjs_dir() {
  return std::string(CUZK_VECTORS_DIR) + "/../groth16/snarkjs";
}
std::string zkey_dir() {
  return std::string(CUZK_VECTORS_DIR) + "/../zkey";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

struct Statement {
  Proof proof;
  std::vector<Fr> inputs;
};

Statement load_statement(const std::string& name) {
  auto p = load_snarkjs_proof(snarkjs_dir() + "/" + name + ".proof.json");
  auto x = load_snarkjs_public(snarkjs_dir() + "/" + name + ".public.json");
  return {p.value(), x.value()};
}

// Parsed once: the keys of both circuits, from verification_key.json and from the zkey.
struct Keys {
  VerifyingKey json_vk, zkey_vk;
  PreparedVerifyingKey json_pvk, zkey_pvk;
};

const Keys& keys(const std::string& circuit) {
  static std::map<std::string, Keys> cache;
  auto it = cache.find(circuit);
  if (it != cache.end()) return it->second;
  Keys k;
  k.json_vk = load_snarkjs_vk(zkey_dir() + "/" + circuit + ".verification_key.json").value();
  k.zkey_vk = vk_from_zkey(load_zkey(zkey_dir() + "/" + circuit + ".zkey").value());
  k.json_pvk = prepare(k.json_vk);
  k.zkey_pvk = prepare(k.zkey_vk);
  return cache.emplace(circuit, std::move(k)).first->second;
}

bool verifies(const PreparedVerifyingKey& pvk, const Statement& s) {
  return verify(pvk, s.proof, s.inputs).value();
}

// Another valid proof of the same statement: A' = A / t, B' = t B + t r delta, C' = C + r A
// (e(A', B') = e(A, B) e(r A, delta)).
Proof rerandomize(const Proof& p, const VerifyingKey& vk, Xoshiro256& rng) {
  const Fr t = Fr::random(rng), r = Fr::random(rng);
  Proof q;
  q.a = G1(p.a).mul(t.inverse()).to_affine();
  q.b = (G2(p.b).mul(t) + G2(vk.delta_g2).mul(t * r)).to_affine();
  q.c = (G1(p.c) + G1(p.a).mul(r)).to_affine();
  return q;
}

G2Affine g2_mul(uint64_t k) {
  return G2(ec::g2_generator()).mul_u64(k).to_affine();
}

// Points on the curves outside the prime-order subgroup (the cofactors are not 1).
G1Affine g1_off_subgroup() {
  for (uint64_t x = 1;; ++x) {
    const Fq fx = Fq::from_u64(x);
    auto y = (fx.square() * fx + Fq::from_u64(4)).sqrt();
    if (!y) continue;
    G1Affine p(fx, *y);
    if (!ec::g1_in_subgroup(p)) return p;
  }
}
G2Affine g2_off_subgroup() {
  for (uint64_t x = 1;; ++x) {
    const Fq2 fx(Fq::from_u64(x), Fq::one());
    auto y = (fx.square() * fx + ec::G2Config::b()).sqrt();
    if (!y) continue;
    G2Affine p(fx, *y);
    if (!ec::g2_in_subgroup(p)) return p;
  }
}

bool has(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

// ------------------------------------------------------------------------------------------------
// Verifier

TEST(Verifier, SnarkjsProofsVerify) {
  for (const char* name : {"mul3", "mix", "mix2"}) {
    const std::string circuit = std::string(name) == "mul3" ? "mul3" : "mix";
    const Statement s = load_statement(name);
    EXPECT_TRUE(verifies(keys(circuit).json_pvk, s)) << name << " with verification_key.json";
    EXPECT_TRUE(verifies(keys(circuit).zkey_pvk, s)) << name << " with vk_from_zkey";
  }
}

TEST(Verifier, JsonKeyEqualsZkeyKey) {
  for (const char* c : {"mul3", "mix"}) {
    const Keys& k = keys(c);
    EXPECT_TRUE(k.json_vk.alpha_g1 == k.zkey_vk.alpha_g1) << c;
    EXPECT_TRUE(k.json_vk.beta_g2 == k.zkey_vk.beta_g2) << c;
    EXPECT_TRUE(k.json_vk.gamma_g2 == k.zkey_vk.gamma_g2) << c;
    EXPECT_TRUE(k.json_vk.delta_g2 == k.zkey_vk.delta_g2) << c;
    EXPECT_EQ(k.json_vk.ic, k.zkey_vk.ic) << c;
    EXPECT_TRUE(k.zkey_vk.gamma_g2 == ec::g2_generator()) << c << ": snarkjs's gamma is 1";
    EXPECT_TRUE(k.json_vk.beta_g1.is_identity() && k.json_vk.delta_g1.is_identity());
    EXPECT_FALSE(k.zkey_vk.beta_g1.is_identity() || k.zkey_vk.delta_g1.is_identity());
  }
}

TEST(Verifier, TamperedProofsFail) {
  for (const char* c : {"mul3", "mix"}) {
    const Statement s = load_statement(c);
    const auto& pvk = keys(c).zkey_pvk;
    Statement t = s;
    t.proof.a = (G1(s.proof.a) + G1(ec::g1_generator())).to_affine();
    EXPECT_FALSE(verifies(pvk, t)) << c << ": A changed";
    t = s;
    t.proof.b = (G2(s.proof.b) + G2(ec::g2_generator())).to_affine();
    EXPECT_FALSE(verifies(pvk, t)) << c << ": B changed";
    t = s;
    t.proof.c = (G1(s.proof.c) + G1(ec::g1_generator())).to_affine();
    EXPECT_FALSE(verifies(pvk, t)) << c << ": C changed";
    t = s;
    std::swap(t.proof.a, t.proof.c);
    EXPECT_FALSE(verifies(pvk, t)) << c << ": A and C swapped";
    t = s;
    t.proof.a = -s.proof.a;
    EXPECT_FALSE(verifies(pvk, t)) << c << ": A negated";
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      t = s;
      t.inputs[i] += Fr::one();
      EXPECT_FALSE(verifies(pvk, t)) << c << ": public input " << i << " changed";
    }
  }
}

TEST(Verifier, PointsAtInfinityAndOffSubgroupFail) {
  const Statement s = load_statement("mix");
  const auto& pvk = keys("mix").zkey_pvk;
  Statement t = s;
  t.proof.a = G1Affine();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.b = G2Affine();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.c = G1Affine();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.a = g1_off_subgroup();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.b = g2_off_subgroup();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.c = g1_off_subgroup();
  EXPECT_FALSE(verifies(pvk, t));
  t = s;
  t.proof.a.y += Fq::one();  // off the curve
  EXPECT_FALSE(verifies(pvk, t));
  // The degenerate all-identity "proof" of a key whose equation would hold trivially.
  VerifyingKey vk = keys("mix").zkey_vk;
  std::vector<Fr> zero(vk.ic.size() - 1, Fr::zero());
  EXPECT_FALSE(verify(pvk, Proof{}, zero).value());
}

TEST(Verifier, OtherCircuitsKey) {
  const Statement mul3 = load_statement("mul3");  // 3 public signals
  const Statement mix = load_statement("mix");    // 2 public signals
  // Count mismatch: an error, not false.
  auto r = verify(keys("mix").zkey_pvk, mul3.proof, mul3.inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error(), "has 3 public inputs, the verifying key expects 2")) << r.error();
  r = verify(keys("mul3").zkey_pvk, mix.proof, mix.inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error(), "has 2 public inputs, the verifying key expects 3")) << r.error();
  // With the counts made to fit: false.
  std::vector<Fr> two(mul3.inputs.begin(), mul3.inputs.begin() + 2);
  EXPECT_FALSE(verify(keys("mix").zkey_pvk, mul3.proof, two).value());
  std::vector<Fr> three = mix.inputs;
  three.push_back(Fr::zero());
  EXPECT_FALSE(verify(keys("mul3").zkey_pvk, mix.proof, three).value());
  // A key without IC is an error.
  PreparedVerifyingKey empty = keys("mix").zkey_pvk;
  empty.vk.ic.clear();
  EXPECT_FALSE(verify(empty, mix.proof, {}).ok());
}

TEST(Verifier, RerandomizedProofsVerify) {
  Xoshiro256 rng(7);
  const Statement s = load_statement("mix");
  const Keys& k = keys("mix");
  for (int i = 0; i < 3; ++i) {
    Statement t{rerandomize(s.proof, k.zkey_vk, rng), s.inputs};
    EXPECT_FALSE(t.proof == s.proof);
    EXPECT_TRUE(verifies(k.json_pvk, t));
  }
}

TEST(Verifier, Batch) {
  Xoshiro256 rng(11);
  const Keys& k = keys("mix");
  const Statement s1 = load_statement("mix"), s2 = load_statement("mix2");
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> inputs;
  for (int i = 0; i < 3; ++i) {
    for (const Statement* s : {&s1, &s2}) {
      proofs.push_back(i == 0 ? s->proof : rerandomize(s->proof, k.zkey_vk, rng));
      inputs.push_back(s->inputs);
    }
  }
  SystemRng sys;
  EXPECT_TRUE(verify_batch(k.json_pvk, proofs, inputs, sys).value());
  EXPECT_TRUE(verify_batch(k.zkey_pvk, proofs, inputs).value());
  // One proof alone (checked without random weights), and the empty batch.
  EXPECT_TRUE(verify_batch(k.zkey_pvk, std::span(proofs).first(1), std::span(inputs).first(1)).value());
  {
    auto p = proofs;
    p[0].c = (G1(p[0].c) + G1(ec::g1_generator())).to_affine();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, std::span(p).first(1), std::span(inputs).first(1)).value());
    auto x = inputs;
    x[0][1] += Fr::one();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, std::span(proofs).first(1), std::span(x).first(1)).value());
    EXPECT_FALSE(verify_batch(k.zkey_pvk, std::span(proofs).first(1), std::span(x).first(0)).ok());
  }
  EXPECT_TRUE(verify_batch(k.zkey_pvk, std::span<const Proof>(), std::span<const std::vector<Fr>>()).value());

  // Any single bad element makes the batch fail.
  for (size_t j = 0; j < proofs.size(); ++j) {
    auto p = proofs;
    p[j].c = (G1(p[j].c) + G1(ec::g1_generator())).to_affine();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, inputs).value()) << "C of proof " << j;
    p = proofs;
    p[j].b = g2_mul(5);
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, inputs).value()) << "B of proof " << j;
    auto x = inputs;
    x[j][1] += Fr::one();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, proofs, x).value()) << "input of proof " << j;
  }
  // Proofs swapped between statements (each valid, paired with the other's inputs).
  {
    auto x = inputs;
    std::swap(x[0], x[1]);
    EXPECT_FALSE(verify_batch(k.zkey_pvk, proofs, x).value());
  }
  // Two bad proofs whose errors would cancel in an unweighted sum: C_0 + G and C_1 - G.
  {
    auto p = proofs;
    p[0].c = (G1(p[0].c) + G1(ec::g1_generator())).to_affine();
    p[1].c = (G1(p[1].c) - G1(ec::g1_generator())).to_affine();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, inputs).value());
  }
  // Invalid points.
  {
    auto p = proofs;
    p[2].a = G1Affine();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, inputs).value());
    p = proofs;
    p[3].b = g2_off_subgroup();
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, inputs).value());
  }
  // Shape errors.
  {
    auto x = inputs;
    x.pop_back();
    auto r = verify_batch(k.zkey_pvk, proofs, x);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "6 proofs but 5 public input vectors")) << r.error();
    x = inputs;
    x[4].push_back(Fr::one());
    r = verify_batch(k.zkey_pvk, proofs, x);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "proof 4 has 3 public inputs")) << r.error();
  }
  // A batch against the other circuit's key (inputs cut to fit) fails.
  {
    const Statement m = load_statement("mul3");
    std::vector<Proof> p = {proofs[0], m.proof};
    std::vector<std::vector<Fr>> x = {inputs[0], {m.inputs[0], m.inputs[1]}};
    EXPECT_FALSE(verify_batch(k.zkey_pvk, p, x).value());
  }
}

// ------------------------------------------------------------------------------------------------
// bellperson proof bytes

TEST(ProofCodec, RoundTrip) {
  std::vector<Proof> proofs;
  for (const char* name : {"mul3", "mix", "mix2"}) proofs.push_back(load_statement(name).proof);
  const auto bytes = encode_proofs(proofs);
  ASSERT_EQ(bytes.size(), 3 * PROOF_BYTES);
  auto back = decode_proofs(bytes);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, proofs);
  for (size_t i = 0; i < proofs.size(); ++i) {
    const auto one = encode_proof(proofs[i]);
    EXPECT_TRUE(std::equal(one.begin(), one.end(), bytes.begin() + i * PROOF_BYTES));
    auto p = decode_proof(one);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(*p, proofs[i]);
  }
  // Layout: A (48) || B (96) || C (48), zcash compressed.
  const auto a = ec::g1_to_compressed(proofs[0].a);
  const auto b = ec::g2_to_compressed(proofs[0].b);
  const auto c = ec::g1_to_compressed(proofs[0].c);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), bytes.begin()));
  EXPECT_TRUE(std::equal(b.begin(), b.end(), bytes.begin() + 48));
  EXPECT_TRUE(std::equal(c.begin(), c.end(), bytes.begin() + 144));
  // A decoded proof still verifies.
  EXPECT_TRUE(verify(keys("mix").zkey_pvk, (*back)[2], load_statement("mix2").inputs).value());
  EXPECT_TRUE(encode_proofs({}).empty());
}

TEST(ProofCodec, Rejects) {
  std::vector<Proof> proofs = {load_statement("mix").proof, load_statement("mix2").proof};
  const auto good = encode_proofs(proofs);
  auto expect_error = [](std::span<const uint8_t> b, std::vector<std::string> parts, const std::string& what) {
    auto r = decode_proofs(b);
    ASSERT_FALSE(r.ok()) << what;
    for (const auto& part : parts) EXPECT_TRUE(has(r.error(), part)) << what << ": " << r.error();
  };
  expect_error({}, {"no bytes"}, "empty");
  for (size_t len : {size_t{1}, size_t{191}, size_t{193}, size_t{383}}) {
    std::vector<uint8_t> b(good.begin(), good.begin() + std::min(len, good.size()));
    b.resize(len, 0);
    expect_error(b, {"length " + std::to_string(len), "not a multiple of 192"}, "length " + std::to_string(len));
  }
  EXPECT_FALSE(decode_proof(std::span(good).first(191)).ok());
  EXPECT_FALSE(decode_proof(good).ok());  // two proofs where one is expected

  // Point at infinity (canonical compressed infinity encoding) in each slot of proof 1.
  const size_t offs[3] = {0, 48, 144};
  const size_t lens[3] = {48, 96, 48};
  const char* names[3] = {"point A", "point B", "point C"};
  for (int k = 0; k < 3; ++k) {
    auto b = good;
    std::fill(b.begin() + 192 + offs[k], b.begin() + 192 + offs[k] + lens[k], 0);
    b[192 + offs[k]] = 0xc0;
    expect_error(b, {"proof 1 of 2", names[k], "infinity"}, std::string("infinity ") + names[k]);
  }
  // Flag bits: uncompressed flag (compression bit cleared), infinity with a sort bit.
  for (int k = 0; k < 3; ++k) {
    auto b = good;
    b[offs[k]] &= 0x7f;
    expect_error(b, {"proof 0 of 2", names[k]}, std::string("compression bit cleared in ") + names[k]);
    b = good;
    std::fill(b.begin() + offs[k], b.begin() + offs[k] + lens[k], 0);
    b[offs[k]] = 0xe0;
    expect_error(b, {"proof 0 of 2", names[k]}, std::string("infinity with sort flag in ") + names[k]);
  }
  // Not in the subgroup.
  {
    auto b = good;
    const auto a = ec::g1_to_compressed(g1_off_subgroup());
    std::copy(a.begin(), a.end(), b.begin() + 192);
    expect_error(b, {"proof 1 of 2", "point A", "subgroup"}, "A off the subgroup");
    b = good;
    const auto g2 = ec::g2_to_compressed(g2_off_subgroup());
    std::copy(g2.begin(), g2.end(), b.begin() + 48);
    expect_error(b, {"proof 0 of 2", "point B", "subgroup"}, "B off the subgroup");
    b = good;
    std::copy(a.begin(), a.end(), b.begin() + 144);
    expect_error(b, {"proof 0 of 2", "point C", "subgroup"}, "C off the subgroup");
  }
  // x not on the curve / not canonical.
  {
    auto b = good;
    b[47] ^= 1;  // some x has no y; try a few
    bool found = false;
    for (int t = 0; t < 16 && !found; ++t) {
      b[47] = static_cast<uint8_t>(good[47] ^ (t + 1));
      found = !decode_proofs(b).ok();
    }
    EXPECT_TRUE(found);
    b = good;
    std::fill(b.begin() + 1, b.begin() + 48, 0xff);
    b[0] = 0x9f;  // x >= q
    expect_error(b, {"proof 0 of 2", "point A"}, "x >= q");
  }
}

// ------------------------------------------------------------------------------------------------
// snarkjs JSON

TEST(SnarkjsJson, WritersReproduceSnarkjsFilesByteForByte) {
  for (const char* name : {"mul3", "mix", "mix2"}) {
    const std::string proof_text = read_text(snarkjs_dir() + "/" + name + ".proof.json");
    const std::string public_text = read_text(snarkjs_dir() + "/" + name + ".public.json");
    const Statement s = load_statement(name);
    EXPECT_EQ(write_snarkjs_proof(s.proof), proof_text) << name;
    EXPECT_EQ(write_snarkjs_public(s.inputs), public_text) << name;
    // Re-parse equal.
    EXPECT_EQ(parse_snarkjs_proof(write_snarkjs_proof(s.proof)).value(), s.proof);
    EXPECT_EQ(parse_snarkjs_public(write_snarkjs_public(s.inputs)).value(), s.inputs);
  }
  for (const char* c : {"mul3", "mix"}) {
    // vk_alphabeta_12 included: our e(alpha, beta) is snarkjs's (ffjavascript's) value.
    const std::string vk_text = read_text(zkey_dir() + "/" + c + ".verification_key.json");
    EXPECT_EQ(write_snarkjs_vk(keys(c).zkey_vk), vk_text) << c;
    EXPECT_EQ(write_snarkjs_vk(keys(c).json_vk), vk_text) << c;
    const VerifyingKey back = parse_snarkjs_vk(write_snarkjs_vk(keys(c).zkey_vk)).value();
    EXPECT_TRUE(back.alpha_g1 == keys(c).zkey_vk.alpha_g1 && back.beta_g2 == keys(c).zkey_vk.beta_g2 &&
                back.gamma_g2 == keys(c).zkey_vk.gamma_g2 && back.delta_g2 == keys(c).zkey_vk.delta_g2 &&
                back.ic == keys(c).zkey_vk.ic);
  }
  EXPECT_EQ(write_snarkjs_public({}), "[]");
  EXPECT_TRUE(parse_snarkjs_public("[]").value().empty());
}

TEST(SnarkjsJson, InfinityEncodings) {
  // The point at infinity as snarkjs writes it, accepted in IC only.
  VerifyingKey vk = keys("mul3").zkey_vk;
  vk.ic[2] = G1Affine();
  const std::string text = write_snarkjs_vk(vk);
  EXPECT_NE(text.find("[\n   \"0\",\n   \"1\",\n   \"0\"\n  ]"), std::string::npos);
  auto back = parse_snarkjs_vk(text);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(back->ic[2].is_identity());
  Proof p = load_statement("mul3").proof;
  p.b = G2Affine();
  auto r = parse_snarkjs_proof(write_snarkjs_proof(p));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error(), "pi_b: G2 point is the point at infinity")) << r.error();
}

// Replaces the first occurrence of `from` (must exist) in `text`.
std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  if (pos == std::string::npos) throw std::runtime_error("replace: '" + from + "' not found");
  return text.replace(pos, from.size(), to);
}

TEST(SnarkjsJson, MalformedProofs) {
  const std::string good = read_text(snarkjs_dir() + "/mul3.proof.json");
  const Statement s = load_statement("mul3");
  const std::string ax = s.proof.a.x.to_decimal(), ay = s.proof.a.y.to_decimal();
  const std::string bx0 = s.proof.b.x.c0.to_decimal(), bx1 = s.proof.b.x.c1.to_decimal();
  const std::string q =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559"
      "787";
  const std::string ay1 = (s.proof.a.y + Fq::one()).to_decimal();
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {"", "invalid JSON"},
      {good.substr(0, good.size() - 2), "invalid JSON"},
      {"[1, 2]", "expected a JSON object, got array"},
      {replace(good, "\"groth16\"", "\"plonk\""), "protocol: \"plonk\" is not supported (expected \"groth16\")"},
      {replace(good, "\"bls12381\"", "\"bn128\""), "curve: \"bn128\" is not supported (expected \"bls12381\""},
      {replace(good, "\"curve\": \"bls12381\"", "\"kurve\": \"bls12381\""), "missing member \"curve\""},
      {replace(good, "\"protocol\": \"groth16\"", "\"protocol\": 1"), "protocol: expected a string, got number"},
      {replace(good, "\"pi_a\"", "\"pi_x\""), "missing member \"pi_a\""},
      {replace(good, "\"" + ax + "\"", ax), "pi_a[0]: expected a decimal string, got number"},
      {replace(good, "\"" + ax + "\"", "\"0" + ax + "\""), "pi_a[0]: \"0" + ax + "\" is not canonical (leading zero)"},
      {replace(good, "\"" + ax + "\"", "\"-" + ax + "\""), "pi_a[0]: \"-" + ax + "\" is not a decimal number"},
      {replace(good, "\"" + ax + "\"", "\"0x12\""), "pi_a[0]: \"0x12\" is not a decimal number"},
      {replace(good, "\"" + ax + "\"", "\"\""), "pi_a[0]: empty decimal string"},
      {replace(good, "\"" + ax + "\"", "\"" + q + "\""), "pi_a[0]: Fq: value is not canonical (>= modulus)"},
      {replace(good, "\"" + ay + "\"", "\"" + ay1 + "\""), "pi_a: G1 point is not on the curve"},
      {replace(good, "\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\""), "pi_a[2]: z must be \"1\""},
      {replace(good, "\"" + ay + "\",\n  \"1\"", "\"" + ay + "\""), "pi_a: expected an array of 3 elements, got 2"},
      {replace(good, "\"" + ay + "\",\n  \"1\"", "\"" + ay + "\",\n  \"1\",\n  \"1\""),
       "pi_a: expected an array of 3 elements, got 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto r = parse_snarkjs_proof(cases[i].text, "p.json");
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_TRUE(has(r.error(), "p.json: ")) << r.error();
    EXPECT_TRUE(has(r.error(), cases[i].expect)) << "case " << i << ": " << r.error();
  }
  // A huge value is quoted by a short prefix and its length, never whole.
  for (const std::string& big : {std::string(50'000'000, '7') + "x", std::string(50'000'000, 'p')}) {
    const bool digits = big[0] == '7';
    auto r = parse_snarkjs_proof(replace(good, digits ? "\"" + ax + "\"" : "\"groth16\"", "\"" + big + "\""), "p.json");
    ASSERT_FALSE(r.ok());
    EXPECT_LT(r.error().size(), 400u) << r.error().substr(0, 400);
    EXPECT_TRUE(has(r.error(), "... (50000001 bytes)") || has(r.error(), "... (50000000 bytes)")) << r.error();
  }
  // G2 with x's c0 and c1 swapped (the zcash byte order): refused.
  {
    std::string t = replace(good, bx0, "SWAP");
    t = replace(t, bx1, bx0);
    t = replace(t, "SWAP", bx1);
    auto r = parse_snarkjs_proof(t);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "pi_b: G2 point is not on the curve")) << r.error();
  }
  // Off-subgroup points (on the curve).
  {
    Proof p = s.proof;
    p.a = g1_off_subgroup();
    auto r = parse_snarkjs_proof(write_snarkjs_proof(p));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "pi_a: G1 point is not in the prime-order subgroup")) << r.error();
    p = s.proof;
    p.b = g2_off_subgroup();
    r = parse_snarkjs_proof(write_snarkjs_proof(p));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "pi_b: G2 point is not in the prime-order subgroup")) << r.error();
    p = s.proof;
    p.c = G1Affine();
    r = parse_snarkjs_proof(write_snarkjs_proof(p));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "pi_c: G1 point is the point at infinity")) << r.error();
  }
  // G2 z must be ["1", "0"].
  {
    auto r = parse_snarkjs_proof(replace(good, "\"1\",\n   \"0\"", "\"1\",\n   \"1\""));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "pi_b[2]: z must be [\"1\", \"0\"]")) << r.error();
  }
  // Unknown members are ignored.
  EXPECT_TRUE(parse_snarkjs_proof(replace(good, "{", "{\"extra\": 5,")).ok());
}

TEST(SnarkjsJson, MalformedPublic) {
  const std::string r_str = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {"{}", "x.json: expected an array of decimal strings, got object"},
      {"[\"1\", 2]", "x.json: [1]: expected a decimal string, got number"},
      {"[\"" + r_str + "\"]", "x.json: [0]: Fr: value is not canonical (>= modulus)"},
      {"[\"01\"]", "x.json: [0]: \"01\" is not canonical (leading zero)"},
      {"[\"1e3\"]", "is not a decimal number"},
      {"[\" 1\"]", "is not a decimal number"},
      {"[\"1\",]", "x.json: invalid JSON"},
      // nlohmann reports a number beyond double as out_of_range, not parse_error (found by fuzz_proof)
      {"[1e99999]", "x.json: invalid JSON: [json.exception.out_of_range.406] number overflow"},
  };
  for (const auto& c : cases) {
    auto r = parse_snarkjs_public(c.text, "x.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_TRUE(has(r.error(), c.expect)) << c.text << ": " << r.error();
  }
  auto ok = parse_snarkjs_public("[\"0\", \"" + (Fr::zero() - Fr::one()).to_decimal() + "\"]");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(*ok, (std::vector<Fr>{Fr::zero(), Fr::zero() - Fr::one()}));
}

TEST(SnarkjsJson, MalformedVerifyingKeys) {
  const std::string good = read_text(zkey_dir() + "/mul3.verification_key.json");
  const VerifyingKey& vk = keys("mul3").zkey_vk;
  const std::string alpha_x = vk.alpha_g1.x.to_decimal();
  const std::string ic0_x = vk.ic[0].x.to_decimal();
  const std::string ab0 = ec::pairing(vk.alpha_g1, vk.beta_g2).c0.c0.c0.to_decimal();
  const std::string gamma_x0 = vk.gamma_g2.x.c0.to_decimal();
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {replace(good, "\"bls12381\"", "\"bn128\""), "curve: \"bn128\" is not supported"},
      {replace(good, "\"groth16\"", "\"fflonk\""), "protocol: \"fflonk\" is not supported"},
      {replace(good, "\"nPublic\": 3", "\"nPublic\": 2"), "IC: has 4 points, nPublic = 2 needs 3"},
      {replace(good, "\"nPublic\": 3", "\"nPublic\": -1"), "nPublic: expected a non-negative integer, got -1"},
      {replace(good, "\"nPublic\": 3", "\"nPublic\": \"3\""), "nPublic: expected a non-negative integer"},
      {replace(good, "\"nPublic\": 3", "\"nPublic\": 3.5"), "nPublic: expected a non-negative integer"},
      {replace(good, "\"nPublic\": 3", "\"nPublic\": 18446744073709551615"), "IC: has 4 points"},
      {replace(good, "\"nPublic\"", "\"npublic\""), "missing member \"nPublic\""},
      {replace(good, "\"IC\"", "\"ic\""), "missing member \"IC\""},
      {replace(good, "\"vk_delta_2\"", "\"vk_delta2\""), "missing member \"vk_delta_2\""},
      {replace(good, "\"" + ic0_x + "\"", "\"1\""), "IC[0]: G1 point is not on the curve"},
      {replace(good, "\"" + alpha_x + "\"", "\"0" + alpha_x + "\""), "vk_alpha_1[0]: \"0"},
      {replace(good, "\"" + ab0 + "\"", "\"1\""), "vk_alphabeta_12: does not equal e(vk_alpha_1, vk_beta_2)"},
      {replace(good, "\"" + ab0 + "\"", "\"x\""), "vk_alphabeta_12[0][0][0]: \"x\" is not a decimal number"},
      {replace(good, "\"" + gamma_x0 + "\"", "\"9" + gamma_x0 + "\""),
       "vk_gamma_2[0][0]: Fq: value is not canonical (>= modulus)"},
      {"null", "expected a JSON object, got null"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto r = parse_snarkjs_vk(cases[i].text, "vk.json");
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_TRUE(has(r.error(), "vk.json: ")) << r.error();
    EXPECT_TRUE(has(r.error(), cases[i].expect)) << "case " << i << ": " << r.error();
  }
  // vk_alphabeta_12 is optional (snarkjs's verifier never reads it).
  {
    std::string t = good;
    const auto b = t.find(" \"vk_alphabeta_12\"");
    const auto e = t.find(" \"IC\"");
    t.erase(b, e - b);
    auto r = parse_snarkjs_vk(t);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->ic, vk.ic);
  }
  // Off-subgroup and infinity points in the key.
  {
    VerifyingKey bad = vk;
    bad.delta_g2 = g2_off_subgroup();
    auto r = parse_snarkjs_vk(write_snarkjs_vk(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "vk_delta_2: G2 point is not in the prime-order subgroup")) << r.error();
    bad = vk;
    bad.ic[1] = g1_off_subgroup();
    r = parse_snarkjs_vk(write_snarkjs_vk(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "IC[1]: G1 point is not in the prime-order subgroup")) << r.error();
    bad = vk;
    bad.gamma_g2 = G2Affine();
    r = parse_snarkjs_vk(write_snarkjs_vk(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error(), "vk_gamma_2: G2 point is the point at infinity")) << r.error();
  }
  // Files.
  auto r = load_snarkjs_vk("/nonexistent/vk.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error(), "/nonexistent/vk.json: cannot open file")) << r.error();
}

// Writes our files for regen.sh's `snarkjs groth16 verify` cross-check.
TEST(SnarkjsJson, WriteForSnarkjs) {
  const char* dir = std::getenv("CUZK_SNARKJS_WRITE_DIR");
  if (dir == nullptr || *dir == '\0') GTEST_SKIP() << "CUZK_SNARKJS_WRITE_DIR not set";
  Xoshiro256 rng(3);
  for (const char* c : {"mul3", "mix"}) {
    const std::string base = std::string(dir) + "/" + c;
    const Statement s = load_statement(c);
    const VerifyingKey& vk = keys(c).zkey_vk;
    write_text(base + ".vk.json", write_snarkjs_vk(vk));
    write_text(base + ".proof.json", write_snarkjs_proof(s.proof));
    write_text(base + ".public.json", write_snarkjs_public(s.inputs));
    const Proof rr = rerandomize(s.proof, vk, rng);
    ASSERT_TRUE(verify(keys(c).zkey_pvk, rr, s.inputs).value());
    write_text(base + ".rerand.proof.json", write_snarkjs_proof(rr));
  }
}

}  // namespace
}  // namespace cuzk::groth16
