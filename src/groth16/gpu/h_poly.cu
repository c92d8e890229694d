// H on the GPU.
//
// Snarkjs (the zkey's h points are the odd-coset Lagrange basis): per vector v in {a, b, c},
//   1. inverse NTT, natural -> bit-reversed (DIF), the store of the last pass scaling coefficient
//      k by shift^k / n (the 1/n and the coset distortion in one multiplication);
//   2. forward NTT, bit-reversed -> natural (DIT): evaluations on the coset shift * <w>;
// then a := a*b - c in one element-wise pass: 6 transforms + 1 element-wise pass.
//
// Zcash (bellperson: H's coefficients): H = coset_inverse((A_c*B_c - C_c) / Z(shift)), and since
// the coset inverse transform is linear and C has degree < n, coset_inverse(C_c) is C itself, the
// plain inverse transform of c. So only a and b go to the coset (steps 1-2 above); the pass
// q := a*b / Z(shift) stores in bit-reversed order, the coset inverse NTT runs as DIT (bit-reversed
// -> natural) with shift^-k / n fused into its last store, and a final element-wise pass subtracts
// C / Z(shift), C taken from c's unscaled inverse transform (bit-reversed, gathered). 6 transforms
// + 2 element-wise passes instead of 7 + 1; the result is the same polynomial, satisfied witness
// or not (linearity holds for any a, b, c). docs/gpu-ntt.md counts the passes over memory.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/cuda_error.hpp"
#include "gpu/fr_io.cuh"
#include "gpu/ntt.hpp"
#include "groth16/gpu/h_poly.hpp"

namespace cuzk::gpu {

namespace {

// Snarkjs: a[i] = a[i] * b[i] - c[i], natural order.
__global__ void ab_minus_c_kernel(Fr* a, const Fr* b, const Fr* c, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  store_fr(a + i, load_fr(a + i) * load_fr(b + i) - load_fr(c + i));
}

// Zcash: a[rev(i)] = a[i] * b[i] * z_inv, i.e. the quotient's evaluations (without C) written in
// bit-reversed order, so that the coset inverse transform runs as DIT straight to natural order
// and no separate bit-reversal pass is needed. Each pair (i, rev(i)) is handled by the thread of
// the smaller index (in place).
__global__ void ab_bitrev_kernel(Fr* a, const Fr* b, unsigned log_n, Fr z_inv) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << log_n)) return;
  const uint32_t r = __brev(i) >> (32 - log_n);
  if (i > r) return;
  const Fr fi = load_fr(a + i) * load_fr(b + i) * z_inv;
  if (i == r) {
    store_fr(a + i, fi);
    return;
  }
  const Fr fr = load_fr(a + r) * load_fr(b + r) * z_inv;
  store_fr(a + i, fr);
  store_fr(a + r, fi);
}

// Zcash, last pass: h[k] -= scale * c_rev[rev(k)], c_rev being n * C in bit-reversed order (the
// unscaled inverse transform of c) and scale = 1 / (n * Z(shift)). The gather reads whole 32-byte
// sectors, so it costs the same traffic as a streaming read.
__global__ void subtract_c_kernel(Fr* h, const Fr* c_rev, unsigned log_n, Fr scale) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= (1u << log_n)) return;
  const uint32_t r = __brev(k) >> (32 - log_n);
  store_fr(h + k, load_fr(h + k) - load_fr(c_rev + r) * scale);
}

void check_launch(const char* what) {
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throw_cuda_error(rc, what, __FILE__, __LINE__);
}

}  // namespace

void compute_h(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, poly::RootConvention conv, cudaStream_t stream) {
  const auto dom = GpuDomain::get(log_n, conv);
  const size_t n = dom->size();
  const poly::Domain& host = dom->host();
  // Zcash: the shift 7 (bellperson); Snarkjs: w_{2n}, the odd half of the 2n-domain (prover_zkey).
  const ff::Fr shift = host.default_coset_shift();
  const GpuDomain::Scale to_coset{true, host.size_inv(), shift};
  const GpuDomain::Scale none{};

  const bool packed = d_b == d_a + n && d_c == d_b + n;
  auto both_transforms = [&](ff::Fr* v, size_t batch) {
    dom->transform(v, batch, true, NttOrder::Natural, NttOrder::BitReversed, none, to_coset, stream);
    dom->transform(v, batch, false, NttOrder::BitReversed, NttOrder::Natural, none, none, stream);
  };
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  if (conv == poly::RootConvention::Zcash) {
    if (packed) {
      both_transforms(d_a, 2);
    } else {
      for (ff::Fr* v : {d_a, d_b}) both_transforms(v, 1);
    }
    // c: the unscaled inverse transform (n * C, bit-reversed); the scaling goes into the last pass.
    dom->transform(d_c, 1, true, NttOrder::Natural, NttOrder::BitReversed, none, none, stream);
    const ff::Fr z_inv = host.z_on_coset(shift).inverse();
    ab_bitrev_kernel<<<blocks, threads, 0, stream>>>(dev(d_a), dev(d_b), log_n, to_device_value(z_inv));
    check_launch("ab_bitrev_kernel");
    dom->coset_inverse(d_a, 1, shift, NttOrder::BitReversed, NttOrder::Natural, stream);
    subtract_c_kernel<<<blocks, threads, 0, stream>>>(dev(d_a), dev(d_c), log_n,
                                                      to_device_value(z_inv * host.size_inv()));
    check_launch("subtract_c_kernel");
  } else {
    if (packed) {
      both_transforms(d_a, 3);
    } else {
      for (ff::Fr* v : {d_a, d_b, d_c}) both_transforms(v, 1);
    }
    ab_minus_c_kernel<<<blocks, threads, 0, stream>>>(dev(d_a), dev(d_b), dev(d_c), n);
    check_launch("ab_minus_c_kernel");
  }
}

}  // namespace cuzk::gpu
