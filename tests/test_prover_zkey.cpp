// The snarkjs-path Groth16 prover (groth16/prover_zkey.hpp):
//   - for fixed r, s it reproduces snarkjs 0.7.6's proof exactly (tests/groth16/det/X.det.json,
//     made by tests/groth16/det/regen.sh with snarkjs's own groth16.prove), H scalars included;
//   - its proofs satisfy e(A, B) = e(alpha, beta) e(sum x_i IC_i, gamma) e(C, delta) (checked with
//     ec/pairing.hpp directly), for fixed and random r, s; a wrong witness breaks the equation;
//   - bad witnesses and inconsistent keys are rejected with clear messages;
//   - the coefficient accumulation gives the same rows in parallel, serially (unordered list) and
//     naively.
// The last test prints (does not assert) per-stage timings for mix.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ec/pairing.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/zkey.hpp"
#include "r1cs/circom_wtns.hpp"
#include "test_helpers.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {
namespace {

using json = nlohmann::json;
using ec::Fq;
using ec::Fq2;
using ec::G1;
using ec::G2;
using ff::Fq12;

std::string root_dir() {
  return std::string(CUZK_VECTORS_DIR) + "/..";
}

using test::fq;
using test::fr;
using test::read_json;

// snarkjs objects: G1 [x, y, "1"], G2 [[x0, x1], [y0, y1], ["1", "0"]] (affine; infinity has z = 0).
G1Affine g1_from_json(const json& j) {
  if (j[2] == "0") return G1Affine();
  EXPECT_EQ(j[2], "1");
  return G1Affine(fq(j[0]), fq(j[1]));
}
G2Affine g2_from_json(const json& j) {
  if (j[2][0] == "0" && j[2][1] == "0") return G2Affine();
  EXPECT_EQ(j[2][0], "1");
  EXPECT_EQ(j[2][1], "0");
  return G2Affine(Fq2(fq(j[0][0]), fq(j[0][1])), Fq2(fq(j[1][0]), fq(j[1][1])));
}

struct Fixture {
  Zkey zkey;
  std::vector<Fr> witness;
  json det;
};

const Fixture& fixture(const std::string& c) {
  static std::vector<std::pair<std::string, Fixture>> cache;
  for (const auto& [name, f] : cache)
    if (name == c) return f;
  Fixture f;
  f.zkey = load_zkey(root_dir() + "/zkey/" + c + ".zkey").value();
  f.witness = circom::load_wtns(root_dir() + "/circom/" + c + ".wtns").value();
  f.det = read_json(root_dir() + "/groth16/det/" + c + ".det.json");
  cache.emplace_back(c, std::move(f));
  return cache.back().second;
}

// e(A, B) == e(alpha1, beta2) e(IC_0 + sum_i x_i IC_i, gamma2) e(C, delta2), as one product
// e(-A, B) e(alpha1, beta2) e(vk_x, gamma2) e(C, delta2) == 1.
bool pairing_equation_holds(const Zkey& z, const Proof& p, std::span<const Fr> pub) {
  if (pub.size() + 1 != z.ic.size()) throw std::invalid_argument("public input count");
  G1 vk_x(z.ic[0]);
  for (size_t i = 0; i < pub.size(); ++i) vk_x += G1(z.ic[i + 1]).mul(pub[i]);
  const std::vector<std::pair<G1Affine, G2Affine>> terms = {
      {-p.a, p.b}, {z.alpha1, z.beta2}, {vk_x.to_affine(), z.gamma2}, {p.c, z.delta2}};
  return ec::multi_pairing(terms) == Fq12::one();
}

std::vector<Fr> public_inputs(const Zkey& z, std::span<const Fr> w) {
  return {w.begin() + 1, w.begin() + 1 + z.n_public};
}

class ProverZkey : public ::testing::TestWithParam<const char*> {};

TEST_P(ProverZkey, MatchesSnarkjsForFixedRandomness) {
  const Fixture& f = fixture(GetParam());
  const json& d = f.det;
  ASSERT_EQ(d["zkey"], std::string(GetParam()) + ".zkey");
  const Fr r = fr(d["r"]), s = fr(d["s"]);

  // H scalars first (the most likely place for a convention mismatch).
  const std::vector<Fr> h = zkey_h_scalars(f.zkey, f.witness);
  ASSERT_EQ(h.size(), d["h_scalars"].size());
  for (size_t i = 0; i < h.size(); ++i) ASSERT_EQ(h[i].to_decimal(), d["h_scalars"][i]) << "H scalar " << i;

  ProveTimings t;
  const Proof proof = prove_zkey(f.zkey, f.witness, r, s, &t);
  const Proof expect{g1_from_json(d["proof"]["pi_a"]), g2_from_json(d["proof"]["pi_b"]),
                     g1_from_json(d["proof"]["pi_c"])};
  EXPECT_EQ(proof.a, expect.a) << "pi_a";
  EXPECT_EQ(proof.b, expect.b) << "pi_b";
  EXPECT_EQ(proof.c, expect.c) << "pi_c";
  // Coordinates as decimal strings, exactly as snarkjs prints them.
  EXPECT_EQ(proof.a.x.to_decimal(), d["proof"]["pi_a"][0]);
  EXPECT_EQ(proof.a.y.to_decimal(), d["proof"]["pi_a"][1]);
  EXPECT_EQ(proof.b.x.c0.to_decimal(), d["proof"]["pi_b"][0][0]);
  EXPECT_EQ(proof.b.x.c1.to_decimal(), d["proof"]["pi_b"][0][1]);
  EXPECT_EQ(proof.b.y.c0.to_decimal(), d["proof"]["pi_b"][1][0]);
  EXPECT_EQ(proof.b.y.c1.to_decimal(), d["proof"]["pi_b"][1][1]);
  EXPECT_EQ(proof.c.x.to_decimal(), d["proof"]["pi_c"][0]);
  EXPECT_EQ(proof.c.y.to_decimal(), d["proof"]["pi_c"][1]);

  // Public signals are w_1..w_nPublic.
  ASSERT_EQ(d["publicSignals"].size(), f.zkey.n_public);
  for (uint32_t i = 0; i < f.zkey.n_public; ++i) EXPECT_EQ(f.witness[i + 1].to_decimal(), d["publicSignals"][i]);

  EXPECT_TRUE(pairing_equation_holds(f.zkey, proof, public_inputs(f.zkey, f.witness)));
  EXPECT_GE(t.total_s(), t.msm_h_s);
}

TEST_P(ProverZkey, RandomizedProofsVerify) {
  const Fixture& f = fixture(GetParam());
  const std::vector<Fr> pub = public_inputs(f.zkey, f.witness);
  const Proof p1 = prove_zkey(f.zkey, f.witness);
  const Proof p2 = prove_zkey(f.zkey, f.witness);
  EXPECT_NE(p1, p2);  // fresh r, s each time
  EXPECT_TRUE(pairing_equation_holds(f.zkey, p1, pub));
  EXPECT_TRUE(pairing_equation_holds(f.zkey, p2, pub));
  // Degenerate but legal blinding r = s = 0.
  EXPECT_TRUE(pairing_equation_holds(f.zkey, prove_zkey(f.zkey, f.witness, Fr::zero(), Fr::zero()), pub));
  // A wrong public input list does not verify.
  std::vector<Fr> bad_pub = pub;
  bad_pub.back() += Fr::one();
  EXPECT_FALSE(pairing_equation_holds(f.zkey, p1, bad_pub));
}

TEST_P(ProverZkey, WrongWitnessFailsTheEquation) {
  const Fixture& f = fixture(GetParam());
  const Fr r = fr(f.det["r"]), s = fr(f.det["s"]);
  const std::vector<Fr> pub = public_inputs(f.zkey, f.witness);
  // A private value (the last signal) changed by one.
  std::vector<Fr> w = f.witness;
  w.back() += Fr::one();
  EXPECT_FALSE(pairing_equation_holds(f.zkey, prove_zkey(f.zkey, w, r, s), pub));
  // A private value in the middle.
  w = f.witness;
  w[f.zkey.n_public + 1 + (f.zkey.n_vars - f.zkey.n_public - 1) / 2] += Fr::from_u64(7);
  EXPECT_FALSE(pairing_equation_holds(f.zkey, prove_zkey(f.zkey, w, r, s), pub));
  // A public value changed, verified against the changed public inputs.
  w = f.witness;
  w[1] += Fr::one();
  EXPECT_FALSE(pairing_equation_holds(f.zkey, prove_zkey(f.zkey, w, r, s), public_inputs(f.zkey, w)));
}

// Naive a = A w, b = B w and the parallel / serial (unordered) accumulation agree.
TEST_P(ProverZkey, AbcAccumulationOrders) {
  const Fixture& f = fixture(GetParam());
  const Zkey& z = f.zkey;
  std::vector<Fr> a(z.domain_size), b(z.domain_size);
  for (const ZkeyCoef& e : z.coefs) (e.matrix == 0 ? a : b)[e.constraint] += e.value * f.witness[e.signal];
  const ZkeyAbc abc = zkey_abc(z, f.witness);
  ASSERT_EQ(abc.a, a);
  ASSERT_EQ(abc.b, b);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(abc.c[i], a[i] * b[i]);

  Zkey shuffled = z;
  std::mt19937_64 gen(42);
  std::shuffle(shuffled.coefs.begin(), shuffled.coefs.end(), gen);
  const ZkeyAbc abc2 = zkey_abc(shuffled, f.witness);
  EXPECT_EQ(abc2.a, a);
  EXPECT_EQ(abc2.b, b);
  EXPECT_EQ(zkey_h_scalars(shuffled, f.witness), zkey_h_scalars(z, f.witness));

  // Reversed: unordered as a whole (serial path), entries of a constraint in reverse order.
  Zkey reversed = z;
  std::reverse(reversed.coefs.begin(), reversed.coefs.end());
  EXPECT_EQ(zkey_abc(reversed, f.witness).a, a);
}

INSTANTIATE_TEST_SUITE_P(Circuits, ProverZkey, ::testing::Values("mul3", "mix"));

std::string error_of(const Zkey& z, std::span<const Fr> w) {
  try {
    (void)prove_zkey(z, w, Fr::one(), Fr::one());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ProverZkeyErrors, BadWitness) {
  const Fixture& f = fixture("mul3");
  std::vector<Fr> w = f.witness;
  w.pop_back();
  EXPECT_EQ(error_of(f.zkey, w), "prove_zkey: the witness has 7 values, the zkey expects nVars = 8");
  w = f.witness;
  w.push_back(Fr::one());
  EXPECT_EQ(error_of(f.zkey, w), "prove_zkey: the witness has 9 values, the zkey expects nVars = 8");
  EXPECT_EQ(error_of(f.zkey, {}), "prove_zkey: the witness has 0 values, the zkey expects nVars = 8");
  w = f.witness;
  w[0] = Fr::from_u64(2);
  EXPECT_EQ(error_of(f.zkey, w), "prove_zkey: witness[0] must be 1 (the constant signal), got " + w[0].to_hex());
  w[0] = Fr::zero();
  EXPECT_EQ(error_of(f.zkey, w),
            "prove_zkey: witness[0] must be 1 (the constant signal), got 0x" + std::string(64, '0'));
  EXPECT_THROW((void)zkey_h_scalars(f.zkey, w), std::invalid_argument);
  EXPECT_THROW((void)zkey_abc(f.zkey, w), std::invalid_argument);
  EXPECT_THROW((void)prove_zkey(f.zkey, w), std::invalid_argument);
}

TEST(ProverZkeyErrors, InconsistentKey) {
  const Fixture& f = fixture("mul3");
  {
    Zkey z = f.zkey;
    z.h.pop_back();
    EXPECT_EQ(error_of(z, f.witness), "prove_zkey: zkey H section has 7 points, expected 8");
  }
  {
    Zkey z = f.zkey;
    z.b2.pop_back();
    EXPECT_EQ(error_of(z, f.witness), "prove_zkey: zkey B2 section has 7 points, expected 8");
  }
  {
    Zkey z = f.zkey;
    z.c.push_back(G1Affine());
    EXPECT_EQ(error_of(z, f.witness), "prove_zkey: zkey C section has 5 points, expected 4");
  }
  {
    Zkey z = f.zkey;
    z.domain_size = 6;
    EXPECT_NE(error_of(z, f.witness).find("is not a power of two"), std::string::npos);
  }
  {
    Zkey z = f.zkey;
    z.coefs[3].constraint = z.domain_size;
    EXPECT_EQ(error_of(z, f.witness).rfind("prove_zkey: coefficient entry 3 (matrix", 0), 0u);
  }
  {
    Zkey z = f.zkey;
    z.coefs.back().signal = z.n_vars;
    EXPECT_NE(error_of(z, f.witness).find("is out of range"), std::string::npos);
  }
  {
    Zkey z = f.zkey;
    z.coefs[0].matrix = 2;
    EXPECT_NE(error_of(z, f.witness).find("is out of range"), std::string::npos);
  }
}

// The stage timings account for the proof: every stage of the mix circuit (all five MSMs, H,
// MatVec, the assembly) is timed, and the stages add up to no more than the call's wall time.
TEST(ProverZkeyTimings, EveryStageTimedWithinTheWallTime) {
  const Fixture& f = fixture("mix");
  ProveTimings t;
  const auto start = std::chrono::steady_clock::now();
  const Proof p = prove_zkey(f.zkey, f.witness, &t);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(pairing_equation_holds(f.zkey, p, public_inputs(f.zkey, f.witness)));
  for (const auto& [name, s] :
       {std::pair{"matvec", t.matvec_s}, std::pair{"h_poly", t.h_poly_s}, std::pair{"msm_h (C and H)", t.msm_h_s},
        std::pair{"msm_a", t.msm_a_s}, std::pair{"msm_b_g1", t.msm_b_g1_s}, std::pair{"msm_b_g2", t.msm_b_g2_s},
        std::pair{"finalize", t.finalize_s}})
    EXPECT_GT(s, 0.0) << name;
  EXPECT_EQ(t.upload_s, 0.0);  // the CPU prover uploads nothing
  EXPECT_LE(t.total_s(), wall);
}

}  // namespace
}  // namespace cuzk::groth16
