#pragma once
// Endomorphism (GLV) split of MSM scalars for BLS12-381, used by msm_pippenger.hpp.
//
// Both groups have an endomorphism phi with phi(P) = [mu]P for mu = z^2, z = -0xd201000000010000
// the curve parameter:
//  - G1: phi(x, y) = (beta x, -y), beta a primitive cube root of unity in Fq (Gallant, Lambert,
//    Vanstone, CRYPTO 2001). (beta x, y) has eigenvalue -z^2 for one of the two roots (the G1
//    subgroup check in bls12_381.cpp); negating y gives +z^2.
//  - G2: phi = psi^2 with psi the untwist-Frobenius-twist map, psi(P) = [z]P on G2 (Scott 2021,
//    the G2 subgroup check). Frobenius^2 is the identity on Fq2, so psi^2 scales x and y by the
//    norms of psi's coefficients, which lie in Fq: phi(x, y) = (cx x, cy y), cx, cy in Fq.
// The constants are derived at start-up from the library's own maps and checked against [mu]G.
//
// r = z^4 - z^2 + 1 = mu^2 - mu + 1, so every k < r is k = k1 + k2 mu (mod r) with
// |k1|, |k2| <= mu/2 + 1 < 2^127 (glv_split): a 255-bit MSM over n points becomes a 127-bit MSM
// over the 2n points P_i, phi(P_i). That keeps the number of bucket additions (2n points times
// half the windows) but halves the number of windows, and so the bucket reductions.
#include <cstdint>
#include <type_traits>

#include "ec/bls12_381.hpp"
#include "ff/limbs.hpp"

namespace cuzk::ec::msm_detail {

// |z| and mu = z^2 (BLS12-381: z = -0xd201000000010000, bls12_381.hpp).
inline constexpr uint64_t kGlvZ = BLS_X_ABS;
inline constexpr ff::u128 kGlvMu = static_cast<ff::u128>(kGlvZ) * kGlvZ;

// The largest magnitude glv_split returns: mu/2 + 1 (mu is even), about 2^126.4.
inline constexpr ff::Limbs<4> kGlvMaxMagnitude = {static_cast<uint64_t>(kGlvMu / 2 + 1),
                                                  static_cast<uint64_t>((kGlvMu / 2 + 1) >> 64), 0, 0};

// (hi:lo) / d with hi < d: the quotient, and the remainder in rem. One divq on x86-64 (the
// generic 128-bit division is a library call several times slower).
inline uint64_t glv_div(uint64_t hi, uint64_t lo, uint64_t d, uint64_t& rem) {
#if defined(__x86_64__)
  uint64_t q;
  asm("divq %4" : "=a"(q), "=d"(rem) : "a"(lo), "d"(hi), "rm"(d) : "cc");
  return q;
#else
  const ff::u128 num = (static_cast<ff::u128>(hi) << 64) | lo;
  rem = static_cast<uint64_t>(num % d);
  return static_cast<uint64_t>(num / d);
#endif
}

struct GlvScalar {
  ff::Limbs<4> m1, m2;  // |k1|, |k2| (limbs 2 and 3 are zero)
  bool neg1, neg2;      // signs of k1, k2
};

// k = k1 + k2 mu (mod r) for a canonical k < r, with |k1|, |k2| <= kGlvMaxMagnitude.
inline GlvScalar glv_split(const ff::Limbs<4>& k) {
  // q = k div mu and k mod mu by two divisions by |z| (mu = |z|^2): k = q1 |z| + r1,
  // q1 = q |z| + r2, so k mod mu = r2 |z| + r1. k < r < 2^255 and |z| > 2^63, so the top limb
  // of k (and of q1, < 2^192 / 2^63.7) is already below |z| and only starts the remainder.
  uint64_t r1 = k[3], r2;
  const uint64_t q1_2 = glv_div(r1, k[2], kGlvZ, r1);
  const uint64_t q1_1 = glv_div(r1, k[1], kGlvZ, r1);
  const uint64_t q1_0 = glv_div(r1, k[0], kGlvZ, r1);
  r2 = q1_2;
  const uint64_t q_1 = glv_div(r2, q1_1, kGlvZ, r2);
  const uint64_t q_0 = glv_div(r2, q1_0, kGlvZ, r2);
  ff::u128 q = (static_cast<ff::u128>(q_1) << 64) | q_0;        // <= mu - 1 since k <= r - 1 = mu^2 - mu
  const ff::u128 rem = static_cast<ff::u128>(r2) * kGlvZ + r1;  // < mu
  // Centre k1: rem > mu/2 becomes rem - mu with q + 1 (q stays <= mu - 1: q = mu - 1 forces rem = 0).
  bool neg1 = false;
  ff::u128 m1 = rem;
  if (rem > kGlvMu / 2) {
    neg1 = true;
    m1 = kGlvMu - rem;
    ++q;
  }
  // Centre k2 with (mu - 1) mu = r - 1 = -1 (mod r): k2 mu = (k2 - (mu - 1)) mu - 1, so
  // k2 > mu/2 becomes k2 - (mu - 1) (magnitude < mu/2) and k1 drops by one.
  bool neg2 = false;
  ff::u128 m2 = q;
  if (q > kGlvMu / 2) {
    neg2 = true;
    m2 = (kGlvMu - 1) - q;
    if (neg1) {
      ++m1;  // -m1 - 1
    } else if (m1 == 0) {
      neg1 = true;
      m1 = 1;
    } else {
      --m1;
    }
  }
  return {{static_cast<uint64_t>(m1), static_cast<uint64_t>(m1 >> 64), 0, 0},
          {static_cast<uint64_t>(m2), static_cast<uint64_t>(m2 >> 64), 0, 0},
          neg1,
          neg2};
}

// phi(x, y) = (cx x, cy y) with cy = +-1 (checked at start-up).
struct GlvEndo {
  Fq cx;
  bool neg_y;
};
const GlvEndo& glv_endo_g1();
const GlvEndo& glv_endo_g2();

template <class C>
const GlvEndo& glv_endo() {
  if constexpr (std::is_same_v<C, G1Config>) {
    return glv_endo_g1();
  } else {
    return glv_endo_g2();
  }
}

// phi(p), negated if `neg`.
template <class C>
inline Affine<C> glv_image(const Affine<C>& p, const GlvEndo& e, bool neg) {
  if (p.infinity) return p;
  return Affine<C>(p.x * e.cx, e.neg_y != neg ? -p.y : p.y);
}

}  // namespace cuzk::ec::msm_detail
