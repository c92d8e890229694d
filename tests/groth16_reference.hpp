#pragma once
// Slow, independent reference computations for the Groth16 setup and prover tests (bellperson
// convention, src/groth16/keys.hpp). Nothing here uses the FFTs, MSMs, fixed-base tables or the
// PCE: the QAP is evaluated by naive Lagrange interpolation over the matrices of an R1cs, points by
// double-and-add, H by interpolation (naive inverse DFT), schoolbook multiplication and long
// division by x^m - 1. O(m^2): keep m small (a few hundred at most).
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/pairing.hpp"
#include "groth16/keys.hpp"
#include "groth16/setup.hpp"
#include "pce/build.hpp"
#include "r1cs/r1cs.hpp"

namespace cuzk::g16_ref {

using ec::Fr;
using ec::G1;
using ec::G1Affine;
using ec::G2;
using ec::G2Affine;
using groth16::ProvingKey;

// A circuit recorded (RecordingCS -> Pce) and fully synthesized (ProvingCS), both finalized (input
// constraints appended).
struct Circuit {
  r1cs::CompactR1cs compact;
  r1cs::R1cs r1cs;
  pce::Pce pce;
  r1cs::ProvingCS cs;
  std::span<const Fr> inputs() const { return cs.inputs(); }
  std::span<const Fr> aux() const { return cs.aux(); }
};
template <class F>
Circuit build(F&& circuit, const pce::BuildOptions& options = {}) {
  r1cs::RecordingCS rec;
  circuit(rec);
  rec.finalize();
  Circuit c;
  c.compact = std::move(rec).compact();
  c.r1cs = c.compact.expand();
  c.pce = pce::build_pce(c.compact, options);
  circuit(c.cs);
  c.cs.finalize();
  return c;
}

// k * P by plain double-and-add over the canonical bits, most significant first.
template <class C>
ec::Jacobian<C> naive_mul(const ec::Affine<C>& p, const Fr& k) {
  const ff::Limbs<4> e = k.to_canonical();
  ec::Jacobian<C> acc;
  for (int bit = 255; bit >= 0; --bit) {
    acc = acc.dbl();
    if ((e[bit / 64] >> (bit % 64)) & 1) acc = acc.add_affine(p);
  }
  return acc;
}

inline G1Affine g1_mul(const Fr& k) {
  return naive_mul(ec::g1_generator(), k).to_affine();
}
inline G2Affine g2_mul(const Fr& k) {
  return naive_mul(ec::g2_generator(), k).to_affine();
}

// Smallest power of two >= max(n, 2).
inline size_t domain_size(size_t n) {
  size_t m = 2;
  while (m < n) m *= 2;
  return m;
}

// The zcash primitive m-th root of unity, from its definition: 7^((r - 1) / 2^32), squared down.
inline Fr omega(size_t m) {
  ff::Limbs<4> e = Fr::MOD;
  e[0] -= 1;  // r - 1 (r is odd)
  for (int i = 0; i < 32; ++i) ff::shr1(e);
  Fr w = Fr::from_u64(7).pow(e);
  for (size_t k = size_t{1} << 32; k > m; k /= 2) w = w.square();
  return w;
}

// L_j(tau) = prod_{k != j} (tau - w^k) / (w^j - w^k).
inline std::vector<Fr> lagrange(size_t m, const Fr& tau) {
  const Fr w = omega(m);
  std::vector<Fr> pts(m);
  Fr x = Fr::one();
  for (size_t i = 0; i < m; ++i, x *= w) pts[i] = x;
  std::vector<Fr> out(m);
  for (size_t j = 0; j < m; ++j) {
    Fr num = Fr::one(), den = Fr::one();
    for (size_t k = 0; k < m; ++k) {
      if (k == j) continue;
      num *= tau - pts[k];
      den *= pts[j] - pts[k];
    }
    out[j] = num * den.inverse();
  }
  return out;
}

struct Qap {
  size_t m = 0;
  std::vector<Fr> u, v, w;  // per unified column
};

inline Qap qap_at(const r1cs::R1cs& r, const Fr& tau) {
  Qap q;
  q.m = domain_size(r.num_constraints);
  const std::vector<Fr> lag = lagrange(q.m, tau);
  const size_t cols = r.num_inputs + r.num_aux;
  auto eval = [&](const r1cs::SparseMatrix& mat, std::vector<Fr>& out) {
    out.assign(cols, Fr::zero());
    for (size_t row = 0; row < r.num_constraints; ++row) {
      for (size_t k = mat.row_ptr[row]; k < mat.row_ptr[row + 1]; ++k) out[mat.col[k]] += mat.val[k] * lag[row];
    }
  };
  eval(r.a, q.u);
  eval(r.b, q.v);
  eval(r.c, q.w);
  return q;
}

// The proving key straight from the definitions in keys.hpp, point by point.
inline ProvingKey setup(const r1cs::R1cs& r, const groth16::ToxicWaste& tw) {
  const Qap q = qap_at(r, tw.tau);
  ProvingKey pk;
  pk.vk.alpha_g1 = g1_mul(tw.alpha);
  pk.vk.beta_g1 = g1_mul(tw.beta);
  pk.vk.beta_g2 = g2_mul(tw.beta);
  pk.vk.gamma_g2 = g2_mul(tw.gamma);
  pk.vk.delta_g1 = g1_mul(tw.delta);
  pk.vk.delta_g2 = g2_mul(tw.delta);
  const Fr gi = tw.gamma.inverse(), di = tw.delta.inverse();
  for (size_t i = 0; i < q.u.size(); ++i) {
    const Fr k = tw.beta * q.u[i] + tw.alpha * q.v[i] + q.w[i];
    if (i < r.num_inputs) {
      pk.vk.ic.push_back(g1_mul(k * gi));
    } else {
      pk.l.push_back(g1_mul(k * di));
    }
    const G1Affine a = g1_mul(q.u[i]), b1 = g1_mul(q.v[i]);
    const G2Affine b2 = g2_mul(q.v[i]);
    if (!a.is_identity()) pk.a.push_back(a);
    if (!b1.is_identity()) pk.b_g1.push_back(b1);
    if (!b2.is_identity()) pk.b_g2.push_back(b2);
  }
  const Fr t = tw.tau.pow(q.m) - Fr::one();
  Fr ti = Fr::one();
  for (size_t i = 0; i + 1 < q.m; ++i, ti *= tw.tau) pk.h.push_back(g1_mul(ti * t * di));
  return pk;
}

// a, b, c = A z, B z, C z straight from the matrices.
struct Abc {
  std::vector<Fr> a, b, c;
};
inline Abc evaluate(const r1cs::R1cs& r, std::span<const Fr> inputs, std::span<const Fr> aux) {
  auto z = [&](size_t col) { return col < inputs.size() ? inputs[col] : aux[col - inputs.size()]; };
  auto mul = [&](const r1cs::SparseMatrix& mat) {
    std::vector<Fr> out(r.num_constraints, Fr::zero());
    for (size_t row = 0; row < r.num_constraints; ++row) {
      for (size_t k = mat.row_ptr[row]; k < mat.row_ptr[row + 1]; ++k) out[row] += mat.val[k] * z(mat.col[k]);
    }
    return out;
  };
  return {mul(r.a), mul(r.b), mul(r.c)};
}

// Coefficients of the polynomial of degree < m taking the values `evals` (zero-padded) at w^i.
inline std::vector<Fr> interpolate(std::vector<Fr> evals, size_t m) {
  evals.resize(m, Fr::zero());
  const Fr winv = omega(m).inverse(), minv = Fr::from_u64(m).inverse();
  std::vector<Fr> coeffs(m, Fr::zero());
  Fr wk = Fr::one();  // w^-k
  for (size_t k = 0; k < m; ++k, wk *= winv) {
    Fr x = Fr::one(), acc = Fr::zero();  // x = w^-ik
    for (size_t i = 0; i < m; ++i, x *= wk) acc += evals[i] * x;
    coeffs[k] = acc * minv;
  }
  return coeffs;
}

// H = (A B - C) / (x^m - 1) by schoolbook multiplication and long division. Throws when the
// division leaves a remainder (the witness does not satisfy the constraints). m - 1 coefficients.
inline std::vector<Fr> h_poly(const Abc& abc, size_t m) {
  const std::vector<Fr> a = interpolate(abc.a, m), b = interpolate(abc.b, m), c = interpolate(abc.c, m);
  std::vector<Fr> p(2 * m - 1, Fr::zero());
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < m; ++j) p[i + j] += a[i] * b[j];
  }
  for (size_t i = 0; i < m; ++i) p[i] -= c[i];
  std::vector<Fr> q(m - 1, Fr::zero());
  for (size_t k = p.size(); k-- > m;) {
    q[k - m] = p[k];
    p[k - m] += p[k];  // subtract q_{k-m} x^(k-m) (x^m - 1)
    p[k] = Fr::zero();
  }
  for (size_t k = 0; k < m; ++k) {
    if (!p[k].is_zero()) throw std::runtime_error("reference h_poly: A B - C is not divisible by Z");
  }
  return q;
}

template <class C>
ec::Jacobian<C> naive_msm(std::span<const ec::Affine<C>> bases, std::span<const Fr> scalars) {
  if (bases.size() != scalars.size()) throw std::invalid_argument("naive_msm: size mismatch");
  ec::Jacobian<C> acc;
  for (size_t i = 0; i < bases.size(); ++i) acc += naive_mul(bases[i], scalars[i]);
  return acc;
}

// The Groth16 proof from the definitions: MSMs over the queries with the density indexing spelled
// out (a: every input, aux j when A has column j; b: columns B has), H by long division.
inline groth16::Proof prove(const ProvingKey& pk, const r1cs::R1cs& r, std::span<const Fr> inputs,
                            std::span<const Fr> aux, const Fr& rr, const Fr& ss) {
  const size_t m = domain_size(r.num_constraints);
  const std::vector<Fr> h = h_poly(evaluate(r, inputs, aux), m);
  const size_t cols = r.num_inputs + r.num_aux;
  std::vector<bool> in_a(cols, false), in_b(cols, false);
  for (size_t i = 0; i < r.num_inputs; ++i) in_a[i] = true;
  for (uint32_t col : r.a.col) in_a[col] = true;
  for (uint32_t col : r.b.col) in_b[col] = true;
  auto z = [&](size_t col) { return col < inputs.size() ? inputs[col] : aux[col - inputs.size()]; };
  G1 sa, sb1, sh = naive_msm<ec::G1Config>(pk.h, h), sl = naive_msm<ec::G1Config>(pk.l, aux);
  G2 sb2;
  size_t ia = 0, ib = 0;
  for (size_t col = 0; col < cols; ++col) {
    if (in_a[col]) sa += naive_mul(pk.a.at(ia++), z(col));
    if (in_b[col]) {
      sb1 += naive_mul(pk.b_g1.at(ib), z(col));
      sb2 += naive_mul(pk.b_g2.at(ib++), z(col));
    }
  }
  if (ia != pk.a.size() || ib != pk.b_g1.size()) throw std::runtime_error("reference prove: density/key mismatch");
  const auto& vk = pk.vk;
  const G1 A = G1(vk.alpha_g1) + sa + naive_mul(vk.delta_g1, rr);
  const G2 B = G2(vk.beta_g2) + sb2 + naive_mul(vk.delta_g2, ss);
  const G1 B1 = G1(vk.beta_g1) + sb1 + naive_mul(vk.delta_g1, ss);
  const G1Affine Aa = A.to_affine(), B1a = B1.to_affine();
  const G1 C = sh + sl + naive_mul(Aa, ss) + naive_mul(B1a, rr) - naive_mul(vk.delta_g1, rr * ss);
  return {Aa, B.to_affine(), C.to_affine()};
}

// e(A, B) = e(alpha, beta) e(sum x_i ic_i, gamma) e(C, delta), as one multi-pairing equal to 1.
inline bool verify(const groth16::VerifyingKey& vk, std::span<const Fr> inputs, const groth16::Proof& p) {
  if (inputs.size() != vk.ic.size()) return false;
  G1 acc;
  for (size_t i = 0; i < inputs.size(); ++i) acc += naive_mul(vk.ic[i], inputs[i]);
  const std::pair<G1Affine, G2Affine> terms[] = {
      {p.a, p.b}, {-vk.alpha_g1, vk.beta_g2}, {-acc.to_affine(), vk.gamma_g2}, {-p.c, vk.delta_g2}};
  return ec::final_exponentiation(ec::multi_miller_loop(terms)).is_one();
}

}  // namespace cuzk::g16_ref
