#pragma once
// The optimal ate pairing of BLS12-381, e: G1 x G2 -> GT (the order-r subgroup of Fq12*).
//
// e(P, Q) = final_exponentiation(miller_loop(P, Q)), where the Miller loop runs over the bits of
// |z| = 0xd201000000010000 with Q in homogeneous projective coordinates on the M-type twist and the
// lines evaluated at P; z is negative, so the loop result is conjugated. The final exponentiation
// raises to 3 (q^12 - 1)/r: the hard part uses 3 (q^4 - q^2 + 1)/r = (z - 1)^2 (z + q) (z^2 + q^2 - 1) + 3
// (Hayashida, Hayasaka, Teruya, ePrint 2020/875). The extra factor 3 (coprime to r, so the map is
// still a non-degenerate bilinear pairing) is what @noble/curves and zkcrypto/bls12_381 compute too:
// values are bit-for-bit those of @noble/curves (the tests check its e(G1, G2) and the
// tests/vectors/pairing.json cases, and that the plain f^((q^12 - 1)/r) cubed gives the same).
//
// The identity of either group pairs to 1. Inputs are assumed to be in the prime-order subgroups
// (the decoders check that); the functions do not check it again.
#include <span>
#include <utility>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ff/bls12_381.hpp"

namespace cuzk::ec {

using ff::Fq12;

// One line of the Miller loop, evaluated at P = (xP, yP) as c0 + (c1 xP) v + (c2 yP) v w, i.e. the
// flat Fq12 slots 0, 1 and 4 (Fq12::mul_by_014).
struct LineCoeffs {
  Fq2 c0, c1, c2;
};

// The line coefficients of a fixed G2 point (63 doublings and 5 additions for BLS12-381), for
// verifiers that pair against the same verifying-key points many times.
struct G2Prepared {
  std::vector<LineCoeffs> lines;  // empty for the identity
  bool infinity = true;

  G2Prepared() = default;  // the identity
  explicit G2Prepared(const G2Affine& q);
  bool is_identity() const { return infinity; }
};

// f_{z,Q}(P) up to factors that the final exponentiation removes (not a canonical value by itself:
// compare only after final_exponentiation).
Fq12 miller_loop(const G1Affine& p, const G2Affine& q);
Fq12 miller_loop(const G1Affine& p, const G2Prepared& q);
// Product of the Miller loops of all pairs with one shared chain of squarings; pairs with an
// identity point contribute 1.
Fq12 multi_miller_loop(std::span<const std::pair<G1Affine, G2Affine>> terms);
Fq12 multi_miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> terms);

// f^(3 (q^12 - 1)/r): easy part f^((q^6 - 1)(q^2 + 1)), then the hard part: five exponentiations by
// z (chains of Karabina compressed cyclotomic squarings), a Granger-Scott squaring and Frobenius maps.
Fq12 final_exponentiation(const Fq12& f);

Fq12 pairing(const G1Affine& p, const G2Affine& q);
// prod_i e(P_i, Q_i) with one Miller loop and one final exponentiation.
Fq12 multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms);
Fq12 multi_pairing(std::span<const std::pair<G1Affine, const G2Prepared*>> terms);

// x^z for x in the cyclotomic subgroup (z = -0xd201000000010000); exposed for tests.
Fq12 cyclotomic_exp_by_z(const Fq12& x);

}  // namespace cuzk::ec
