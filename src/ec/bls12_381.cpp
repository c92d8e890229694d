#include "ec/bls12_381.hpp"

#include <stdexcept>

namespace cuzk::ec {

namespace {

Fq fq(const char* hex) {
  return Fq::from_hex(hex).value();
}

G1 mul_by_x_abs(const G1& p) {
  return p.mul_u64(BLS_X_ABS);
}
G2 mul_by_x_abs(const G2& p) {
  return p.mul_u64(BLS_X_ABS);
}

// Multiplication by z = -|z|.
template <class P>
P mul_by_z(const P& p) {
  P r = mul_by_x_abs(p);
  return BLS_X_IS_NEGATIVE ? -r : r;
}

struct Endo {
  Fq beta;  // cube root of unity in Fq such that sigma(P) = [-z^2]P on G1
  Fq2 psi_x, psi_y;
};

const Endo& endo() {
  static const Endo e = [] {
    Endo r;
    // Primitive cube roots of unity in Fq: (-1 +- sqrt(-3)) / 2; pick the one matching -z^2 on G1.
    Fq s = (-Fq::from_u64(3)).sqrt().value();
    Fq two_inv = Fq::from_u64(2).inverse();
    const G1 g(g1_generator());
    const G1 target = -mul_by_x_abs(mul_by_x_abs(g));
    bool found = false;
    for (Fq cand : {(s - Fq::one()) * two_inv, (-s - Fq::one()) * two_inv}) {
      G1 sg(G1Affine(g1_generator().x * cand, g1_generator().y));
      if (sg == target) {
        r.beta = cand;
        found = true;
      }
    }
    if (!found) throw std::logic_error("BLS12-381 G1 endomorphism calibration failed");
    // psi(x, y) = (conj(x) * xi^{-(p-1)/3}, conj(y) * xi^{-(p-1)/2}), xi = 1 + u.
    const Fq2 xi(Fq::one(), Fq::one());
    ff::Limbs<6> pm1 = Fq::MOD;
    pm1[0] -= 1;
    ff::Limbs<6> e3{}, e2 = Fq::P_MINUS_1_OVER_2;
    // (p-1)/3 by long division.
    ff::u128 rem = 0;
    for (size_t i = 6; i-- > 0;) {
      ff::u128 cur = (rem << 64) | pm1[i];
      e3[i] = static_cast<uint64_t>(cur / 3);
      rem = cur % 3;
    }
    r.psi_x = xi.pow(e3).inverse();
    r.psi_y = xi.pow(e2).inverse();
    return r;
  }();
  return e;
}

}  // namespace

const G1Affine& g1_generator() {
  static const G1Affine g(
      fq("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
      fq("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
  return g;
}

const G2Affine& g2_generator() {
  static const G2Affine g(
      Fq2(fq("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
          fq("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")),
      Fq2(fq("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
          fq("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")));
  return g;
}

const G1Affine& G1Config::generator() {
  return g1_generator();
}
const G2Affine& G2Config::generator() {
  return g2_generator();
}

G2Affine g2_psi(const G2Affine& p) {
  if (p.infinity) return p;
  const Endo& e = endo();
  return G2Affine(p.x.conjugate() * e.psi_x, p.y.conjugate() * e.psi_y);
}

bool g1_in_subgroup(const G1Affine& p) {
  if (p.infinity) return true;
  if (!p.is_on_curve()) return false;
  const G1 sigma(G1Affine(p.x * endo().beta, p.y));
  return sigma == -mul_by_x_abs(mul_by_x_abs(G1(p)));
}

bool g2_in_subgroup(const G2Affine& p) {
  if (p.infinity) return true;
  if (!p.is_on_curve()) return false;
  return G2(g2_psi(p)) == mul_by_z(G2(p));
}

bool g1_in_subgroup_by_order(const G1Affine& p) {
  return G1(p).mul(Fr::MOD).is_identity();
}
bool g2_in_subgroup_by_order(const G2Affine& p) {
  return G2(p).mul(Fr::MOD).is_identity();
}

}  // namespace cuzk::ec
