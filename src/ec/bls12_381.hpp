#pragma once
// The BLS12-381 groups G1 (over Fq) and G2 (over Fq2, the M-type sextic twist), with the
// generators of the standard (zcash / draft-irtf-cfrg-pairing-friendly-curves) definition.
#include "ec/short_weierstrass.hpp"
#include "ff/bls12_381.hpp"

namespace cuzk::ec {

using ff::Fq;
using ff::Fq2;
using ff::Fr;

// The curve parameter z = -0xd201000000010000 (BLS x); |z| here, its sign is applied explicitly.
inline constexpr uint64_t BLS_X_ABS = 0xd201000000010000ULL;
inline constexpr bool BLS_X_IS_NEGATIVE = true;

struct G1Config {
  using Base = Fq;
  using Scalar = Fr;
  static constexpr const char* NAME = "G1";
  static const Affine<G1Config>& generator();
  static Fq b() {
    static const Fq v = Fq::from_u64(4);
    return v;
  }
};

struct G2Config {
  using Base = Fq2;
  using Scalar = Fr;
  static constexpr const char* NAME = "G2";
  static const Affine<G2Config>& generator();
  static Fq2 b() {
    static const Fq2 v(Fq::from_u64(4), Fq::from_u64(4));  // 4(1 + u)
    return v;
  }
};

using G1Affine = Affine<G1Config>;
using G1 = Jacobian<G1Config>;
using G2Affine = Affine<G2Config>;
using G2 = Jacobian<G2Config>;

const G1Affine& g1_generator();
const G2Affine& g2_generator();

// Membership in the prime-order subgroup, by endomorphism checks (Bowe 2019 for G1: sigma(P) ==
// [-z^2]P; Scott 2021 for G2: psi(P) == [z]P), much cheaper than multiplying by r.
bool g1_in_subgroup(const G1Affine& p);
bool g2_in_subgroup(const G2Affine& p);
// Reference checks [r]P == O (slow; tests compare the fast checks with these).
bool g1_in_subgroup_by_order(const G1Affine& p);
bool g2_in_subgroup_by_order(const G2Affine& p);

// Frobenius-based endomorphism psi of G2 (untwist, Frobenius, twist), used by the G2 check and the
// pairing tests.
G2Affine g2_psi(const G2Affine& p);

}  // namespace cuzk::ec
