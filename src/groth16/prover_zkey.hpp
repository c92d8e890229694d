#pragma once
// The Groth16 prover for snarkjs proving keys (.zkey, see zkey.hpp): the same proof snarkjs 0.7.6's
// groth16.prove (src/groth16_prove.js) computes, bit for bit, for the same blinding scalars r, s.
//
// With w the full witness (w_0 = 1, public signals w_1..w_nPublic, then the private ones) and
// n = domainSize:
//   1. a_c = sum A[c][i] w_i, b_c = sum B[c][i] w_i for c < n from the coefficient section (rows
//      without entries are 0), c_c = a_c b_c (the C matrix is never read).
//   2. Each of a, b, c: inverse FFT over the n-domain, coefficient i times w_{2n}^i, FFT over the
//      n-domain: the evaluations at w_{2n}^(2j+1), the odd half of the 2n-domain (snarkjs's
//      5-based roots of unity). p_j = a'_j b'_j - c'_j, NOT divided by Z (the zkey's H bases are
//      the Lagrange basis of the 2n-domain at the odd points, already divided by delta).
//   3. pi_a = alpha1 + sum_i w_i A_i + r delta1
//      pi_b = beta2 + sum_i w_i B2_i + s delta2                              (G2)
//      b1   = beta1 + sum_i w_i B1_i + s delta1                              (G1, only for pi_c)
//      pi_c = sum_{i > nPublic} w_i C_i + sum_j p_j H_j + s pi_a + r b1 - r s delta1
// The public inputs of the proof are w_1..w_nPublic. Every step runs on ThreadPool::global()
// (the coefficient accumulation splits the coefficient list at constraint boundaries; snarkjs
// writes it in constraint order, an unordered list is accumulated serially).
//
// Errors (std::invalid_argument, message prefixed "prove_zkey: "): a witness whose length is not
// nVars or whose first value is not 1, and a Zkey whose section sizes or coefficient entries are
// inconsistent with its header (load_zkey already guarantees these; hand-built keys may not).
// The witness is not checked against the constraints (the C matrix is not in the zkey): a wrong
// witness gives a proof that does not verify.
#include <span>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/prove_timings.hpp"
#include "groth16/zkey.hpp"

namespace cuzk::groth16 {

// The five MSM sums of a snarkjs proof (what a device stage hands to zkey_finalize):
// a = sum w_i A_i, b1 = sum w_i B1_i, b2 = sum w_i B2_i, c = sum_{i > nPublic} w_i C_i,
// h = sum p_j H_j.
struct ZkeyMsms {
  ec::G1 a, b1, c, h;
  ec::G2 b2;
};
// Steps 1-2 on the CPU: the sums for `witness` (checked as by prove_zkey); timings without
// finalize_s. C and H are summed as one MSM: `h` is the identity and `c` holds both sums.
ZkeyMsms zkey_msms(const Zkey& zkey, std::span<const Fr> witness, ProveTimings* timings = nullptr);
// Step 3: the blinding terms and the affine proof from the sums (cheap).
Proof zkey_finalize(const Zkey& zkey, const ZkeyMsms& msms, const Fr& r, const Fr& s);

// The proof for blinding scalars r and s (any values, 0 included: snarkjs draws them uniformly).
Proof prove_zkey(const Zkey& zkey, std::span<const Fr> witness, const Fr& r, const Fr& s,
                 ProveTimings* timings = nullptr);
// The same with r and s drawn from SystemRng (the kernel's CSPRNG).
Proof prove_zkey(const Zkey& zkey, std::span<const Fr> witness, ProveTimings* timings = nullptr);

// Step 1 alone: a, b (A w and B w per constraint row, n values each) and c = a o b. Same checks.
struct ZkeyAbc {
  std::vector<Fr> a, b, c;
};
ZkeyAbc zkey_abc(const Zkey& zkey, std::span<const Fr> witness);

// Steps 1-2: the n scalars p_j that multiply the zkey's H points (what snarkjs passes to its H
// multi-exponentiation, there as standard-form integers). Same checks.
std::vector<Fr> zkey_h_scalars(const Zkey& zkey, std::span<const Fr> witness);

}  // namespace cuzk::groth16
