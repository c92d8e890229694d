#include "ec/msm_glv.hpp"

#include <stdexcept>

namespace cuzk::ec::msm_detail {

namespace {

// [mu]P = [|z|]([|z|]P): z^2 is positive whatever the sign of z.
template <class J>
J mul_mu(const J& p) {
  return p.mul_u64(kGlvZ).mul_u64(kGlvZ);
}

}  // namespace

const GlvEndo& glv_endo_g1() {
  static const GlvEndo e = [] {
    // The primitive cube roots of unity in Fq are (-1 +- sqrt(-3)) / 2; exactly one of them gives
    // (beta x, -y) = [z^2](x, y) on G1 (the other gives eigenvalue 1 - z^2).
    const Fq s = (-Fq::from_u64(3)).sqrt().value();
    const Fq half = Fq::from_u64(2).inverse();
    const G1Affine& g = g1_generator();
    const G1 target = mul_mu(G1(g));
    for (const Fq& beta : {(s - Fq::one()) * half, (-s - Fq::one()) * half}) {
      if (G1(G1Affine(g.x * beta, -g.y)) == target) return GlvEndo{beta, true};
    }
    throw std::logic_error("msm: BLS12-381 G1 endomorphism calibration failed");
  }();
  return e;
}

const GlvEndo& glv_endo_g2() {
  static const GlvEndo e = [] {
    // psi^2(x, y) = (cx x, cy y) with cx, cy in Fq: read them off the generator, then check the
    // form on a second point and the eigenvalue.
    const G2Affine& g = g2_generator();
    const G2Affine g2 = g2_psi(g2_psi(g));
    const Fq2 cx = g2.x * g.x.inverse(), cy = g2.y * g.y.inverse();
    if (!cx.c1.is_zero() || !cy.c1.is_zero() || !(cy.c0 == Fq::one() || cy.c0 == -Fq::one())) {
      throw std::logic_error("msm: BLS12-381 psi^2 is not of the form (cx x, +-y)");
    }
    const GlvEndo r{cx.c0, cy.c0 != Fq::one()};
    const G2Affine h = G2(g).dbl().to_affine();
    if (!(glv_image(h, r, false) == g2_psi(g2_psi(h))) || !(G2(glv_image(g, r, false)) == mul_mu(G2(g)))) {
      throw std::logic_error("msm: BLS12-381 G2 endomorphism calibration failed");
    }
    return r;
  }();
  return e;
}

}  // namespace cuzk::ec::msm_detail
