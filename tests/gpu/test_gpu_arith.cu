// GPU field and curve arithmetic against the CPU implementation on random inputs, plus the edge
// cases of the addition formulas (doubling, inverse, identity).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ff/bls12_381.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/mont_fp64.cuh"
#include "gpu_test_support.cuh"

using namespace cuzk;
using namespace cuzk::gpu::test;

namespace {

// The device constants are the CPU constants split into 32-bit words.
template <class DevP, class HostF>
constexpr bool same_constants() {
  for (int i = 0; i < DevP::N; ++i) {
    const auto m = HostF::MOD[i / 2] >> (32 * (i % 2));
    const auto o = HostF::R1[i / 2] >> (32 * (i % 2));
    const auto r2 = HostF::R2[i / 2] >> (32 * (i % 2));
    if (DevP::mod(i) != static_cast<uint32_t>(m) || DevP::one(i) != static_cast<uint32_t>(o) ||
        DevP::r2(i) != static_cast<uint32_t>(r2))
      return false;
  }
  return DevP::INV == static_cast<uint32_t>(HostF::INV);
}
static_assert(same_constants<gpu::FrParams, ff::Fr>());
static_assert(same_constants<gpu::FqParams, ff::Fq>());

constexpr int kFieldOps = 10;

template <class F>
__global__ void field_ops_kernel(const F* a, const F* b, F* out, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  F* o = out + kFieldOps * i;
  o[0] = a[i] + b[i];
  o[1] = a[i] - b[i];
  o[2] = a[i] * b[i];
  o[3] = a[i].sqr();
  o[4] = -a[i];
  o[5] = a[i].inverse();
  o[6] = a[i].dbl();
  o[7] = (a[i] * b[i]) * b[i].inverse();  // == a unless b == 0
  // The first-version CIOS multiplication, kept beside the default one (mont_field.cuh).
  if constexpr (requires { F::mul_cios(a[i], b[i]); })
    o[8] = F::mul_cios(a[i], b[i]);
  else
    o[8] = a[i] * b[i];
  // Two products under one reduction (Fq's dot2, used by the point formulas).
  if constexpr (std::is_same_v<F, gpu::Fq>)
    o[9] = F::dot2(a[i], b[i], b[i], a[i].sqr());
  else
    o[9] = a[i] * b[i] + b[i] * a[i].sqr();
}

template <class HostF, class DevF>
void check_field(std::vector<HostF> a, std::vector<HostF> b) {
  const size_t n = a.size();
  std::vector<DevF> da(n), db(n), dout(kFieldOps * n);
  for (size_t i = 0; i < n; ++i) {
    da[i] = to_dev(a[i]);
    db[i] = to_dev(b[i]);
  }
  gpu::DeviceBuffer<DevF> ga(n), gb(n), gout(kFieldOps * n);
  ga.upload(da);
  gb.upload(db);
  field_ops_kernel<<<(n + 127) / 128, 128>>>(ga.data(), gb.data(), gout.data(), n);
  CUZK_CUDA_CHECK(cudaGetLastError());
  gout.download(dout);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  for (size_t i = 0; i < n; ++i) {
    const DevF* o = &dout[kFieldOps * i];
    ASSERT_TRUE(from_dev(o[0]) == a[i] + b[i]) << i;
    ASSERT_TRUE(from_dev(o[1]) == a[i] - b[i]) << i;
    ASSERT_TRUE(from_dev(o[2]) == a[i] * b[i]) << i;
    ASSERT_TRUE(from_dev(o[3]) == a[i].square()) << i;
    ASSERT_TRUE(from_dev(o[4]) == -a[i]) << i;
    ASSERT_TRUE(from_dev(o[5]) == (a[i].is_zero() ? a[i] : a[i].inverse())) << i;
    ASSERT_TRUE(from_dev(o[6]) == a[i] + a[i]) << i;
    ASSERT_TRUE(from_dev(o[7]) == (b[i].is_zero() ? HostF::zero() : a[i])) << i;
    ASSERT_TRUE(from_dev(o[8]) == a[i] * b[i]) << i;
    ASSERT_TRUE(from_dev(o[9]) == a[i] * b[i] + b[i] * a[i].square()) << i;
  }
}

// Random values plus the edges: 0, 1, p-1, and values near 2^(bits) (fully reduced).
template <class HostF>
std::vector<HostF> field_inputs(std::mt19937_64& rng, size_t n) {
  std::vector<HostF> v = {HostF::zero(), HostF::one(), -HostF::one(), HostF::from_u64(2), -HostF::from_u64(2)};
  while (v.size() < n) v.push_back(HostF::random(rng));
  return v;
}

}  // namespace

TEST(GpuField, FrMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(1);
  auto a = field_inputs<ff::Fr>(rng, 4096), b = field_inputs<ff::Fr>(rng, 4096);
  std::shuffle(b.begin(), b.end(), rng);
  check_field<ff::Fr, gpu::Fr>(a, b);
  check_field<ff::Fr, gpu::Fr>(a, a);
}

TEST(GpuField, FqMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(2);
  auto a = field_inputs<ff::Fq>(rng, 4096), b = field_inputs<ff::Fq>(rng, 4096);
  std::shuffle(b.begin(), b.end(), rng);
  check_field<ff::Fq, gpu::Fq>(a, b);
  check_field<ff::Fq, gpu::Fq>(a, a);
}

TEST(GpuField, Fq2MatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(3);
  std::vector<ff::Fq2> a = {ff::Fq2::zero(), ff::Fq2::one(), ff::Fq2(ff::Fq::zero(), ff::Fq::one())}, b;
  while (a.size() < 2048) a.push_back(ff::Fq2::random(rng));
  b = a;
  std::shuffle(b.begin(), b.end(), rng);
  check_field<ff::Fq2, gpu::Fq2>(a, b);
}

namespace {

// The FP64-limb Montgomery product (gpu/mont_fp64.cuh): out[2i] = a*b with a read shifted,
// out[2i+1] = a * b^17 as a chain of 17 products that stays in the FP64 form (no reduction
// between them: each result below 2p is the next left operand).
template <class DevF>
__global__ void fp64_mul_kernel(const DevF* a, const DevF* b, DevF* out, size_t n) {
  using G = gpu::Fp64Field<typename DevF::Params>;
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const G bs = G::template from_words<G::SHIFT>(b[i].w);
  G::mul(G::template from_words<G::SHIFT>(a[i].w), G::template from_words<0>(b[i].w)).to_words(out[2 * i].w);
  G x = G::template from_words<0>(a[i].w);
  for (int k = 0; k < 17; ++k) x = G::mul(x, bs);
  x.to_words(out[2 * i + 1].w);
}

template <class HostF, class DevF>
void check_fp64_mul(const std::vector<HostF>& a, const std::vector<HostF>& b) {
  const size_t n = a.size();
  std::vector<DevF> da(n), db(n), dout(2 * n);
  for (size_t i = 0; i < n; ++i) {
    da[i] = to_dev(a[i]);
    db[i] = to_dev(b[i]);
  }
  gpu::DeviceBuffer<DevF> ga(n), gb(n), gout(2 * n);
  ga.upload(da);
  gb.upload(db);
  fp64_mul_kernel<<<(n + 127) / 128, 128>>>(ga.data(), gb.data(), gout.data(), n);
  CUZK_CUDA_CHECK(cudaGetLastError());
  gout.download(dout);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(from_dev(dout[2 * i]) == a[i] * b[i]) << i;
    HostF want = a[i];
    for (int k = 0; k < 17; ++k) want = want * b[i];
    ASSERT_TRUE(from_dev(dout[2 * i + 1]) == want) << i;
  }
}

}  // namespace

TEST(GpuField, Fp64LimbProductEqualsCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(4);
  auto r = field_inputs<ff::Fr>(rng, 4096), rs = r;
  std::shuffle(rs.begin(), rs.end(), rng);
  check_fp64_mul<ff::Fr, gpu::Fr>(r, rs);
  check_fp64_mul<ff::Fr, gpu::Fr>(r, r);
  auto q = field_inputs<ff::Fq>(rng, 4096), qs = q;
  std::shuffle(qs.begin(), qs.end(), rng);
  check_fp64_mul<ff::Fq, gpu::Fq>(q, qs);
  check_fp64_mul<ff::Fq, gpu::Fq>(q, q);
}

// The FP64 form's constants, checked at compile time: limbs of p, -p^-1 mod 2^52, radix shift.
static_assert(gpu::Fp64Field<gpu::FrParams>::L == 5 && gpu::Fp64Field<gpu::FrParams>::SHIFT == 4);
static_assert(gpu::Fp64Field<gpu::FqParams>::L == 8 && gpu::Fp64Field<gpu::FqParams>::SHIFT == 32);
static_assert(gpu::Fp64Field<gpu::FrParams>::mod_limb(0) == 0xfffff00000001ull);
static_assert((gpu::Fp64Field<gpu::FrParams>::mod_limb(0) * gpu::Fp64Field<gpu::FrParams>::pinv52() + 1) %
                  (uint64_t{1} << 52) ==
              0);
static_assert((gpu::Fp64Field<gpu::FqParams>::mod_limb(0) * gpu::Fp64Field<gpu::FqParams>::pinv52() + 1) %
                  (uint64_t{1} << 52) ==
              0);

namespace {

constexpr int kPointOps = 8;

// Each operation is one out-of-line function: inlining a dozen G2 formulas into one kernel makes
// nvcc's optimizer (cicc) take minutes.
template <class Xyzz>
__device__ __noinline__ Xyzz op_add(const Xyzz& a, const Xyzz& b) {
  return a.add(b);
}
template <class Xyzz>
__device__ __noinline__ Xyzz op_madd(const Xyzz& a, const typename Xyzz::Affine& b) {
  return a.add_affine(b);
}
template <class Xyzz>
__device__ __noinline__ Xyzz op_dbl(const Xyzz& a) {
  return a.dbl();
}
template <class Xyzz>
__device__ __noinline__ typename Xyzz::Affine op_to_affine(const Xyzz& a) {
  return a.to_affine();
}
template <class A>
__device__ __noinline__ bool op_on_curve(const A& a) {
  return a.is_on_curve();
}

template <class Xyzz>
__global__ void point_ops_kernel(const typename Xyzz::Affine* p, const typename Xyzz::Affine* q, Xyzz* out,
                                 typename Xyzz::Affine* aff, int* on_curve, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  Xyzz* o = out + kPointOps * i;
  const Xyzz P = Xyzz::from_affine(p[i]);
  const Xyzz A = op_madd(P, q[i]);  // generic ZZ
  const Xyzz B = op_dbl(Xyzz::from_affine(q[i]));
  o[0] = A;
  o[1] = B;
  o[2] = op_add(A, B);
  o[3] = op_add(A, A);       // doubling case inside add
  o[4] = op_add(A, -A);      // inverse case
  o[5] = op_madd(P, p[i]);   // doubling case inside madd
  o[6] = op_madd(P, -p[i]);  // inverse case inside madd
  o[7] = op_add(op_dbl(A), P);
  aff[i] = op_to_affine(o[2]);
  on_curve[i] = op_on_curve(p[i]) && op_on_curve(q[i]) && op_on_curve(aff[i]);
}

template <class C, class DevAffine, class DevXyzz>
void check_points(size_t n, uint64_t seed) {
  using J = ec::Jacobian<C>;
  std::mt19937_64 rng(seed);
  std::vector<ec::Affine<C>> p(n), q(n);
  const J g(C::generator());
  for (size_t i = 0; i < n; ++i) {
    p[i] = g.mul(ff::Fr::random(rng)).to_affine();
    q[i] = g.mul(ff::Fr::random(rng)).to_affine();
  }
  // Edges: the identity on either side, and q == p, q == -p.
  p[0] = ec::Affine<C>();
  q[1] = ec::Affine<C>();
  q[2] = p[2];
  q[3] = -p[3];
  std::vector<DevAffine> dp(n), dq(n), daff(n);
  for (size_t i = 0; i < n; ++i) {
    dp[i] = to_dev_affine<DevAffine>(p[i]);
    dq[i] = to_dev_affine<DevAffine>(q[i]);
  }
  gpu::DeviceBuffer<DevAffine> gp(n), gq(n), gaff(n);
  gpu::DeviceBuffer<DevXyzz> gout(kPointOps * n);
  gpu::DeviceBuffer<int> gon(n);
  gp.upload(dp);
  gq.upload(dq);
  point_ops_kernel<DevXyzz><<<(n + 63) / 64, 64>>>(gp.data(), gq.data(), gout.data(), gaff.data(), gon.data(), n);
  CUZK_CUDA_CHECK(cudaGetLastError());
  std::vector<DevXyzz> out(kPointOps * n);
  std::vector<int> on(n);
  gout.download(out);
  gaff.download(daff);
  gon.download(on);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  for (size_t i = 0; i < n; ++i) {
    const J P(p[i]), Q(q[i]);
    const J A = P + Q, B = Q.dbl();
    const J expect[kPointOps] = {A, B, A + B, A.dbl(), J(), P.dbl(), J(), A.dbl() + P};
    for (int k = 0; k < kPointOps; ++k)
      ASSERT_TRUE(xyzz_to_host_affine<C>(out[kPointOps * i + k]) == expect[k].to_affine())
          << C::NAME << " point " << i << " op " << k;
    ASSERT_TRUE(affine_to_host<C>(daff[i]) == (A + B).to_affine()) << i;
    ASSERT_EQ(on[i], 1) << i;
  }
}

}  // namespace

TEST(GpuCurve, G1MatchesCpu) {
  CUZK_REQUIRE_GPU();
  check_points<ec::G1Config, gpu::G1Affine, gpu::G1Xyzz>(512, 11);
}

TEST(GpuCurve, G2MatchesCpu) {
  CUZK_REQUIRE_GPU();
  check_points<ec::G2Config, gpu::G2Affine, gpu::G2Xyzz>(256, 12);
}

TEST(GpuDevice, ScanReportsDevices) {
  const auto scan = gpu::scan_devices();
  if (scan.devices.empty()) {
    EXPECT_FALSE(scan.unavailable_reason.empty());
    GTEST_SKIP() << scan.unavailable_reason;
  }
  for (const auto& d : scan.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.total_memory, size_t{1} << 30);
  }
}
