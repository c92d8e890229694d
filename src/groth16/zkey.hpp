#pragma once
// Reader for snarkjs Groth16 proving keys (.zkey, version 1) over BLS12-381.
//
// Layout (iden3 binfile container, magic "zkey"; see docs in snarkjs src/zkey_utils.js):
//   1 protocol      u32 (1 = Groth16; 2 = PLONK and 10 = FFLONK are rejected)
//   2 header        u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize,
//                   alpha1 (G1), beta1 (G1), beta2 (G2), gamma2 (G2), delta1 (G1), delta2 (G2)
//   3 IC            nPublic + 1 G1
//   4 coefficients  u32 n, then n x {u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal,
//                   32-byte value = coef * R^2 mod r, little-endian, R = 2^256}
//   5 A             nVars G1            6 B1  nVars G1            7 B2  nVars G2
//   8 C             nVars - nPublic - 1 G1 (signals nPublic + 1 .. nVars - 1)
//   9 H             domainSize G1 = L^{(2n)}_{2i+1}(tau) / delta (Lagrange basis of the 2n-domain
//                   at its odd points; snarkjs's 5-based roots of unity)
//  10 MPC params    (contribution transcript; not read)
// Points are affine x then y, each Fq coordinate 48 bytes little-endian in Montgomery form
// (R = 2^384), G2 as x.c0, x.c1, y.c0, y.c1; all-zero bytes are the point at infinity.
//
// Everything is validated: the container, the protocol, the primes, every count against the
// section lengths (checked before anything is allocated), every field element canonical, every
// point on its curve (and in the prime-order subgroup where the options ask for it), every
// coefficient's matrix id, constraint (< domainSize) and signal (< nVars). Errors name the file, the
// section and what is wrong.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ec/bls12_381.hpp"
#include "util/result.hpp"

namespace cuzk::groth16 {

using ec::Fq;
using ec::Fr;
using ec::G1Affine;
using ec::G2Affine;

// One entry of the zkey's coefficient section: A[constraint][signal] (matrix 0) or
// B[constraint][signal] (matrix 1) = value. The value is converted to an ordinary field element
// (snarkjs stores coef * R^2). snarkjs lists, per constraint, its A terms then its B terms, then
// the extra rows (matrix 0, constraint nConstraints + s, signal s, value 1) for s = 0..nPublic.
// The C matrix is not stored (the prover does not need it).
struct ZkeyCoef {
  uint32_t matrix = 0;  // 0 = A, 1 = B
  uint32_t constraint = 0;
  uint32_t signal = 0;
  Fr value;
};

struct Zkey {
  // Header (section 2). n8q = 48, q = BLS12-381 base field, n8r = 32, r = scalar field: checked.
  uint32_t n8q = 0;
  uint32_t n8r = 0;
  uint32_t n_vars = 0;       // witness length, including the constant 1 at index 0
  uint32_t n_public = 0;     // public signals (outputs then public inputs), w[1..n_public]
  uint32_t domain_size = 0;  // a power of two
  uint32_t log2_domain_size = 0;

  // Verifying key points (section 2) and IC (section 3, n_public + 1 points).
  G1Affine alpha1, beta1, delta1;
  G2Affine beta2, gamma2, delta2;
  std::vector<G1Affine> ic;

  std::vector<ZkeyCoef> coefs;  // section 4, in file order

  std::vector<G1Affine> a;   // section 5, n_vars
  std::vector<G1Affine> b1;  // section 6, n_vars
  std::vector<G2Affine> b2;  // section 7, n_vars
  std::vector<G1Affine> c;   // section 8, n_vars - n_public - 1; c[i] belongs to signal n_public + 1 + i
  std::vector<G1Affine> h;   // section 9, domain_size
};

struct ZkeyOptions {
  // Subgroup checks of the verifying-key points (header and IC): cheap, on by default.
  bool check_vk_subgroup = true;
  // Subgroup checks of every point of sections 5-9: slow for big keys, off by default (every
  // point is always checked to lie on its curve).
  bool check_all_subgroups = false;
};

// `name` (usually the path) prefixes every error message.
Result<Zkey> parse_zkey(std::span<const uint8_t> bytes, std::string_view name, const ZkeyOptions& opt = {});
Result<Zkey> load_zkey(const std::string& path, const ZkeyOptions& opt = {});

}  // namespace cuzk::groth16
