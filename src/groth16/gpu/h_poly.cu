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

#include <memory>
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

// The Zcash steps (h_steps), each on `batch` vectors n apart where it transforms.
struct ZcashH {
  std::shared_ptr<const GpuDomain> dom;
  size_t n;
  ff::Fr shift, z_inv;
  unsigned threads = 256, blocks;

  ZcashH(unsigned log_n, TwiddleLayout tw)
      : dom(GpuDomain::get(log_n, poly::RootConvention::Zcash, tw)),
        n(dom->size()),
        shift(dom->host().default_coset_shift()),  // 7 (bellperson)
        z_inv(dom->host().z_on_coset(shift).inverse()),
        blocks(static_cast<unsigned>((n + threads - 1) / threads)) {}

  void coset(ff::Fr* v, size_t batch, cudaStream_t stream) const {
    const GpuDomain::Scale to_coset{true, dom->host().size_inv(), shift};
    dom->transform(v, batch, true, NttOrder::Natural, NttOrder::BitReversed, {}, to_coset, stream);
    dom->transform(v, batch, false, NttOrder::BitReversed, NttOrder::Natural, {}, {}, stream);
  }
  void quotient(ff::Fr* a, const ff::Fr* b, cudaStream_t stream) const {
    ab_bitrev_kernel<<<blocks, threads, 0, stream>>>(dev(a), dev(b), dom->log_size(), to_device_value(z_inv));
    check_launch("ab_bitrev_kernel");
  }
  // c: the unscaled inverse transform (n * C, bit-reversed); the scaling goes into finish().
  void c_coefficients(ff::Fr* c, cudaStream_t stream) const {
    dom->transform(c, 1, true, NttOrder::Natural, NttOrder::BitReversed, {}, {}, stream);
  }
  void finish(ff::Fr* a, const ff::Fr* c, cudaStream_t stream) const {
    dom->coset_inverse(a, 1, shift, NttOrder::BitReversed, NttOrder::Natural, stream);
    subtract_c_kernel<<<blocks, threads, 0, stream>>>(dev(a), dev(c), dom->log_size(),
                                                      to_device_value(z_inv * dom->host().size_inv()));
    check_launch("subtract_c_kernel");
  }
};

void compute_h_snarkjs(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, TwiddleLayout tw, cudaStream_t stream) {
  const auto dom = GpuDomain::get(log_n, poly::RootConvention::Snarkjs, tw);
  const size_t n = dom->size();
  // w_{2n}: the odd half of the 2n-domain (prover_zkey).
  const GpuDomain::Scale to_coset{true, dom->host().size_inv(), dom->host().default_coset_shift()};
  auto both_transforms = [&](ff::Fr* v, size_t batch) {
    dom->transform(v, batch, true, NttOrder::Natural, NttOrder::BitReversed, {}, to_coset, stream);
    dom->transform(v, batch, false, NttOrder::BitReversed, NttOrder::Natural, {}, {}, stream);
  };
  if (d_b == d_a + n && d_c == d_b + n) {
    both_transforms(d_a, 3);
  } else {
    for (ff::Fr* v : {d_a, d_b, d_c}) both_transforms(v, 1);
  }
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  ab_minus_c_kernel<<<blocks, threads, 0, stream>>>(dev(d_a), dev(d_b), dev(d_c), n);
  check_launch("ab_minus_c_kernel");
}

}  // namespace

void compute_h(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, poly::RootConvention conv, cudaStream_t stream,
               TwiddleLayout tw) {
  if (conv != poly::RootConvention::Zcash) return compute_h_snarkjs(d_a, d_b, d_c, log_n, tw, stream);
  const ZcashH h(log_n, tw);
  if (d_b == d_a + h.n && d_c == d_b + h.n) {
    h.coset(d_a, 2, stream);
  } else {
    h.coset(d_a, 1, stream);
    h.coset(d_b, 1, stream);
  }
  h.c_coefficients(d_c, stream);
  h.quotient(d_a, d_b, stream);
  h.finish(d_a, d_c, stream);
}

namespace h_steps {
void coset(ff::Fr* d_v, unsigned log_n, cudaStream_t stream, TwiddleLayout tw) {
  ZcashH(log_n, tw).coset(d_v, 1, stream);
}
void quotient(ff::Fr* d_a, const ff::Fr* d_b, unsigned log_n, cudaStream_t stream, TwiddleLayout tw) {
  ZcashH(log_n, tw).quotient(d_a, d_b, stream);
}
void c_coefficients(ff::Fr* d_c, unsigned log_n, cudaStream_t stream, TwiddleLayout tw) {
  ZcashH(log_n, tw).c_coefficients(d_c, stream);
}
void finish(ff::Fr* d_a, const ff::Fr* d_c, unsigned log_n, cudaStream_t stream, TwiddleLayout tw) {
  ZcashH(log_n, tw).finish(d_a, d_c, stream);
}
}  // namespace h_steps

}  // namespace cuzk::gpu
