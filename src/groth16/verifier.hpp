#pragma once
// Groth16 verification (single and batched) over BLS12-381.
//
// A proof (A, B, C) for public inputs x_1..x_n (without the leading ONE) is valid when
//   e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta),   vk_x = ic[0] + sum_i x_i ic[i],
// checked as one multi-Miller loop e(A, B) e(vk_x, -gamma) e(C, -delta) followed by one final
// exponentiation, compared with the precomputed e(alpha, beta).
//
// Batch verification of proofs P_1..P_k draws independent random 128-bit scalars r_j from the
// kernel CSPRNG and checks
//   prod_j e(r_j A_j, B_j) = e(alpha, beta)^{sum r_j} e(sum_j r_j vk_x(j), gamma) e(sum_j r_j C_j, delta)
// with one multi-Miller loop (k + 2 pairs) and one final exponentiation. A batch with an invalid
// proof passes with probability at most about 2^-128. The batch result says only whether all proofs
// are valid; verify each one to find the bad one. A batch of one proof is checked by verify() (exact,
// and cheaper: no random weights).
//
// Proofs whose points are at infinity, off the curve or outside the prime-order subgroup are
// rejected (false), whatever the equation says; the decoders (proof_codec.hpp, snarkjs_json.hpp)
// already refuse such points, the verifier checks again for proofs built in memory.
// A wrong number of public inputs is an error (the caller has the wrong key or wrong inputs), not
// false. Pairing values follow the @noble/curves / zkcrypto convention (see ec/pairing.hpp), which
// does not matter for these equality checks.
#include <span>
#include <vector>

#include "ec/pairing.hpp"
#include "groth16/keys.hpp"
#include "groth16/zkey.hpp"
#include "util/result.hpp"
#include "util/rng.hpp"

namespace cuzk::groth16 {

struct PreparedVerifyingKey {
  VerifyingKey vk;
  ff::Fq12 alpha_beta;          // e(alpha_g1, beta_g2)
  ec::G2Prepared neg_gamma_g2;  // -gamma
  ec::G2Prepared neg_delta_g2;  // -delta

  size_t num_public_inputs() const { return vk.ic.empty() ? 0 : vk.ic.size() - 1; }
};

PreparedVerifyingKey prepare(const VerifyingKey& vk);

// public_inputs: x_1..x_n, without the leading ONE; n must equal vk.ic.size() - 1 (error
// otherwise). An empty ic is an error too.
Result<bool> verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs);

// inputs[j] are the public inputs of proofs[j]. Errors: proofs.size() != inputs.size(), or any
// inputs[j].size() != vk.ic.size() - 1 (the message names j). An empty batch is true.
Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs, SystemRng& rng);
Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs);

// The verifying key of a snarkjs proving key: alpha1, beta1, beta2, gamma2, delta1, delta2, ic.
VerifyingKey vk_from_zkey(const Zkey& zkey);

}  // namespace cuzk::groth16
