// GPU NTT: grouped radix-2 stages in shared memory, DIF for natural input and DIT for bit-reversed
// input, a bit-reversal swap pass only where the orders demand it, scalings fused into the first
// load or the last store. See ntt.hpp and docs/gpu-ntt.md.
//
// Index conventions. n = 2^N. A DIF stage with half-size h = 2^b pairs i and i + h (bit b of i
// clear): x_i' = x_i + x_{i+h}, x_{i+h}' = (x_i - x_{i+h}) * w_{2h}^(i mod h); stages b = N-1..0
// take natural order to bit-reversed order (Gentleman-Sande, the CPU's dif_block). A DIT stage
// (b = 0..N-1) multiplies first: t = x_{i+h} * w_{2h}^(i mod h), x_i' = x_i + t, x_{i+h}' = x_i - t,
// and takes bit-reversed order to natural order (Cooley-Tukey). w_{2h}^e = w_n^(e * n/2h), read from
// one table of w_n^j, j < n/2 (TwiddleLayout::table, n/2 elements: 2 GiB at 2^27), or made from two
// small ones as lo[j mod 4096] * hi[j / 4096] (TwiddleLayout::compact, 640 KiB at 2^27: one more
// product per butterfly, reads that stay in L2); w_n^-e = -w_n^(n/2 - e) for 0 < e < n/2, so the
// inverse transform shares the tables.
//
// One kernel pass runs k consecutive stages b in [s, s+k) on blocks of E = 2^(k+c) elements: the
// 2^k values of index bits [s, s+k) times 2^c consecutive low indices (bits [0, c), c <= 3, so
// that every row a block reads is 2^c * 32 bytes contiguous), all other bits fixed by the block.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/fr_io.cuh"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {

namespace {

constexpr unsigned kMaxBlockLog = 11;  // 2048 elements = 64 KiB of shared memory per block
constexpr unsigned kCoalesceLog = 3;   // 8 consecutive elements per row in the upper passes
// Launch bound: 256 threads and 3 blocks per SM. The kernel is latency-bound (Nsight Compute at
// 2^27: 2 resident blocks of 256 threads = 25 % occupancy, issue slots 41-47 % busy), limited to 2
// blocks both by registers (82 a thread) and by shared memory (64 KiB a block under the default
// carveout); asking for 3 caps the registers at 80 and enable_large_smem asks for the largest
// shared-memory carveout.
constexpr unsigned kThreads = 256;
constexpr unsigned kMinBlocks = 3;
std::atomic<unsigned> g_pass_threads{256};
constexpr unsigned kPowLoLog = 12;  // power tables: g^k = lo[k & 4095] * hi[k >> 12]

// c * g^k for a logical index k, from two small tables (c folded into hi).
struct PowTab {
  const Fr* lo = nullptr;
  const Fr* hi = nullptr;
  bool active = false;
  bool rev = false;  // logical index = bit-reversed position
  __device__ __forceinline__ Fr at(uint32_t k) const {
    return load_fr(lo + (k & ((1u << kPowLoLog) - 1))) * load_fr(hi + (k >> kPowLoLog));
  }
};

__device__ __forceinline__ uint32_t bitrev(uint32_t i, unsigned log_n) {
  return __brev(i) >> (32 - log_n);
}

// w_n^j for j < n/2: from the full table, or lo[j mod 4096] * hi[j / 4096] (compact).
template <bool kCompact>
__device__ __forceinline__ Fr root_power(const Fr* table, const Fr* lo, const Fr* hi, uint32_t j) {
  if constexpr (kCompact) {
    return load_fr(lo + (j & ((1u << kPowLoLog) - 1))) * load_fr(hi + (j >> kPowLoLog));
  } else {
    return load_fr(table + j);
  }
}

template <bool kCompact>
__device__ __forceinline__ Fr twiddle(const Fr* table, const Fr* lo, const Fr* hi, uint32_t e, bool inv,
                                      unsigned log_n) {
  if (!inv) return root_power<kCompact>(table, lo, hi, e);
  if (e == 0) return Fr::one();
  return -root_power<kCompact>(table, lo, hi, (1u << (log_n - 1)) - e);
}

struct PassParams {
  Fr* data;
  const Fr* table;          // TwiddleLayout::table
  const Fr *tw_lo, *tw_hi;  // TwiddleLayout::compact
  unsigned log_n, s, k, c;
  bool inv;
  PowTab pre, post;
};

template <bool kDit, bool kCompact>
__global__ void __launch_bounds__(kThreads, kMinBlocks) ntt_pass_kernel(PassParams p) {
  extern __shared__ uint32_t smem[];  // word-major: word j of element l at smem[j * E + l]
  const unsigned E = 1u << (p.k + p.c);
  const uint32_t cmask = (1u << p.c) - 1;
  const uint32_t B = blockIdx.x;
  const uint32_t b_low = B & ((1u << (p.s - p.c)) - 1);
  const uint32_t b_high = B >> (p.s - p.c);
  const uint32_t base = (b_high << (p.s + p.k)) | (b_low << p.c);
  Fr* data = p.data + (size_t{blockIdx.y} << p.log_n);

  for (uint32_t l = threadIdx.x; l < E; l += blockDim.x) {
    const uint32_t i = base | ((l >> p.c) << p.s) | (l & cmask);
    Fr v = load_fr(data + i);
    if (p.pre.active) v = v * p.pre.at(p.pre.rev ? bitrev(i, p.log_n) : i);
#pragma unroll
    for (int j = 0; j < 8; ++j) smem[j * E + l] = v.w[j];
  }
  __syncthreads();

  for (unsigned step = 0; step < p.k; ++step) {
    const unsigned q = kDit ? step : p.k - 1 - step;  // stage bit within the block
    const unsigned b = p.s + q;                       // stage bit of the whole transform
    for (uint32_t u = threadIdx.x; u < E / 2; u += blockDim.x) {
      const uint32_t col = u & cmask;
      const uint32_t tt = u >> p.c;
      const uint32_t t_low = tt & ((1u << q) - 1);
      const uint32_t t0 = ((tt >> q) << (q + 1)) | t_low;
      const uint32_t l0 = (t0 << p.c) | col;
      const uint32_t l1 = l0 + (1u << (q + p.c));
      const uint32_t e = ((t_low << p.s) | (b_low << p.c) | col) << (p.log_n - 1 - b);
      Fr x0, x1;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        x0.w[j] = smem[j * E + l0];
        x1.w[j] = smem[j * E + l1];
      }
      Fr y0, y1;
      if (e == 0) {  // twiddle 1: stage b's first butterfly of every run of h
        y0 = x0 + x1;
        y1 = x0 - x1;
      } else {
        const Fr w = twiddle<kCompact>(p.table, p.tw_lo, p.tw_hi, e, p.inv, p.log_n);
        if constexpr (kDit) {
          const Fr t = x1 * w;
          y0 = x0 + t;
          y1 = x0 - t;
        } else {
          y0 = x0 + x1;
          y1 = (x0 - x1) * w;
        }
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        smem[j * E + l0] = y0.w[j];
        smem[j * E + l1] = y1.w[j];
      }
    }
    __syncthreads();
  }

  for (uint32_t l = threadIdx.x; l < E; l += blockDim.x) {
    const uint32_t i = base | ((l >> p.c) << p.s) | (l & cmask);
    Fr v;
#pragma unroll
    for (int j = 0; j < 8; ++j) v.w[j] = smem[j * E + l];
    if (p.post.active) v = v * p.post.at(p.post.rev ? bitrev(i, p.log_n) : i);
    store_fr(data + i, v);
  }
}

// In-place bit reversal of each vector, optionally scaling every value by tab.at(logical index):
// with tab.rev false the logical index is the value's position before the swap, else after it.
__global__ void bitrev_kernel(Fr* data_all, unsigned log_n, PowTab tab) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << log_n)) return;
  Fr* data = data_all + (size_t{blockIdx.y} << log_n);
  const uint32_t r = bitrev(i, log_n);
  if (i < r) {
    Fr x = load_fr(data + i), y = load_fr(data + r);
    if (tab.active) {
      x = x * tab.at(tab.rev ? r : i);  // x moves from i to r
      y = y * tab.at(tab.rev ? i : r);
    }
    store_fr(data + i, y);
    store_fr(data + r, x);
  } else if (i == r && tab.active) {
    store_fr(data + i, load_fr(data + i) * tab.at(i));
  }
}

// table[j] = lo[j & 4095] * hi[j >> 12] for j < count.
__global__ void expand_powers_kernel(Fr* table, const Fr* lo, const Fr* hi, uint32_t count) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) store_fr(table + j, load_fr(lo + (j & ((1u << kPowLoLog) - 1))) * load_fr(hi + (j >> kPowLoLog)));
}

// Host side: lo[i] = g^i (i < 4096), hi[j] = c * g^(4096 j) (j < max(1, n / 4096)).
struct HostPowTables {
  std::vector<ff::Fr> lo, hi;
};
HostPowTables host_pow_tables(const ff::Fr& c, const ff::Fr& g, size_t n) {
  HostPowTables t;
  t.lo.resize(size_t{1} << kPowLoLog);
  ff::Fr x = ff::Fr::one();
  for (auto& v : t.lo) {
    v = x;
    x *= g;
  }
  const ff::Fr step = x;  // g^4096
  t.hi.resize(std::max<size_t>(1, n >> kPowLoLog));
  ff::Fr y = c;
  for (auto& v : t.hi) {
    v = y;
    y *= step;
  }
  return t;
}

void check_launch(const char* what) {
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throw_cuda_error(rc, what, __FILE__, __LINE__);
}

struct Group {
  unsigned s, k, c;
};

// Stage groups from the lowest bits up: the bottom group (s = 0) holds up to 11 stages, the others
// up to 8 (they spend 3 bits of the block on coalescing); bits are dealt round-robin so that the
// groups are balanced (2^27 -> 11 + 8 + 8, 2^20 -> 7 + 7 + 6).
std::vector<Group> plan_groups(unsigned log_n) {
  const unsigned upper_cap = kMaxBlockLog - kCoalesceLog;
  unsigned groups = 1;
  if (log_n > kMaxBlockLog) groups += (log_n - kMaxBlockLog + upper_cap - 1) / upper_cap;
  std::vector<unsigned> k(groups, 0);
  unsigned left = log_n;
  while (left > 0) {
    for (unsigned g = 0; g < groups && left > 0; ++g) {
      if (k[g] < (g == 0 ? kMaxBlockLog : upper_cap)) {
        ++k[g];
        --left;
      }
    }
  }
  std::vector<Group> out;
  unsigned s = 0;
  for (unsigned g = 0; g < groups; ++g) {
    out.push_back({s, k[g], s == 0 ? 0u : std::min(s, kCoalesceLog)});
    s += k[g];
  }
  return out;
}

int current_device() {
  int dev = 0;
  CUZK_CUDA_CHECK(cudaGetDevice(&dev));
  return dev;
}

// Blocks of 2048 elements need 64 KiB of dynamic shared memory (opt-in above 48 KiB). Set on the
// current device each time a domain is built there (cheap; covers every device a process uses).
template <bool kDit, bool kCompact>
void enable_large_smem() {
  CUZK_CUDA_CHECK(cudaFuncSetAttribute(ntt_pass_kernel<kDit, kCompact>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (1 << kMaxBlockLog) * 32));
  CUZK_CUDA_CHECK(cudaFuncSetAttribute(ntt_pass_kernel<kDit, kCompact>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
}

using RawKey = std::array<uint64_t, 8>;

}  // namespace

namespace detail {

struct GpuDomainState {
  unsigned log_n = 0;
  poly::RootConvention conv{};
  poly::Domain host;
  int device = 0;
  TwiddleLayout layout = TwiddleLayout::table;
  DeviceBuffer<Fr> table;         // w^j, j < n/2 (TwiddleLayout::table)
  DeviceBuffer<Fr> tw_lo, tw_hi;  // w^j = tw_lo[j mod 4096] * tw_hi[j / 4096] (TwiddleLayout::compact)
  std::vector<Group> groups;

  // Power tables of (c, g) pairs, built on first use.
  struct Pow {
    DeviceBuffer<Fr> lo, hi;
  };
  mutable std::mutex mu;
  mutable std::map<RawKey, std::shared_ptr<const Pow>> pows;

  explicit GpuDomainState(poly::Domain d) : host(std::move(d)) {}

  // `keep` holds the tables until the caller has enqueued its kernels: an eviction by another call
  // then only drops the map's reference, and the final cudaFree synchronizes the device.
  PowTab pow_tab(const GpuDomain::Scale& sc, bool rev, std::shared_ptr<const Pow>& keep) const {
    PowTab t;
    if (!sc.active) return t;
    RawKey key{};
    std::memcpy(key.data(), sc.c.raw().data(), 32);
    std::memcpy(key.data() + 4, sc.g.raw().data(), 32);
    std::lock_guard lk(mu);
    auto it = pows.find(key);
    if (it == pows.end()) {
      if (pows.size() >= 64) pows.clear();  // bounded: H uses 3 scalings per domain
      const HostPowTables h = host_pow_tables(sc.c, sc.g, size_t{1} << log_n);
      auto p = std::make_shared<Pow>();
      p->lo = DeviceBuffer<Fr>(h.lo.size());
      p->hi = DeviceBuffer<Fr>(h.hi.size());
      // Pageable source: synchronous copies, so the tables are complete before any stream uses them.
      CUZK_CUDA_CHECK(cudaMemcpy(p->lo.data(), h.lo.data(), h.lo.size() * 32, cudaMemcpyHostToDevice));
      CUZK_CUDA_CHECK(cudaMemcpy(p->hi.data(), h.hi.data(), h.hi.size() * 32, cudaMemcpyHostToDevice));
      CUZK_CUDA_CHECK(cudaDeviceSynchronize());
      it = pows.emplace(key, std::move(p)).first;
    }
    keep = it->second;
    t.lo = it->second->lo.data();
    t.hi = it->second->hi.data();
    t.active = true;
    t.rev = rev;
    return t;
  }
};

}  // namespace detail

std::shared_ptr<const GpuDomain> GpuDomain::get(unsigned log_n, poly::RootConvention conv, TwiddleLayout layout) {
  if (log_n < 1 || log_n > poly::kMaxLogDomainSize) {
    throw std::invalid_argument("gpu::GpuDomain: log size " + std::to_string(log_n) + " outside 1.." +
                                std::to_string(poly::kMaxLogDomainSize));
  }
  static std::mutex mu;
  static std::map<std::tuple<int, unsigned, int, int>, std::shared_ptr<const GpuDomain>> cache;
  const int dev = current_device();
  std::lock_guard lk(mu);
  auto key = std::make_tuple(dev, log_n, static_cast<int>(conv), static_cast<int>(layout));
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  auto st = std::make_unique<detail::GpuDomainState>(poly::Domain::create(size_t{1} << log_n, conv).value());
  st->log_n = log_n;
  st->conv = conv;
  st->device = dev;
  st->layout = layout;
  st->groups = plan_groups(log_n);
  const uint32_t half = 1u << (log_n - 1);
  {
    const HostPowTables h = host_pow_tables(ff::Fr::one(), st->host.omega(), half);
    st->tw_lo = DeviceBuffer<Fr>(h.lo.size());
    st->tw_hi = DeviceBuffer<Fr>(h.hi.size());
    CUZK_CUDA_CHECK(cudaMemcpy(st->tw_lo.data(), h.lo.data(), h.lo.size() * 32, cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(st->tw_hi.data(), h.hi.data(), h.hi.size() * 32, cudaMemcpyHostToDevice));
    if (layout == TwiddleLayout::table) {
      st->table = DeviceBuffer<Fr>(half);
      // Legacy default stream: ordered after the copies above.
      expand_powers_kernel<<<(half + 255) / 256, 256>>>(st->table.data(), st->tw_lo.data(), st->tw_hi.data(), half);
      check_launch("expand_powers_kernel");
    }
    // The tables are complete before any other stream can use them.
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  enable_large_smem<false, false>();
  enable_large_smem<true, false>();
  enable_large_smem<false, true>();
  enable_large_smem<true, true>();
  std::shared_ptr<const GpuDomain> d(new GpuDomain(std::move(st)));
  cache.emplace(key, d);
  return d;
}

GpuDomain::GpuDomain(std::unique_ptr<detail::GpuDomainState> st) : st_(std::move(st)) {}
GpuDomain::~GpuDomain() = default;

size_t GpuDomain::size() const {
  return size_t{1} << st_->log_n;
}
unsigned GpuDomain::log_size() const {
  return st_->log_n;
}
poly::RootConvention GpuDomain::convention() const {
  return st_->conv;
}
TwiddleLayout GpuDomain::twiddle_layout() const {
  return st_->layout;
}
uint64_t GpuDomain::twiddle_bytes(unsigned log_n, TwiddleLayout layout) {
  const uint64_t half = uint64_t{1} << (log_n - 1);
  const uint64_t small = (uint64_t{1} << kPowLoLog) + std::max<uint64_t>(1, half >> kPowLoLog);
  return 32 * (small + (layout == TwiddleLayout::table ? half : 0));
}
const poly::Domain& GpuDomain::host() const {
  return st_->host;
}

namespace {

void launch_bitrev(Fr* d, unsigned log_n, size_t batch, const PowTab& tab, cudaStream_t stream) {
  const uint32_t n = 1u << log_n;
  const dim3 grid((n + 255) / 256, static_cast<unsigned>(batch));
  bitrev_kernel<<<grid, 256, 0, stream>>>(d, log_n, tab);
  check_launch("bitrev_kernel");
}

void check_batch(size_t batch) {
  if (batch == 0 || batch > 65535) {
    throw std::invalid_argument("gpu NTT: batch must be between 1 and 65535, got " + std::to_string(batch));
  }
}

}  // namespace

void set_ntt_pass_threads(unsigned threads) {
  if (threads != 128 && threads != kThreads) {
    throw std::invalid_argument("gpu::set_ntt_pass_threads: 128 or 256, got " + std::to_string(threads));
  }
  g_pass_threads.store(threads);
}

void bit_reverse(ff::Fr* d_data, unsigned log_n, size_t batch, cudaStream_t stream) {
  check_batch(batch);
  if (log_n < 1 || log_n > 31) throw std::invalid_argument("gpu::bit_reverse: log_n must be in 1..31");
  launch_bitrev(dev(d_data), log_n, batch, PowTab{}, stream);
}

void GpuDomain::transform(ff::Fr* d_data, size_t batch, bool inverse_roots, NttOrder in, NttOrder out, const Scale& pre,
                          const Scale& post, cudaStream_t stream) const {
  check_batch(batch);
  Fr* d = dev(d_data);
  const unsigned log_n = st_->log_n;
  const bool dit = in == NttOrder::BitReversed;  // DIT: bit-reversed -> natural; DIF: natural -> bit-reversed
  const NttOrder produced = dit ? NttOrder::Natural : NttOrder::BitReversed;
  const bool swap_after = produced != out;
  // Logical (natural) index of a value: its position when that side is in natural order.
  std::shared_ptr<const detail::GpuDomainState::Pow> keep_pre, keep_post;
  PowTab pre_tab = st_->pow_tab(pre, in == NttOrder::BitReversed, keep_pre);
  PowTab post_tab;
  if (swap_after) {
    // The swap takes `produced` to `out`; its scaling index is the position on the natural side.
    post_tab = st_->pow_tab(post, out == NttOrder::Natural, keep_post);
  } else {
    post_tab = st_->pow_tab(post, out == NttOrder::BitReversed, keep_post);
  }

  const std::vector<Group>& gs = st_->groups;
  const size_t np = gs.size();
  for (size_t pi = 0; pi < np; ++pi) {
    const Group& g = dit ? gs[pi] : gs[np - 1 - pi];
    PassParams pp{};
    pp.data = d;
    pp.table = st_->table.data();
    pp.tw_lo = st_->tw_lo.data();
    pp.tw_hi = st_->tw_hi.data();
    pp.log_n = log_n;
    pp.s = g.s;
    pp.k = g.k;
    pp.c = g.c;
    pp.inv = inverse_roots;
    if (pi == 0) pp.pre = pre_tab;
    if (pi + 1 == np && !swap_after) pp.post = post_tab;
    const unsigned elems = 1u << (g.k + g.c);
    const unsigned threads = std::min(g_pass_threads.load(std::memory_order_relaxed), std::max(1u, elems / 2));
    const dim3 grid(1u << (log_n - g.k - g.c), static_cast<unsigned>(batch));
    const size_t shmem = size_t{elems} * 32;
    const bool compact = st_->layout == TwiddleLayout::compact;
    const auto kernel = dit ? (compact ? ntt_pass_kernel<true, true> : ntt_pass_kernel<true, false>)
                            : (compact ? ntt_pass_kernel<false, true> : ntt_pass_kernel<false, false>);
    kernel<<<grid, threads, shmem, stream>>>(pp);
    check_launch("ntt_pass_kernel");
  }
  if (swap_after) launch_bitrev(d, log_n, batch, post_tab, stream);
}

void GpuDomain::forward(ff::Fr* d_data, size_t batch, NttOrder in, NttOrder out, cudaStream_t stream) const {
  transform(d_data, batch, false, in, out, Scale{}, Scale{}, stream);
}

void GpuDomain::inverse(ff::Fr* d_data, size_t batch, NttOrder in, NttOrder out, cudaStream_t stream) const {
  transform(d_data, batch, true, in, out, Scale{}, Scale{true, st_->host.size_inv(), ff::Fr::one()}, stream);
}

void GpuDomain::coset_forward(ff::Fr* d_data, size_t batch, const ff::Fr& shift, NttOrder in, NttOrder out,
                              cudaStream_t stream) const {
  transform(d_data, batch, false, in, out, Scale{true, ff::Fr::one(), shift}, Scale{}, stream);
}

void GpuDomain::coset_inverse(ff::Fr* d_data, size_t batch, const ff::Fr& shift, NttOrder in, NttOrder out,
                              cudaStream_t stream) const {
  if (shift.is_zero()) throw std::invalid_argument("gpu::GpuDomain::coset_inverse: the coset shift must be non-zero");
  transform(d_data, batch, true, in, out, Scale{}, Scale{true, st_->host.size_inv(), shift.inverse()}, stream);
}

}  // namespace cuzk::gpu
