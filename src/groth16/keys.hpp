#pragma once
// Groth16 keys in bellperson's form (what Filecoin's .params files hold).
//
// For a circuit with inputs 0..I-1 (ONE = 0) and aux 0..M-1, QAP polynomials u_i (A), v_i (B),
// w_i (C) over the domain of size m (the smallest power of two >= constraints, input constraints
// included; zcash roots, generator 7), and toxic waste tau, alpha, beta, gamma, delta:
//   ic[i]   = (beta u_i + alpha v_i + w_i)(tau) / gamma      for inputs i (I points)
//   l[j]    = (beta u_j + alpha v_j + w_j)(tau) / delta      for aux j (M points)
//   h[i]    = tau^i (tau^m - 1) / delta                      for i = 0..m-2 (m - 1 points)
//   a       = u_i(tau) G1 for inputs then aux, points at infinity removed (so indexed through the
//             A density: every input, aux j only when the A aux density has bit j)
//   b_g1    = v_i(tau) G1, b_g2 = v_i(tau) G2, inputs then aux, infinity removed (B densities)
// shared/reference/gpu-prover.md section 2.1 (bellperson src/groth16/params.rs, generator.rs).
#include <vector>

#include "ec/bls12_381.hpp"

namespace cuzk::groth16 {

using ec::Fr;
using ec::G1Affine;
using ec::G2Affine;

struct VerifyingKey {
  G1Affine alpha_g1;
  G1Affine beta_g1;
  G2Affine beta_g2;
  G2Affine gamma_g2;
  G1Affine delta_g1;
  G2Affine delta_g2;
  std::vector<G1Affine> ic;  // one per public input, ONE included

  size_t num_inputs() const { return ic.size(); }  // including ONE
};

struct ProvingKey {
  VerifyingKey vk;
  std::vector<G1Affine> h;     // m - 1
  std::vector<G1Affine> l;     // one per aux variable
  std::vector<G1Affine> a;     // non-infinity u_i(tau) G1, inputs then aux
  std::vector<G1Affine> b_g1;  // non-infinity v_i(tau) G1, inputs then aux
  std::vector<G2Affine> b_g2;  // the same in G2
};

// A Groth16 proof: e(a, b) = e(alpha, beta) e(sum_i x_i ic_i, gamma) e(c, delta).
struct Proof {
  G1Affine a;
  G2Affine b;
  G1Affine c;
  friend bool operator==(const Proof&, const Proof&) = default;
};

}  // namespace cuzk::groth16
