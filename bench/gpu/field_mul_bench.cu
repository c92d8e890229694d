// Throughput of the device field multiplication (src/gpu/mont_field.cuh) against a plain-C++
// CIOS variant with 64-bit accumulators, for Fr and Fq. Built with nvcc on the device itself
// (bench/device-gpu-field.sh); it needs only the header-only field code.
//
// Each thread runs a dependent chain of multiplications on its own value (x = x * y), so the
// figure is sustained multiplications per second with every SM busy; the results are checked to
// agree between the two implementations.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu/bls12_381.cuh"

using namespace cuzk::gpu;

namespace {

// The same CIOS as MontField::operator*, with 64-bit accumulators instead of PTX carry chains.
template <class P>
__device__ __forceinline__ MontField<P> mul_wide(const MontField<P>& a, const MontField<P>& b) {
  constexpr int N = P::N;
  uint32_t t[N + 1];
#pragma unroll
  for (int i = 0; i < N + 1; ++i) t[i] = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    uint64_t c = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const uint64_t s = uint64_t{a.w[j]} * b.w[i] + t[j] + c;
      t[j] = static_cast<uint32_t>(s);
      c = s >> 32;
    }
    const uint64_t top = uint64_t{t[N]} + c;
    const uint32_t m = t[0] * P::INV;
    uint64_t s = uint64_t{m} * P::mod(0) + t[0];
    c = s >> 32;
#pragma unroll
    for (int j = 1; j < N; ++j) {
      s = uint64_t{m} * P::mod(j) + t[j] + c;
      t[j - 1] = static_cast<uint32_t>(s);
      c = s >> 32;
    }
    const uint64_t s2 = top + c;
    t[N - 1] = static_cast<uint32_t>(s2);
    t[N] = static_cast<uint32_t>(s2 >> 32);
  }
  MontField<P> r;
#pragma unroll
  for (int i = 0; i < N; ++i) r.w[i] = t[i];
  MontField<P>::reduce_once(r.w);
  return r;
}

template <class F, bool kWide>
__global__ void chain_kernel(F* data, const F* y, int iters) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  F x = data[i];
  const F m = y[i];
  for (int k = 0; k < iters; ++k) {
    if constexpr (kWide)
      x = mul_wide(x, m);
    else
      x = x * m;
  }
  data[i] = x;
}

template <class F, bool kWide>
double run(const std::vector<F>& init, const std::vector<F>& ys, int iters, std::vector<F>& out) {
  const size_t n = init.size();
  F *d = nullptr, *y = nullptr;
  cudaMalloc(&d, n * sizeof(F));
  cudaMalloc(&y, n * sizeof(F));
  cudaMemcpy(y, ys.data(), n * sizeof(F), cudaMemcpyHostToDevice);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < 3; ++rep) {
    cudaMemcpy(d, init.data(), n * sizeof(F), cudaMemcpyHostToDevice);
    cudaEventRecord(a);
    chain_kernel<F, kWide><<<n / 256, 256>>>(d, y, iters);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  out.resize(n);
  cudaMemcpy(out.data(), d, n * sizeof(F), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(y);
  if (cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "CUDA error\n");
    return -1;
  }
  return double(n) * iters / (best * 1e-3) / 1e9;  // G mul/s
}

template <class F>
void bench(const char* name) {
  const size_t n = size_t{1} << 22;  // 4 M threads: every SM saturated
  const int iters = 256;
  std::vector<F> init(n), ys(n);
  uint32_t s = 12345;
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < F::N; ++k) {
      s = s * 1664525u + 1013904223u;
      init[i].w[k] = s;
      s = s * 1664525u + 1013904223u;
      ys[i].w[k] = s;
    }
  // Keep inputs below the modulus: clear the top word's high bits (values < 2^(32N-3) < p is not
  // guaranteed, but the Montgomery chain stays consistent for any input < 2^(32N-1)).
  for (size_t i = 0; i < n; ++i) {
    init[i].w[F::N - 1] &= 0x0fffffff;
    ys[i].w[F::N - 1] &= 0x0fffffff;
  }
  std::vector<F> o1, o2;
  const double g1 = run<F, false>(init, ys, iters, o1);
  const double g2 = run<F, true>(init, ys, iters, o2);
  const bool same = std::memcmp(o1.data(), o2.data(), n * sizeof(F)) == 0;
  std::printf("%s mul: PTX carry-chain CIOS %.1f G/s, 64-bit-accumulator CIOS %.1f G/s, results %s\n", name, g1, g2,
              same ? "equal" : "DIFFER");
}

}  // namespace

int main() {
  bench<Fr>("Fr");
  bench<Fq>("Fq");
  return 0;
}
