// Throughput and agreement of the device field multiplications for Fr and Fq: the even/odd-word
// form (MontField::mul_even_odd, operator*'s default), the first-version CIOS on PTX carry chains
// (MontField::mul_cios, operator* under CUZK_GPU_MUL_CIOS=1) and a plain-C++ CIOS with 64-bit
// accumulators. Built with nvcc on the device itself (bench/device-gpu-field.sh); it needs only
// the header-only field code.
//
// Correctness first: on a few thousand inputs below p (random, plus edges: 0, 1, p-1, R mod p,
// words of all ones or zeros) all three device forms must give the words of a host big-integer
// Montgomery product. Then each thread runs a dependent chain of multiplications on its own value
// (x = x * y), so the figure is sustained multiplications per second with every SM busy, and the
// chains' results must agree too. Exits 1 on any mismatch or CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/bls12_381.cuh"

using namespace cuzk::gpu;

namespace {

enum Impl { kEvenOdd, kCios, kWide };
const char* const kImplName[] = {"even/odd-word", "CIOS (first version)", "64-bit-accumulator CIOS"};

bool g_failed = false;

bool cuda_ok(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
  g_failed = true;
  return false;
}

// CIOS with 64-bit accumulators, host and device; the final subtraction in plain C++ too.
template <class P>
__host__ __device__ __forceinline__ MontField<P> mul_wide(const MontField<P>& a, const MontField<P>& b) {
  constexpr int N = P::N;
  uint32_t t[N + 1];
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
  // t < 2p: subtract p when t >= p.
  uint32_t d[N];
  int64_t borrow = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int64_t v = int64_t{t[i]} - P::mod(i) + borrow;
    d[i] = static_cast<uint32_t>(v);
    borrow = v >> 32;  // 0 or -1
  }
  const bool ge = t[N] != 0 || borrow == 0;
  MontField<P> r;
  for (int i = 0; i < N; ++i) r.w[i] = ge ? d[i] : t[i];
  return r;
}

template <Impl I, class F>
__device__ __forceinline__ F mul(const F& a, const F& b) {
  if constexpr (I == kEvenOdd)
    return F::mul_even_odd(a, b);
  else if constexpr (I == kCios)
    return F::mul_cios(a, b);
  else
    return mul_wide(a, b);
}

template <class F>
__global__ void check_kernel(const F* a, const F* b, F* out, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  out[3 * i + 0] = mul<kEvenOdd>(a[i], b[i]);
  out[3 * i + 1] = mul<kCios>(a[i], b[i]);
  out[3 * i + 2] = mul<kWide>(a[i], b[i]);
}

template <class F, Impl I>
__global__ void chain_kernel(F* data, const F* y, int iters) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  F x = data[i];
  const F m = y[i];
  for (int k = 0; k < iters; ++k) x = mul<I>(x, m);
  data[i] = x;
}

// One multiplication per thread, nothing else: the kernels whose machine code the report
// compares (cuobjdump -sass -fun '*single_mul*' on the binary).
template <class F, Impl I>
__global__ void single_mul_kernel(F* out, const F* a, const F* b) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const F x = a[i], y = b[i];  // in registers: the asm's reads are not memory reads
  out[i] = mul<I>(x, y);
}

// A uniformly random value below p (rejection on the top word's range).
template <class P>
MontField<P> random_below_p(std::mt19937_64& rng) {
  constexpr int N = P::N;
  for (;;) {
    MontField<P> r;
    for (int k = 0; k < N; ++k) r.w[k] = static_cast<uint32_t>(rng());
    r.w[N - 1] %= P::mod(N - 1) + 1;
    bool less = false;
    for (int k = N - 1; k >= 0; --k)
      if (r.w[k] != P::mod(k)) {
        less = r.w[k] < P::mod(k);
        break;
      }
    if (less) return r;
  }
}

template <class P>
std::vector<MontField<P>> check_inputs(std::mt19937_64& rng, size_t n) {
  constexpr int N = P::N;
  using F = MontField<P>;
  std::vector<F> v;
  F x{};
  v.push_back(x);  // 0
  x.w[0] = 1;
  v.push_back(x);  // 1
  for (int k = 0; k < N; ++k) x.w[k] = P::mod(k);
  x.w[0] -= 1;  // p - 1 (the low words of both moduli are nonzero)
  v.push_back(x);
  x.w[0] -= 1;  // p - 2
  v.push_back(x);
  for (int k = 0; k < N; ++k) x.w[k] = P::one(k);
  v.push_back(x);  // R mod p
  for (int k = 0; k < N; ++k) x.w[k] = P::r2(k);
  v.push_back(x);  // R^2 mod p
  // Words of all ones or zeros below a top word under p's.
  for (int t = 0; t < 64; ++t) {
    for (int k = 0; k < N - 1; ++k) x.w[k] = (rng() & 1) ? 0xffffffffu : (rng() & 1) ? 0u : 1u;
    x.w[N - 1] = P::mod(N - 1) - 1 - static_cast<uint32_t>(rng() % 2);
    v.push_back(x);
  }
  while (v.size() < n) v.push_back(random_below_p<P>(rng));
  return v;
}

template <class P>
bool check(const char* name) {
  using F = MontField<P>;
  std::mt19937_64 rng(P::N);
  const size_t n = 4096;
  const std::vector<F> a = check_inputs<P>(rng, n);
  std::vector<F> b = a;
  std::shuffle(b.begin(), b.end(), rng);
  // Pairs (a, b), then (a, a): squares of the edge values too.
  std::vector<F> as = a, bs = b;
  as.insert(as.end(), a.begin(), a.end());
  bs.insert(bs.end(), a.begin(), a.end());
  const size_t m = as.size();
  F *da = nullptr, *db = nullptr, *dout = nullptr;
  cudaMalloc(&da, m * sizeof(F));
  cudaMalloc(&db, m * sizeof(F));
  cudaMalloc(&dout, 3 * m * sizeof(F));
  cudaMemcpy(da, as.data(), m * sizeof(F), cudaMemcpyHostToDevice);
  cudaMemcpy(db, bs.data(), m * sizeof(F), cudaMemcpyHostToDevice);
  check_kernel<<<(m + 127) / 128, 128>>>(da, db, dout, m);
  std::vector<F> out(3 * m);
  cudaMemcpy(out.data(), dout, 3 * m * sizeof(F), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  if (!cuda_ok("check_kernel")) return false;
  size_t bad[3] = {0, 0, 0};
  for (size_t i = 0; i < m; ++i) {
    const F want = mul_wide(as[i], bs[i]);  // host
    for (int k = 0; k < 3; ++k)
      if (std::memcmp(&out[3 * i + k], &want, sizeof(F)) != 0) {
        if (bad[k]++ < 3) {
          std::fprintf(stderr, "%s %s: mismatch at input %zu\n", name, kImplName[k], i);
        }
      }
  }
  std::printf("%s check on %zu products vs the host: %s %zu wrong, %s %zu wrong, %s %zu wrong\n", name, m, kImplName[0],
              bad[0], kImplName[1], bad[1], kImplName[2], bad[2]);
  const bool ok = bad[0] == 0 && bad[1] == 0 && bad[2] == 0;
  if (!ok) g_failed = true;
  return ok;
}

template <class F, Impl I>
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
    chain_kernel<F, I><<<n / 256, 256>>>(d, y, iters);
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
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (!cuda_ok("chain_kernel")) return -1;
  return double(n) * iters / (best * 1e-3) / 1e9;  // G mul/s
}

template <class P>
void bench(const char* name) {
  using F = MontField<P>;
  if (!check<P>(name)) return;
  const size_t n = size_t{1} << 22;  // 4 M threads: every SM saturated
  const int iters = 256;
  std::vector<F> init(n), ys(n);
  std::mt19937_64 rng(12345);
  for (size_t i = 0; i < n; ++i) {
    init[i] = random_below_p<P>(rng);
    ys[i] = random_below_p<P>(rng);
  }
  std::vector<F> o[3];
  const double g0 = run<F, kEvenOdd>(init, ys, iters, o[0]);
  const double g1 = run<F, kCios>(init, ys, iters, o[1]);
  const double g2 = run<F, kWide>(init, ys, iters, o[2]);
  const bool same = std::memcmp(o[0].data(), o[1].data(), n * sizeof(F)) == 0 &&
                    std::memcmp(o[0].data(), o[2].data(), n * sizeof(F)) == 0;
  if (!same) g_failed = true;
  std::printf("%s mul: %s %.1f G/s, %s %.1f G/s (new/old %.2fx), %s %.1f G/s; chain results %s\n", name, kImplName[0],
              g0, kImplName[1], g1, g1 > 0 ? g0 / g1 : 0.0, kImplName[2], g2, same ? "equal" : "DIFFER");
}

// Instantiated so that the single-multiplication kernels are in the binary.
template __global__ void single_mul_kernel<Fr, kEvenOdd>(Fr*, const Fr*, const Fr*);
template __global__ void single_mul_kernel<Fr, kCios>(Fr*, const Fr*, const Fr*);
template __global__ void single_mul_kernel<Fq, kEvenOdd>(Fq*, const Fq*, const Fq*);
template __global__ void single_mul_kernel<Fq, kCios>(Fq*, const Fq*, const Fq*);

}  // namespace

int main() {
  bench<FrParams>("Fr");
  bench<FqParams>("Fq");
  if (g_failed) {
    std::printf("FAILED: a multiplication disagreed or CUDA failed\n");
    return 1;
  }
  std::printf("all multiplications agree\n");
  return 0;
}
