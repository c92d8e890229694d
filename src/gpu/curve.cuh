#pragma once
// Points of y^2 = x^3 + b (a = 0) on the GPU: affine bases and XYZZ accumulators
// (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2), the cheapest coordinates for bucket accumulation
// (Explicit-Formulas Database, "xyzz" for short Weierstrass: madd-2008-s, add-2008-s,
// dbl-2008-s-1, mdbl-2008-s-1).
//
// Affine points carry no flag: (0, 0) stands for the identity. No point of G1 or G2 has y = 0
// (both curve groups have odd order, so no 2-torsion), hence the encoding is unambiguous.
#include "gpu/bls12_381.cuh"

namespace cuzk::gpu {

template <class C>
struct AffinePoint {
  using F = typename C::F;
  F x, y;
  __device__ __forceinline__ static AffinePoint identity() { return {F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_identity() const { return y.is_zero(); }
  __device__ __forceinline__ AffinePoint operator-() const { return {x, is_identity() ? y : -y}; }
  __device__ __forceinline__ bool is_on_curve() const { return is_identity() || y.sqr() == x.sqr() * x + C::b(); }
};

// x * y - z * w with shared Montgomery reductions: Fq::dot2 on G1; on G2 two dots of four
// (Fq2::mul_sub) in the full addition and doubling, two plain products in the mixed ones (their
// registers: the G2 bucket accumulation spills already).
__device__ __forceinline__ Fq mul_sub(const Fq& x, const Fq& y, const Fq& z, const Fq& w) {
  return Fq::dot2(x, y, z, -w);
}
__device__ __forceinline__ Fq2 mul_sub(const Fq2& x, const Fq2& y, const Fq2& z, const Fq2& w) {
  return Fq2::mul_sub(x, y, z, w);
}
__device__ __forceinline__ Fq mul_sub_lean(const Fq& x, const Fq& y, const Fq& z, const Fq& w) {
  return mul_sub(x, y, z, w);
}
__device__ __forceinline__ Fq2 mul_sub_lean(const Fq2& x, const Fq2& y, const Fq2& z, const Fq2& w) {
  return x * y - z * w;
}

template <class C>
struct XyzzPoint {
  using F = typename C::F;
  using Affine = AffinePoint<C>;
  F X, Y, ZZ, ZZZ;  // ZZ == 0 is the identity

  __device__ __forceinline__ static XyzzPoint identity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_identity() const { return ZZ.is_zero(); }
  __device__ __forceinline__ static XyzzPoint from_affine(const Affine& a) {
    if (a.is_identity()) return identity();
    return {a.x, a.y, F::one(), F::one()};
  }
  __device__ __forceinline__ XyzzPoint operator-() const { return {X, -Y, ZZ, ZZZ}; }

  // 2P for an affine P (mdbl-2008-s-1).
  __device__ static XyzzPoint dbl_affine(const Affine& p) {
    if (p.is_identity()) return identity();
    const F U = p.y.dbl(), V = U.sqr(), W = U * V, S = p.x * V;
    const F x2 = p.x.sqr();
    const F M = x2.dbl() + x2;
    XyzzPoint r;
    r.X = M.sqr() - S.dbl();
    r.Y = mul_sub_lean(M, S - r.X, W, p.y);
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // dbl-2008-s-1 with a = 0.
  __device__ XyzzPoint dbl() const {
    if (is_identity()) return *this;
    const F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
    const F x2 = X.sqr();
    const F M = x2.dbl() + x2;
    XyzzPoint r;
    r.X = M.sqr() - S.dbl();
    r.Y = mul_sub(M, S - r.X, W, Y);
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // this + q for an affine q (madd-2008-s), with the doubling and inverse cases.
  __device__ XyzzPoint add_affine(const Affine& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return from_affine(q);
    // Ordered so that each input dies as early as possible (fewer live registers: matters on G2).
    const F P = q.x * ZZ - X, R = q.y * ZZZ - Y;  // U2 - X1, S2 - Y1
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : identity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    XyzzPoint r;
    r.ZZ = ZZ * PP;
    r.ZZZ = ZZZ * PPP;
    const F Q = X * PP;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = mul_sub_lean(R, Q - r.X, Y, PPP);
    return r;
  }

  // this + q (add-2008-s), with the doubling and inverse cases.
  __device__ XyzzPoint add(const XyzzPoint& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return q;
    const F U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    const F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl() : identity();
    const F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    XyzzPoint r;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = mul_sub(R, Q - r.X, S1, PPP);
    r.ZZ = ZZ * q.ZZ * PP;
    r.ZZZ = ZZZ * q.ZZZ * PPP;
    return r;
  }

  // Affine form (one inversion; identity maps to (0, 0)).
  __device__ Affine to_affine() const {
    if (is_identity()) return Affine::identity();
    const F zzz_inv = ZZZ.inverse();
    const F z_inv = zzz_inv * ZZ;  // 1/Z with Z = ZZZ/ZZ
    const F zz_inv = z_inv.sqr();
    return {X * zz_inv, Y * zzz_inv};
  }
};

// Points and field elements in device buffers are 16-byte aligned (cudaMalloc, whole elements of
// 48, 96 or 192 bytes): read or written through Aligned16 the compiler uses 128-bit accesses, a
// quarter of the instructions (and of the L1 transactions of a random gather) of 32-bit ones.
template <class T>
struct alignas(16) Aligned16 {
  T p;
};
static_assert(sizeof(Aligned16<AffinePoint<G1Curve>>) == sizeof(AffinePoint<G1Curve>) &&
                  sizeof(Aligned16<AffinePoint<G2Curve>>) == sizeof(AffinePoint<G2Curve>),
              "base stride must stay the packed size");
template <class T>
__device__ __forceinline__ T load16(const T* p) {
  return reinterpret_cast<const Aligned16<T>*>(p)->p;
}
template <class T>
__device__ __forceinline__ void store16(T* p, const T& v) {
  reinterpret_cast<Aligned16<T>*>(p)->p = v;
}

using G1Affine = AffinePoint<G1Curve>;
using G2Affine = AffinePoint<G2Curve>;
using G1Xyzz = XyzzPoint<G1Curve>;
using G2Xyzz = XyzzPoint<G2Curve>;

}  // namespace cuzk::gpu
