#include "groth16/verifier.hpp"

#include <string>
#include <utility>

#include "ec/msm.hpp"

namespace cuzk::groth16 {

namespace {

using ec::G1;
using ec::G2Prepared;
using ff::Fq12;

// A proof point must be a finite point of the prime-order subgroup.
bool point_ok(const G1Affine& p) {
  return !p.is_identity() && p.is_on_curve() && ec::g1_in_subgroup(p);
}
bool point_ok(const G2Affine& p) {
  return !p.is_identity() && p.is_on_curve() && ec::g2_in_subgroup(p);
}
bool proof_ok(const Proof& p) {
  return point_ok(p.a) && point_ok(p.b) && point_ok(p.c);
}

// sum_i scalars[i] bases[i]; the plain double-and-add loop for a few points, Pippenger otherwise.
G1 lincomb(std::span<const G1Affine> bases, std::span<const Fr> scalars) {
  if (bases.size() <= 8) {
    G1 acc;
    for (size_t i = 0; i < bases.size(); ++i) acc += G1(bases[i]).mul(scalars[i]);
    return acc;
  }
  return ec::msm(bases, scalars);
}

// ic[0] + sum_i x_i ic[i + 1].
G1Affine public_input_point(const VerifyingKey& vk, std::span<const Fr> x) {
  G1 acc = lincomb(std::span<const G1Affine>(vk.ic).subspan(1), x);
  acc += vk.ic[0];
  return acc.to_affine();
}

Result<bool> check_input_count(const PreparedVerifyingKey& pvk, size_t got, const std::string& what) {
  if (pvk.vk.ic.empty()) return make_error("verifying key has no IC points (needs at least the one for ONE)");
  const size_t want = pvk.vk.ic.size() - 1;
  if (got != want)
    return make_error(what + "has " + std::to_string(got) + " public inputs, the verifying key expects " +
                      std::to_string(want));
  return true;
}

// x^e for x in the cyclotomic subgroup (GT), e a canonical scalar; left-to-right square and multiply.
Fq12 gt_pow(const Fq12& x, const Fr& e) {
  const auto bits = e.to_canonical();
  Fq12 acc = Fq12::one();
  bool started = false;
  for (size_t w = bits.size(); w-- > 0;) {
    for (int b = 63; b >= 0; --b) {
      if (started) acc = acc.cyclotomic_square();
      if ((bits[w] >> b) & 1) {
        acc = started ? acc * x : x;
        started = true;
      }
    }
  }
  return acc;
}

}  // namespace

PreparedVerifyingKey prepare(const VerifyingKey& vk) {
  PreparedVerifyingKey pvk;
  pvk.vk = vk;
  pvk.alpha_beta = ec::pairing(vk.alpha_g1, vk.beta_g2);
  pvk.neg_gamma_g2 = G2Prepared(-vk.gamma_g2);
  pvk.neg_delta_g2 = G2Prepared(-vk.delta_g2);
  return pvk;
}

Result<bool> verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs) {
  if (auto c = check_input_count(pvk, public_inputs.size(), "the proof "); !c) return c;
  if (!proof_ok(proof)) return false;
  const G1Affine vk_x = public_input_point(pvk.vk, public_inputs);
  const G2Prepared b(proof.b);
  const std::pair<G1Affine, const G2Prepared*> terms[] = {
      {proof.a, &b}, {vk_x, &pvk.neg_gamma_g2}, {proof.c, &pvk.neg_delta_g2}};
  return ec::final_exponentiation(ec::multi_miller_loop(terms)) == pvk.alpha_beta;
}

Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs, SystemRng& rng) {
  if (proofs.size() != inputs.size())
    return make_error("batch verification: " + std::to_string(proofs.size()) + " proofs but " +
                      std::to_string(inputs.size()) + " public input vectors");
  for (size_t j = 0; j < inputs.size(); ++j)
    if (auto c = check_input_count(pvk, inputs[j].size(), "proof " + std::to_string(j) + " "); !c) return c;
  if (proofs.empty()) return true;
  // One proof: the plain check is exact and cheaper (no r A, no e(alpha, beta)^r, no r C).
  if (proofs.size() == 1) return verify(pvk, proofs[0], inputs[0]);
  for (const Proof& p : proofs)
    if (!proof_ok(p)) return false;

  const size_t k = proofs.size();
  const size_t n = pvk.vk.ic.size();  // ONE included
  // Random nonzero 128-bit r_j.
  std::vector<Fr> r(k);
  for (auto& rj : r) {
    ff::Limbs<4> l{};
    while (l[0] == 0 && l[1] == 0) {
      l[0] = rng();
      l[1] = rng();
    }
    rj = Fr::from_canonical(l);
  }

  // IC scalars: s_0 = sum r_j, s_i = sum_j r_j x_{j,i}.
  std::vector<Fr> s(n, Fr::zero());
  for (size_t j = 0; j < k; ++j) {
    s[0] += r[j];
    for (size_t i = 1; i < n; ++i) s[i] += r[j] * inputs[j][i - 1];
  }
  const Fr r_sum = s[0];
  std::vector<G1Affine> c_points(k);
  for (size_t j = 0; j < k; ++j) c_points[j] = proofs[j].c;

  std::vector<G1> ra(k);
  for (size_t j = 0; j < k; ++j) {
    const auto rc = r[j].to_canonical();
    ra[j] = G1(proofs[j].a).mul(ff::Limbs<2>{rc[0], rc[1]});
  }
  std::vector<G1Affine> ra_affine(k);
  ec::batch_to_affine<ec::G1Config>(ra, ra_affine);

  std::vector<G2Prepared> b_prep;
  b_prep.reserve(k);
  for (const Proof& p : proofs) b_prep.emplace_back(p.b);

  std::vector<std::pair<G1Affine, const G2Prepared*>> terms;
  terms.reserve(k + 2);
  for (size_t j = 0; j < k; ++j) terms.emplace_back(ra_affine[j], &b_prep[j]);
  terms.emplace_back(lincomb(pvk.vk.ic, s).to_affine(), &pvk.neg_gamma_g2);
  terms.emplace_back(lincomb(c_points, r).to_affine(), &pvk.neg_delta_g2);

  return ec::final_exponentiation(ec::multi_miller_loop(terms)) == gt_pow(pvk.alpha_beta, r_sum);
}

Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs) {
  SystemRng rng;
  return verify_batch(pvk, proofs, inputs, rng);
}

VerifyingKey vk_from_zkey(const Zkey& zkey) {
  VerifyingKey vk;
  vk.alpha_g1 = zkey.alpha1;
  vk.beta_g1 = zkey.beta1;
  vk.beta_g2 = zkey.beta2;
  vk.gamma_g2 = zkey.gamma2;
  vk.delta_g1 = zkey.delta1;
  vk.delta_g2 = zkey.delta2;
  vk.ic = zkey.ic;
  return vk;
}

}  // namespace cuzk::groth16
