// H on the GPU. Per vector v in {a, b, c}:
//   1. inverse NTT, natural -> bit-reversed (DIF), the store of the last pass scaling coefficient
//      k by shift^k / n (the 1/n and the coset distortion in one multiplication);
//   2. forward NTT, bit-reversed -> natural (DIT): evaluations on the coset shift * <w>.
// Then a := a*b - c (times 1/Z(shift) for Zcash) in one element-wise pass, and for Zcash the coset
// inverse NTT (DIF, then a bit-reversal pass that also applies shift^-k / n). No separate scaling
// or permutation pass exists between the transforms: 2 * 3 transforms + 1 element-wise pass for
// Snarkjs, plus one transform and one permutation for Zcash (docs/gpu-ntt.md counts the passes).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/cuda_error.hpp"
#include "gpu/fr_io.cuh"
#include "gpu/h_poly.hpp"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {

namespace {

// a[i] = (a[i] * b[i] - c[i]) * s (s = 1/Z on the coset; skipped when scale is false).
__global__ void ab_minus_c_kernel(Fr* a, const Fr* b, const Fr* c, size_t n, Fr s, bool scale) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  Fr v = load_fr(a + i) * load_fr(b + i) - load_fr(c + i);
  if (scale) v = v * s;
  store_fr(a + i, v);
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
  if (packed) {
    both_transforms(d_a, 3);
  } else {
    for (ff::Fr* v : {d_a, d_b, d_c}) both_transforms(v, 1);
  }

  const bool zcash = conv == poly::RootConvention::Zcash;
  const ff::Fr z_inv = zcash ? host.z_on_coset(shift).inverse() : ff::Fr::one();
  const unsigned threads = 256;
  ab_minus_c_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(
      dev(d_a), dev(d_b), dev(d_c), n, to_device_value(z_inv), zcash);
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throw_cuda_error(rc, "ab_minus_c_kernel", __FILE__, __LINE__);

  if (zcash) dom->coset_inverse(d_a, 1, shift, NttOrder::Natural, NttOrder::Natural, stream);
}

}  // namespace cuzk::gpu
