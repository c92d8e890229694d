// Throughput and agreement of the device field multiplications for Fr and Fq: the even/odd-word
// form (MontField::mul_even_odd, operator*'s default), the first-version CIOS on PTX carry chains
// (MontField::mul_cios, operator* under CUZK_GPU_MUL_CIOS=1), a plain-C++ CIOS with 64-bit
// accumulators and the FP64-limb form (Fp64Field::mul). Built with nvcc on the device itself
// (bench/device-gpu-field.sh); it needs only the header-only field code.
//
// First the peak rates of the instructions these are made of. Then correctness: on a few
// thousand inputs below p (random, plus edges: 0, 1, p-1, R mod p, words of all ones or zeros)
// every device form must give the words of a host big-integer Montgomery product. Then each
// thread runs one or two dependent chains of multiplications (x = x * y), so the figure is
// sustained multiplications per second with every SM busy, and the chains' results must agree
// too; last, chains of the even/odd and the FP64 forms side by side in one thread. Exits 1 on any
// mismatch or CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/bls12_381.cuh"
#include "gpu/mont_fp64.cuh"

using namespace cuzk::gpu;

namespace {

enum Impl { kEvenOdd, kCios, kWide, kFp64 };
constexpr int kImpls = 4;
const char* const kImplName[] = {"even/odd-word", "CIOS (first version)", "64-bit-accumulator CIOS",
                                 "FP64 52-bit limbs"};

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
  else if constexpr (I == kWide)
    return mul_wide(a, b);
  else {
    // One operand read shifted left (the FP64 form's larger radix), the result back in words.
    using G = Fp64Field<typename F::Params>;
    F r;
    G::mul(G::template from_words<G::SHIFT>(a.w), G::template from_words<0>(b.w)).to_words(r.w);
    return r;
  }
}

template <class F>
__global__ void check_kernel(const F* a, const F* b, F* out, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  out[kImpls * i + 0] = mul<kEvenOdd>(a[i], b[i]);
  out[kImpls * i + 1] = mul<kCios>(a[i], b[i]);
  out[kImpls * i + 2] = mul<kWide>(a[i], b[i]);
  out[kImpls * i + 3] = mul<kFp64>(a[i], b[i]);
}

// ILP independent chains per thread (elements i, i + n/ILP, ...): 1 measures a dependent chain's
// latency-bound rate, 2 or more how far independent work (as in a butterfly or a point addition)
// fills the pipes.
template <class F, Impl I, int ILP>
__global__ void chain_kernel(F* data, const F* y, int iters, size_t stride) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if constexpr (I == kFp64) {
    // The chains stay in the FP64 form (x below 2p), y read shifted: only the conversions at
    // the ends differ from the word forms.
    using G = Fp64Field<typename F::Params>;
    G x[ILP], m[ILP];
#pragma unroll
    for (int c = 0; c < ILP; ++c) {
      x[c] = G::template from_words<0>(data[i + c * stride].w);
      m[c] = G::template from_words<G::SHIFT>(y[i + c * stride].w);
    }
    for (int k = 0; k < iters; ++k)
#pragma unroll
      for (int c = 0; c < ILP; ++c) x[c] = G::mul(x[c], m[c]);
#pragma unroll
    for (int c = 0; c < ILP; ++c) x[c].to_words(data[i + c * stride].w);
  } else {
    F x[ILP], m[ILP];
#pragma unroll
    for (int c = 0; c < ILP; ++c) {
      x[c] = data[i + c * stride];
      m[c] = y[i + c * stride];
    }
    for (int k = 0; k < iters; ++k)
#pragma unroll
      for (int c = 0; c < ILP; ++c) x[c] = mul<I>(x[c], m[c]);
#pragma unroll
    for (int c = 0; c < ILP; ++c) data[i + c * stride] = x[c];
  }
}

// NI chains in the word form (even/odd, IMAD) beside NF chains in the FP64 form in each thread:
// the two forms load different pipes (IMAD vs FP64 + integer ALU), so a kernel that mixes them
// may run more multiplications per second than either alone.
template <class F, int NI, int NF>
__global__ void mix_kernel(F* data, const F* y, int iters, size_t stride) {
  using G = Fp64Field<typename F::Params>;
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  F xi[NI], mi[NI];
  G xf[NF], mf[NF];
#pragma unroll
  for (int c = 0; c < NI; ++c) {
    xi[c] = data[i + c * stride];
    mi[c] = y[i + c * stride];
  }
#pragma unroll
  for (int c = 0; c < NF; ++c) {
    xf[c] = G::template from_words<0>(data[i + (NI + c) * stride].w);
    mf[c] = G::template from_words<G::SHIFT>(y[i + (NI + c) * stride].w);
  }
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int c = 0; c < NI; ++c) xi[c] = F::mul_even_odd(xi[c], mi[c]);
#pragma unroll
    for (int c = 0; c < NF; ++c) xf[c] = G::mul(xf[c], mf[c]);
  }
#pragma unroll
  for (int c = 0; c < NI; ++c) data[i + c * stride] = xi[c];
#pragma unroll
  for (int c = 0; c < NF; ++c) xf[c].to_words(data[i + (NI + c) * stride].w);
}

// Copies `init` (and `ys` beside it) to the device, runs `launch(d, y)` three times from the same
// start and returns the best time in ms, the device data after the last run in `out`; -1 on a CUDA
// error.
template <class F, class Launch>
double timed_chains(const std::vector<F>& init, const std::vector<F>& ys, size_t n, std::vector<F>& out,
                    const char* what, Launch launch) {
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
    launch(d, y);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms);
  }
  out.resize(n);
  cudaMemcpy(out.data(), d, n * sizeof(F), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(y);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return cuda_ok(what) ? best : -1;
}

template <class F, int NI, int NF>
double run_mix(const std::vector<F>& init, const std::vector<F>& ys, int iters, std::vector<F>& out) {
  constexpr int C = NI + NF;
  const size_t stride = init.size() / C / 128 * 128;  // whole blocks of 128 threads
  const size_t n = stride * C;
  const double ms = timed_chains(init, ys, n, out, "mix_kernel", [&](F* d, const F* y) {
    mix_kernel<F, NI, NF><<<stride / 128, 128>>>(d, y, iters, stride);
  });
  return ms < 0 ? -1 : double(n) * iters / (ms * 1e-3) / 1e9;
}

// One multiplication per thread, nothing else: the kernels whose machine code the report
// compares (cuobjdump -sass -fun '*single_mul*' on the binary).
template <class F, Impl I>
__global__ void single_mul_kernel(F* out, const F* a, const F* b) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const F x = a[i], y = b[i];  // in registers: the asm's reads are not memory reads
  out[i] = mul<I>(x, y);
}

// The FP64 form's multiplication alone, operands already in its limbs.
template <class F, class G = Fp64Field<typename F::Params>>
__global__ void single_mul_fp64_kernel(G* out, const G* a, const G* b) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const G x = a[i], y = b[i];
  out[i] = G::mul(x, y);
}

// Peak rates of the instructions the multiplications are made of, 8 independent chains per
// thread: DFMA (the FP64 form's products), IMAD (32-bit multiply-add), IMAD.WIDE (32x32+64 -> 64)
// and IADD3 (three-input 32-bit add). Results are written so the compiler keeps the work.
enum Op { kDfma, kImad, kImadWide, kIadd3, kDfmaImad };
const char* const kOpName[] = {"DFMA", "IMAD", "IMAD.WIDE", "IADD3", "DFMA+IMAD interleaved"};

template <Op O>
__global__ void peak_kernel(double* dout, uint64_t* iout, int iters) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  double d[8];
  uint32_t u[8];
  uint64_t w[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    d[k] = 1.0 + 1e-9 * (i + k);
    u[k] = static_cast<uint32_t>(i * 8 + k);
    w[k] = i + k;
  }
  const double db = 0.999999, dc = 1e-7;
  const uint32_t ub = static_cast<uint32_t>(i) | 1u, uc = 12345u + static_cast<uint32_t>(i);
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (O == kDfma || O == kDfmaImad) d[k] = __fma_rz(d[k], db, dc);
      if constexpr (O == kImad || O == kDfmaImad) u[k] = u[k] * ub + uc;
      if constexpr (O == kImadWide) w[k] = uint64_t{static_cast<uint32_t>(w[k])} * ub + w[k];
      if constexpr (O == kIadd3) u[k] = u[k] + ub + u[(k + 1) % 8];
    }
  double ds = 0;
  uint64_t is = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    ds += d[k];
    is += u[k] + w[k];
  }
  dout[i] = ds;
  iout[i] = is;
}

template <Op O>
void peak(int sms) {
  const size_t n = size_t{1} << 20;
  const int iters = 4096;
  double* d = nullptr;
  uint64_t* u = nullptr;
  cudaMalloc(&d, n * sizeof(double));
  cudaMalloc(&u, n * sizeof(uint64_t));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < 3; ++rep) {
    cudaEventRecord(a);
    peak_kernel<O><<<n / 256, 256>>>(d, u, iters);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms);
  }
  cudaFree(d);
  cudaFree(u);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (!cuda_ok("peak_kernel")) return;
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const double ops = double(n) * iters * 8 * (O == kDfmaImad ? 2 : 1);
  const double per_s = ops / (best * 1e-3);
  std::printf("peak %-22s %7.1f G/s = %5.1f per SM per clock at %d MHz (the clock the device reports)\n", kOpName[O],
              per_s / 1e9, per_s / sms / (khz * 1e3), khz / 1000);
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
  cudaMalloc(&dout, kImpls * m * sizeof(F));
  cudaMemcpy(da, as.data(), m * sizeof(F), cudaMemcpyHostToDevice);
  cudaMemcpy(db, bs.data(), m * sizeof(F), cudaMemcpyHostToDevice);
  check_kernel<<<(m + 127) / 128, 128>>>(da, db, dout, m);
  std::vector<F> out(kImpls * m);
  cudaMemcpy(out.data(), dout, kImpls * m * sizeof(F), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  if (!cuda_ok("check_kernel")) return false;
  size_t bad[kImpls] = {};
  for (size_t i = 0; i < m; ++i) {
    const F want = mul_wide(as[i], bs[i]);  // host
    for (int k = 0; k < kImpls; ++k)
      if (std::memcmp(&out[kImpls * i + k], &want, sizeof(F)) != 0) {
        if (bad[k]++ < 3) {
          std::fprintf(stderr, "%s %s: mismatch at input %zu\n", name, kImplName[k], i);
        }
      }
  }
  std::printf("%s check on %zu products vs the host:", name, m);
  bool ok = true;
  for (int k = 0; k < kImpls; ++k) {
    std::printf("%s %s %zu wrong", k ? "," : "", kImplName[k], bad[k]);
    ok = ok && bad[k] == 0;
  }
  std::printf("\n");
  if (!ok) g_failed = true;
  return ok;
}

template <class F, Impl I, int ILP>
double run(const std::vector<F>& init, const std::vector<F>& ys, int iters, std::vector<F>& out) {
  const size_t n = init.size();
  const double ms = timed_chains(init, ys, n, out, "chain_kernel", [&](F* d, const F* y) {
    chain_kernel<F, I, ILP><<<n / ILP / 256, 256>>>(d, y, iters, n / ILP);
  });
  return ms < 0 ? -1 : double(n) * iters / (ms * 1e-3) / 1e9;  // G mul/s
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
  std::vector<F> ref;
  double g[kImpls][2] = {};
  bool same = true;
  auto record = [&](int k, int ilp, double gs, const std::vector<F>& o) {
    g[k][ilp - 1] = gs;
    if (ref.empty())
      ref = o;
    else
      same = same && std::memcmp(ref.data(), o.data(), n * sizeof(F)) == 0;
  };
  std::vector<F> o;
  record(0, 1, run<F, kEvenOdd, 1>(init, ys, iters, o), o);
  record(0, 2, run<F, kEvenOdd, 2>(init, ys, iters, o), o);
  record(1, 1, run<F, kCios, 1>(init, ys, iters, o), o);
  record(1, 2, run<F, kCios, 2>(init, ys, iters, o), o);
  record(2, 1, run<F, kWide, 1>(init, ys, iters, o), o);
  record(2, 2, run<F, kWide, 2>(init, ys, iters, o), o);
  record(3, 1, run<F, kFp64, 1>(init, ys, iters, o), o);
  record(3, 2, run<F, kFp64, 2>(init, ys, iters, o), o);
  if (!same) g_failed = true;
  for (int k = 0; k < kImpls; ++k)
    std::printf("%s mul %-24s %6.1f G/s (one chain per thread)  %6.1f G/s (two)  vs even/odd-word %.2fx / %.2fx\n",
                name, kImplName[k], g[k][0], g[k][1], g[k][0] / g[0][0], g[k][1] / g[0][1]);
  std::printf("%s chain results: %s\n", name, same ? "all equal" : "DIFFER");
  // Mixed forms in one thread; the chains' results must equal the single-form ones (on the
  // prefix that run_mix covers: whole blocks of threads).
  auto mix = [&](const char* what, double gs, const std::vector<F>& o) {
    const bool eq = std::memcmp(ref.data(), o.data(), o.size() * sizeof(F)) == 0;
    if (!eq) g_failed = true;
    std::printf("%s mul mixed %-14s %6.1f G/s  vs even/odd-word %.2fx; results %s\n", name, what, gs, gs / g[0][1],
                eq ? "equal" : "DIFFER");
  };
  mix("1 IMAD : 1 FP64", run_mix<F, 1, 1>(init, ys, iters, o), o);
  mix("2 IMAD : 1 FP64", run_mix<F, 2, 1>(init, ys, iters, o), o);
  mix("1 IMAD : 2 FP64", run_mix<F, 1, 2>(init, ys, iters, o), o);
  mix("3 IMAD : 2 FP64", run_mix<F, 3, 2>(init, ys, iters, o), o);
}

// Instantiated so that the single-multiplication kernels are in the binary.
template __global__ void single_mul_kernel<Fr, kEvenOdd>(Fr*, const Fr*, const Fr*);
template __global__ void single_mul_kernel<Fr, kCios>(Fr*, const Fr*, const Fr*);
template __global__ void single_mul_kernel<Fq, kEvenOdd>(Fq*, const Fq*, const Fq*);
template __global__ void single_mul_kernel<Fq, kCios>(Fq*, const Fq*, const Fq*);
template __global__ void single_mul_fp64_kernel<Fr>(Fp64Field<FrParams>*, const Fp64Field<FrParams>*,
                                                    const Fp64Field<FrParams>*);
template __global__ void single_mul_fp64_kernel<Fq>(Fp64Field<FqParams>*, const Fp64Field<FqParams>*,
                                                    const Fp64Field<FqParams>*);

}  // namespace

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  peak<kDfma>(sms);
  peak<kImad>(sms);
  peak<kImadWide>(sms);
  peak<kIadd3>(sms);
  peak<kDfmaImad>(sms);
  bench<FrParams>("Fr");
  bench<FqParams>("Fq");
  if (g_failed) {
    std::printf("FAILED: a multiplication disagreed or CUDA failed\n");
    return 1;
  }
  std::printf("all multiplications agree\n");
  return 0;
}
