#pragma once
// The curve-dependent half of the GPU MSM (bucket accumulation, bucket and window reduction, the
// sum of the bases whose scalar is 1) and the host driver, instantiated once per group by
// msm_g1.cu and msm_g2.cu so that the two compile in parallel.
//
// Work and floor (per MSM of m scalars other than 0 and 1, window c, W = ceil(256/c) windows,
// B = 2^(c-1) buckets per window):
//   bucket accumulation: W*m mixed XYZZ additions, reading W*m bases (96 B on G1, 192 B on G2)
//     in random order; the sorted (key, value) pairs are 8 B each, read once by the accumulation,
//     written and read 3-4 times by the radix sort (c <= 22 bits: 3 passes);
//   bucket reduction: 2*W*B XYZZ additions (segmented running sums) plus a c-bit scalar
//     multiplication per segment; window combination: W*c doublings on the CPU.
//   Example G1 m = 2^26, c = 22, W = 12: 805 M mixed additions (~11 Fq multiplications each,
//   ~8.9 G Fq multiplications) and 50 M full additions; 77 GB of random base reads. The
//   multiplications are the floor: the accumulation is compute-bound.
#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/curve.cuh"
#include "gpu/curve_ool.cuh"
#include "gpu/msm.hpp"
#include "gpu/msm_affine.cuh"
#include "gpu/msm_internal.hpp"

namespace cuzk::gpu {
namespace msm_detail {

template <class C>
struct DevCurveOf;
template <>
struct DevCurveOf<ec::G1Config> {
  using type = G1Curve;
};
template <>
struct DevCurveOf<ec::G2Config> {
  using type = G2Curve;
};

constexpr unsigned kBlock = 128;
constexpr uint64_t kNoKey = ~uint64_t{0};

inline size_t blocks_for(size_t n, unsigned block = kBlock) {
  return (n + block - 1) / block;
}

// Bucket accumulation over equal slices of the W*m sorted pairs (window w holds pairs
// [w*m, (w+1)*m), sorted by digit). A run of equal (window, digit) is a bucket; digit 0 is
// skipped. A run wholly inside the slice goes straight to its bucket; a run that continues into
// the next slice is left in tail[t] (this slice started it) or head[t] (it came from the previous
// slice) for fixup_kernel. Slicing, rather than a thread per bucket, keeps the threads equally
// loaded whatever the digit distribution (repeated scalars pile into one bucket).
// kPrefetch: the next pair's base is loaded before the current addition (loads retire
// asynchronously, so the random gather overlaps the arithmetic instead of stalling the warp).
template <class C, bool kPrefetch>
__global__ void accumulate_kernel(const AffinePoint<C>* bases, const uint32_t* keys, const uint32_t* vals, size_t m,
                                  size_t total, size_t slice, uint32_t B, XyzzPoint<C>* buckets, XyzzPoint<C>* head,
                                  uint64_t* head_key, XyzzPoint<C>* tail, uint64_t* tail_key) {
  using Xyzz = XyzzPoint<C>;
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const size_t start = t * slice;
  if (start >= total) return;
  const size_t end = min(start + slice, total);
  const uint64_t stride = uint64_t{B} + 1;
  auto full_key = [&](size_t p) { return (p / m) * stride + keys[p]; };
  head_key[t] = kNoKey;
  tail_key[t] = kNoKey;

  uint64_t w = start / m;
  size_t wend = (w + 1) * m;
  uint64_t cur = w * stride + keys[start];
  bool first = true;
  const bool from_left = start > 0 && full_key(start - 1) == cur;
  Xyzz acc = Xyzz::identity();
  auto flush = [&](uint64_t key, bool left, bool right) {
    if (key % stride == 0) return;  // digit 0
    if (left) {
      head[t] = acc;
      head_key[t] = key;
    } else if (right) {
      tail[t] = acc;
      tail_key[t] = key;
    } else {
      buckets[(key / stride) * B + key % stride - 1] = acc;
    }
  };
  const auto* abases = reinterpret_cast<const Aligned16<AffinePoint<C>>*>(bases);
  auto base = [&](uint32_t v) { return abases[v & ~kNegBit].p; };
  // With kPrefetch, pair p + 1 (digit, value, base) is loaded while pair p is added.
  uint32_t d_next = 0, v_next = 0;
  AffinePoint<C> q_next;
  if constexpr (kPrefetch) {
    d_next = keys[start];
    v_next = vals[start];
    if (d_next != 0) q_next = base(v_next);
  }
  for (size_t p = start; p < end; ++p) {
    if (p == wend) {
      ++w;
      wend += m;
    }
    uint32_t d, v = 0;
    AffinePoint<C> q;
    if constexpr (kPrefetch) {
      d = d_next, v = v_next, q = q_next;
      if (p + 1 < end) {
        d_next = keys[p + 1];
        v_next = vals[p + 1];
        if (d_next != 0) q_next = base(v_next);
      }
    } else {
      d = keys[p];
    }
    const uint64_t key = w * stride + d;
    if (key != cur) {
      flush(cur, first && from_left, false);
      acc = Xyzz::identity();
      cur = key;
      first = false;
    }
    if (d != 0) {
      if constexpr (!kPrefetch) {
        v = vals[p];
        q = base(v);
      }
      if (v & kNegBit) q = -q;
      // Inlined on both curves: on G2 the out-of-line call (kept for compile time until then) ran
      // 2x slower (its ABI spills the 384-byte accumulator); the inlined Fq2 formula adds ~20 s of
      // ptxas to msm_g2.cu.
      acc = acc.add_affine(q);
    }
  }
  const bool to_right = end < total && full_key(end) == cur;
  flush(cur, first && from_left, to_right);
}

// Completes the buckets that span slices: the slice that started the run adds the heads of the
// following slices while they continue it.
template <class C>
__global__ void fixup_kernel(size_t slices, uint32_t B, XyzzPoint<C>* buckets, const XyzzPoint<C>* head,
                             const uint64_t* head_key, const XyzzPoint<C>* tail, const uint64_t* tail_key) {
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (t >= slices || tail_key[t] == kNoKey) return;
  const uint64_t key = tail_key[t], stride = uint64_t{B} + 1;
  XyzzPoint<C> acc = tail[t];
  for (size_t s = t + 1; s < slices && head_key[s] == key; ++s) acc = add_ool(acc, head[s]);
  buckets[(key / stride) * B + key % stride - 1] = acc;
}

// The reduction's full addition: inlined on G1 (cheap to compile, no call overhead), out of line
// on G2 (compile time).
template <class C>
__device__ __forceinline__ XyzzPoint<C> add_reduce(const XyzzPoint<C>& a, const XyzzPoint<C>& b) {
  if constexpr (std::is_same_v<C, G1Curve>)
    return a.add(b);
  else
    return add_ool(a, b);
}

// Window reduction, step 1: thread (w, s) takes buckets of digits s*K+1 .. s*K+K of window w and
// returns sum_d d * bucket_d over them: a running sum from the top gives sum (d - s*K) bucket_d,
// the rest is (s*K) * (sum of the buckets), a short double-and-add.
template <class C>
__global__ void reduce_segments_kernel(const XyzzPoint<C>* buckets, uint32_t B, uint32_t K, size_t total,
                                       XyzzPoint<C>* out) {
  using Xyzz = XyzzPoint<C>;
  const size_t id = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (id >= total) return;
  const uint32_t segs = B / K;
  const size_t w = id / segs;
  const uint32_t s = static_cast<uint32_t>(id % segs);
  const Xyzz* b = buckets + w * B + size_t{s} * K;
  Xyzz run = Xyzz::identity(), sum = Xyzz::identity();
  for (int j = static_cast<int>(K) - 1; j >= 0; --j) {
    run = add_reduce(run, b[j]);
    sum = add_reduce(sum, run);
  }
  const uint32_t k = s * K;
  if (k != 0) {
    Xyzz mul = Xyzz::identity();
    for (int bit = 31 - __clz(k); bit >= 0; --bit) {
      mul = dbl_ool(mul);
      if ((k >> bit) & 1) mul = add_ool(mul, run);
    }
    sum = add_ool(sum, mul);
  }
  out[id] = sum;
}

// Window reduction, step 2 (and the sum of the 1-scalars): groups of `group` points, halved in
// place: p[g*group + i] += p[g*group + i + half] for i < half.
template <class C>
__global__ void halve_kernel(XyzzPoint<C>* p, size_t groups, size_t group, size_t half) {
  const size_t id = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (id >= groups * half) return;
  const size_t g = id / half, i = id % half;
  p[g * group + i] = add_ool(p[g * group + i], p[g * group + i + half]);
}

// The bases whose scalar is 1: thread t sums indices t, t + T, ... (T threads).
template <class C>
__global__ void sum_listed_kernel(const AffinePoint<C>* bases, const uint32_t* idx, size_t n, size_t threads,
                                  XyzzPoint<C>* out) {
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (t >= threads) return;
  XyzzPoint<C> acc = XyzzPoint<C>::identity();
  for (size_t i = t; i < n; i += threads) acc = add_affine_ool(acc, bases[idx[i]]);
  out[t] = acc;
}

// Rows 1.. of a precomputed window table from row 0 (the bases): row w = [2^(c*w)] P, by c
// doublings per row from the row before, stored affine (one inversion per point and row; a
// one-time cost when the bases are loaded).
template <class C>
__global__ void table_rows_kernel(AffinePoint<C>* table, size_t n, unsigned rows, unsigned c) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  XyzzPoint<C> acc = XyzzPoint<C>::from_affine(table[i]);
  for (unsigned w = 1; w < rows; ++w) {
    for (unsigned k = 0; k < c; ++k) acc = dbl_ool(acc);
    table[w * n + i] = acc.to_affine();
  }
}

template <class T>
void grow(DeviceBuffer<T>& b, size_t n) {
  if (b.size() < n) {
    b = DeviceBuffer<T>();  // free first: the peak stays at one copy
    b = DeviceBuffer<T>(n);
  }
}

template <class C>
void halve_groups(XyzzPoint<C>* p, size_t groups, size_t group, cudaStream_t s) {
  for (size_t half = group / 2; half >= 1; half /= 2) {
    halve_kernel<C><<<blocks_for(groups * half), kBlock, 0, s>>>(p, groups, group, half);
    CUZK_CUDA_CHECK(cudaGetLastError());
  }
}

inline size_t pow2_floor(size_t x) {
  return x == 0 ? 0 : std::bit_floor(x);
}

// Host field element from the device words (identical layouts).
template <class HF, class DF>
HF host_field(const DF& d) {
  static_assert(sizeof(HF) == sizeof(DF) && std::is_trivially_copyable_v<HF>, "host and device layouts differ");
  HF h;
  std::memcpy(static_cast<void*>(&h), &d, sizeof d);
  return h;
}

// XYZZ (x = X/ZZ, y = Y/ZZZ) to Jacobian (x = X'/Z'^2, y = Y'/Z'^3) without an inversion:
// Z' = ZZZ, X' = X*ZZ^2, Y' = Y*ZZZ^2 (using ZZ^3 = ZZZ^2).
template <class HC, class DC>
ec::Jacobian<HC> to_host_jacobian(const XyzzPoint<DC>& p) {
  using HF = typename HC::Base;
  const HF zz = host_field<HF>(p.ZZ), zzz = host_field<HF>(p.ZZZ);
  if (zz.is_zero()) return ec::Jacobian<HC>::identity();
  return ec::Jacobian<HC>(host_field<HF>(p.X) * zz.square(), host_field<HF>(p.Y) * zzz.square(), zzz);
}

}  // namespace msm_detail

template <class C>
DeviceBases<C>::DeviceBases(size_t n) : buf_(n * kBytesPerBase), n_(n) {}

template <class C>
DeviceBases<C>::DeviceBases(std::span<const HostAffine> bases) : DeviceBases(bases.size()) {
  upload(0, bases);
}

template <class C>
void DeviceBases<C>::upload(size_t first, std::span<const HostAffine> bases) {
  using DA = AffinePoint<typename msm_detail::DevCurveOf<C>::type>;
  static_assert(sizeof(DA) == kBytesPerBase, "device affine layout");
  static_assert(sizeof(typename C::Base) == sizeof(typename DA::F), "host and device field layouts differ");
  if (first > n_ || bases.size() > n_ - first)
    throw std::out_of_range("DeviceBases::upload: [" + std::to_string(first) + ", " +
                            std::to_string(first + bases.size()) + ") is past the " + std::to_string(n_) + " bases");
  if (bases.empty()) return;
  // Converted (flag dropped: identity = (0, 0)) through a pinned staging buffer in chunks.
  constexpr size_t kChunk = size_t{1} << 16;
  PinnedBuffer<DA> stage(std::min(kChunk, bases.size()));
  for (size_t off = 0; off < bases.size(); off += kChunk) {
    const size_t k = std::min(kChunk, bases.size() - off);
    for (size_t i = 0; i < k; ++i) {
      const HostAffine& h = bases[off + i];
      DA& d = stage.data()[i];
      if (h.is_identity()) {
        std::memset(static_cast<void*>(&d), 0, sizeof d);
      } else {
        std::memcpy(static_cast<void*>(&d.x), &h.x, sizeof d.x);
        std::memcpy(static_cast<void*>(&d.y), &h.y, sizeof d.y);
      }
    }
    CUZK_CUDA_CHECK(
        cudaMemcpy(buf_.data() + (first + off) * kBytesPerBase, stage.data(), k * sizeof(DA), cudaMemcpyHostToDevice));
  }
}

template <class C>
DeviceBasesView<C> DeviceBases<C>::view(size_t first, size_t count) const {
  if (first > n_ || count > n_ - first)
    throw std::out_of_range("DeviceBases::view: [" + std::to_string(first) + ", " + std::to_string(first + count) +
                            ") is past the " + std::to_string(n_) + " bases");
  DeviceBasesView<C> v{buf_.data() + first * kBytesPerBase, count};
  if (table_bits_ != 0) {
    v.table = table_.data() + first * kBytesPerBase;
    v.table_stride = n_;
    v.table_bits = table_bits_;
  }
  return v;
}

template <class C>
size_t DeviceBases<C>::bytes_for_table(size_t n, unsigned window_bits) {
  return size_t{msm_detail::num_windows(window_bits)} * n * kBytesPerBase;
}

template <class C>
void DeviceBases<C>::precompute(unsigned window_bits) {
  using DA = AffinePoint<typename msm_detail::DevCurveOf<C>::type>;
  if (window_bits < 2 || window_bits > 24)
    throw std::invalid_argument("DeviceBases::precompute: window_bits must be in 2..24, got " +
                                std::to_string(window_bits));
  const unsigned rows = msm_detail::num_windows(window_bits);
  if (size_t{rows} * n_ >= (size_t{1} << 31))
    throw std::invalid_argument("DeviceBases::precompute: " + std::to_string(rows) + " rows of " + std::to_string(n_) +
                                " bases exceed the 2^31 indices a sorted pair holds; use wider windows");
  drop_table();
  if (n_ == 0) return;
  DeviceBuffer<std::byte> t(bytes_for_table(n_, window_bits));
  CUZK_CUDA_CHECK(cudaMemcpy(t.data(), buf_.data(), n_ * kBytesPerBase, cudaMemcpyDeviceToDevice));
  msm_detail::table_rows_kernel<typename msm_detail::DevCurveOf<C>::type>
      <<<msm_detail::blocks_for(n_), msm_detail::kBlock>>>(reinterpret_cast<DA*>(t.data()), n_, rows, window_bits);
  CUZK_CUDA_CHECK(cudaGetLastError());
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  table_ = std::move(t);
  table_bits_ = window_bits;
}

template <class C>
struct Msm<C>::Impl {
  using DC = typename msm_detail::DevCurveOf<C>::type;
  using Xyzz = XyzzPoint<DC>;
  using DAffine = AffinePoint<DC>;
  static constexpr unsigned kMaxWindows = msm_detail::num_windows(2);

  Stream stream;
  Event ev_start, ev_uploaded, ev_done;
  DeviceBuffer<uint32_t> scalars, nt_scal, nt_idx, one_idx, counts{2}, dens_prefix;
  DeviceBuffer<uint64_t> density;
  DeviceBuffer<uint32_t> keys_in, keys_out, vals_in, vals_out;
  DeviceBuffer<std::byte> sort_temp;
  DeviceBuffer<Xyzz> buckets, head, tail, partial, ones_partial;
  DeviceBuffer<uint64_t> head_key, tail_key;
  DeviceBuffer<DAffine> aff_pts[2];  // batch-affine rounds: ping-pong item buffers
  DeviceBuffer<uint32_t> aff_keys[2];
  DeviceBuffer<DAffine> flush_pts;  // one round's flushed items (msm_affine.cuh FlushList)
  DeviceBuffer<uint32_t> flush_keys, flush_count{1};
  PinnedBuffer<uint32_t> host_counts{2};
  PinnedBuffer<Xyzz> host_points{kMaxWindows + 1};
  GpuMsmStats stats;
  int sms = msm_detail::sm_count();
  // Measured on the H200 (BENCHMARKS.md, W1.5 "accumulation tuning"): prefetching the next base
  // gains ~4 % on G1 (204 registers, no spills) and loses ~2x on G2 (the extra 192 bytes spill);
  // the reduction runs best with segments of at most 256 buckets and ~256 threads per SM (more
  // threads cost more segment scalings and halving levels than they gain in latency hiding).
  static constexpr bool kIsG1 = std::is_same_v<C, ec::G1Config>;
  static constexpr uint32_t kMaxSegment = 256;
  bool prefetch = msm_detail::prefetch_bases(kIsG1);
  unsigned reduce_threads_per_sm = msm_detail::reduce_threads_per_sm(256);
  int accumulate_blocks_per_sm = 0;
  int affine_blocks_per_sm[2] = {0, 0};  // round 1 (from the pairs), later rounds; 0 = not yet asked
  int items_blocks_per_sm = 0;
  // This run's GpuMsmOptions::affine_chunk / affine_rounds (0: auto).
  size_t affine_chunk = kIsG1 ? msm_detail::kAffineChunkG1 : msm_detail::kAffineChunkG2;
  unsigned affine_rounds = 0;

  Impl() {
    CUZK_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&accumulate_blocks_per_sm, accumulate(), msm_detail::kBlock, 0));
    accumulate_blocks_per_sm = std::max(accumulate_blocks_per_sm, 1);
  }
  auto accumulate() const {
    return prefetch ? msm_detail::accumulate_kernel<DC, true> : msm_detail::accumulate_kernel<DC, false>;
  }

  // on_device: `scalars_in` is a device pointer used in place (Montgomery form); `after`: a stream
  // whose queued work the MSM waits for first.
  Point run(DeviceBasesView<C> bases, const void* scalars_in, size_t n, bool mont, const GpuMsmOptions& opt,
            bool on_device = false, cudaStream_t after = nullptr);
  void accumulate_pass(const DAffine* dbases, DeviceBasesView<C> bases, size_t m, unsigned c, unsigned w0, unsigned g,
                       bool table, size_t k);
  void accumulate_affine(const DAffine* pair_bases, size_t seg, size_t total, uint32_t B, unsigned rounds,
                         size_t flush_cap, Xyzz* pass_buckets);
  template <class Items>
  void affine_round(int& blocks_per_sm, Items in, size_t n, DAffine* out_pts, uint32_t* out_keys, size_t flush_cap,
                    Xyzz* pass_buckets);
  void reduce_windows(unsigned sums, unsigned c, Xyzz* out);
  // n pairs or items cut into equal slices for one wave of threads (at least 8 each), the head and
  // tail buffers grown to the slice count, which is returned; `slice` receives the slice length.
  size_t slice_up(size_t n, int blocks_per_sm, size_t& slice) {
    const size_t wave = size_t{static_cast<unsigned>(sms)} * blocks_per_sm * msm_detail::kBlock;
    slice = std::max<size_t>(8, (n + wave - 1) / wave);
    const size_t slices = (n + slice - 1) / slice;
    msm_detail::grow(head, slices);
    msm_detail::grow(tail, slices);
    msm_detail::grow(head_key, slices);
    msm_detail::grow(tail_key, slices);
    return slices;
  }
  Event ev_after;
  std::deque<Event> pass_events;  // sorted, accumulated: two per pass (a deque: Events do not move)
};

template <class C>
typename Msm<C>::Point Msm<C>::Impl::run(DeviceBasesView<C> bases, const void* scalars_in, size_t n, bool mont,
                                         const GpuMsmOptions& opt, bool on_device, cudaStream_t after) {
  using namespace msm_detail;
  const char* what = std::is_same_v<C, ec::G1Config> ? "gpu::Msm<G1>" : "gpu::Msm<G2>";
  if (n >= (size_t{1} << 31)) throw std::invalid_argument(std::string(what) + ": at most 2^31 - 1 scalars");
  size_t taking = n;
  std::vector<uint32_t> prefix;
  if (opt.density) {
    const size_t words = (n + 63) / 64;
    if (opt.density->size() < words)
      throw std::invalid_argument(std::string(what) + ": density bitmap has " + std::to_string(opt.density->size()) +
                                  " words, " + std::to_string(n) + " scalars need " + std::to_string(words));
    prefix.resize(words);
    taking = 0;
    for (size_t k = 0; k < words; ++k) {
      prefix[k] = static_cast<uint32_t>(taking);
      uint64_t word = (*opt.density)[k];
      if (k == words - 1 && n % 64 != 0) word &= (uint64_t{1} << (n % 64)) - 1;
      taking += static_cast<size_t>(std::popcount(word));
    }
  }
  if (bases.size != taking)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(bases.size) + " bases for " +
                                std::to_string(taking) + " scalars" + (opt.density ? " (density bits set)" : ""));
  if (opt.window_bits != 0 && (opt.window_bits < 2 || opt.window_bits > 22) && opt.window_bits != bases.table_bits)
    throw std::invalid_argument(std::string(what) + ": window_bits must be 0 (auto), in 2..22 or the table's width");
  stats = GpuMsmStats{};
  stats.scalars = taking;
  if (taking == 0) return Point::identity();

  const cudaStream_t s = stream.get();
  const auto* dbases = reinterpret_cast<const DAffine*>(bases.data);
  if (on_device) {
    ev_after.record(after);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(s, ev_after.get(), 0));
  }
  ev_start.record(s);
  const uint32_t* d_scalars = static_cast<const uint32_t*>(scalars_in);
  if (!on_device) {
    grow(scalars, 8 * n);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(scalars.data(), scalars_in, 32 * n, cudaMemcpyHostToDevice, s));
    d_scalars = scalars.data();
  }
  if (opt.density) {
    grow(density, prefix.size());
    grow(dens_prefix, prefix.size());
    CUZK_CUDA_CHECK(cudaMemcpyAsync(density.data(), opt.density->data(), prefix.size() * 8, cudaMemcpyHostToDevice, s));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(dens_prefix.data(), prefix.data(), prefix.size() * 4, cudaMemcpyHostToDevice, s));
  }
  ev_uploaded.record(s);

  grow(nt_scal, 8 * taking);
  grow(nt_idx, taking);
  grow(one_idx, taking);
  CUZK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(uint32_t), s));
  launch_classify(d_scalars, n, mont, opt.density ? density.data() : nullptr,
                  opt.density ? dens_prefix.data() : nullptr, nt_scal.data(), nt_idx.data(), one_idx.data(),
                  counts.data(), s);
  CUZK_CUDA_CHECK(cudaMemcpyAsync(host_counts.data(), counts.data(), 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
  stream.sync();  // the sizes below depend on the counts
  const size_t m = host_counts.data()[0], ones = host_counts.data()[1];
  stats.nontrivial = m;
  stats.ones = ones;

  Xyzz* hp = host_points.data();
  if (ones > 0) {
    // Threads summing >= 16 points each, a power of two for the halving tree.
    const size_t threads = std::clamp<size_t>(pow2_floor(ones / 16), 1, size_t{1} << 14);
    grow(ones_partial, threads);
    sum_listed_kernel<DC>
        <<<blocks_for(threads), kBlock, 0, s>>>(dbases, one_idx.data(), ones, threads, ones_partial.data());
    CUZK_CUDA_CHECK(cudaGetLastError());
    halve_groups<DC>(ones_partial.data(), 1, threads, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(hp + kMaxWindows, ones_partial.data(), sizeof(Xyzz), cudaMemcpyDeviceToHost, s));
  }
  unsigned c = 0, W = 0, sums = 0;
  const bool table = bases.table != nullptr && (opt.window_bits == 0 || opt.window_bits == bases.table_bits);
  if (m > 0) {
    c = table ? bases.table_bits : opt.window_bits ? opt.window_bits : choose_window_bits(m);
    W = num_windows(c);
    // With the table every window's digits address their own row ([2^(c*w)] P), so all W*m pairs
    // form one segment with one set of buckets and one window sum (one pass); otherwise W segments
    // of m, in passes of G windows.
    sums = table ? 1 : W;
    const unsigned G = table ? W : windows_per_pass(m, W, opt.max_pairs_per_pass);
    affine_chunk = opt.affine_chunk ? opt.affine_chunk : kIsG1 ? kAffineChunkG1 : kAffineChunkG2;
    affine_rounds = opt.affine_rounds;
    stats.passes = (W + G - 1) / G;
    while (pass_events.size() < 2 * size_t{stats.passes}) pass_events.emplace_back();
    // Every window keeps its bucket set until one reduction of all of them at the end (a pass of
    // fewer windows would give the latency-bound reduction fewer threads).
    const size_t all_buckets = size_t{sums} << (c - 1);
    grow(buckets, all_buckets);
    CUZK_CUDA_CHECK(cudaMemsetAsync(buckets.data(), 0, all_buckets * sizeof(Xyzz), s));  // ZZ = 0: identity
    for (unsigned w0 = 0, k = 0; w0 < W; w0 += G, ++k)
      accumulate_pass(dbases, bases, m, c, w0, std::min(G, W - w0), table, k);
    reduce_windows(sums, c, hp);
  }
  ev_done.record(s);
  ev_done.sync();
  stats.window_bits = c;
  stats.windows = W;
  stats.table = table && m > 0;
  stats.upload_ms = ev_uploaded.elapsed_ms_since(ev_start);
  stats.compute_ms = ev_done.elapsed_ms_since(ev_uploaded);
  const Event* begin = &ev_uploaded;  // classify and the ones' sum count as the first pass's preparation
  for (unsigned k = 0; k < stats.passes; ++k) {
    const Event& sorted = pass_events[2 * k];
    const Event& accumulated = pass_events[2 * k + 1];
    stats.prepare_ms += sorted.elapsed_ms_since(*begin);
    stats.accumulate_ms += accumulated.elapsed_ms_since(sorted);
    begin = &accumulated;
  }
  if (m > 0) stats.reduce_ms = ev_done.elapsed_ms_since(*begin);

  // Horner over the window sums on the CPU: c doublings per window (one sum and none with the table).
  Point acc = Point::identity();
  for (unsigned w = sums; w-- > 0;) {
    for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
    acc += to_host_jacobian<C>(hp[w]);
  }
  if (ones > 0) acc += to_host_jacobian<C>(hp[kMaxWindows]);
  return acc;
}

// Windows w0 .. w0 + g - 1 (all W of them with a table): recode, sort, and accumulate into those
// windows' bucket sets (one set for all with a table); pass_events[2k], [2k + 1] are recorded after
// the sort and after the accumulation.
template <class C>
void Msm<C>::Impl::accumulate_pass(const DAffine* dbases, DeviceBasesView<C> bases, size_t m, unsigned c, unsigned w0,
                                   unsigned g, bool table, size_t k) {
  using namespace msm_detail;
  const bool affine = affine_accumulation(false);
  const cudaStream_t s = stream.get();
  const size_t seg = table ? g * m : m;
  const uint32_t B = 1u << (c - 1);
  const size_t total = g * m;
  grow(keys_in, total);
  grow(vals_in, total);
  grow(keys_out, total);
  grow(vals_out, total);
  launch_recode(nt_scal.data(), nt_idx.data(), m, c, w0, g, keys_in.data(), vals_in.data(),
                table ? bases.table_stride : 0, s);
  const size_t temp = sort_temp_bytes(seg, c);
  grow(sort_temp, temp);
  sort_windows(sort_temp.data(), temp, keys_in.data(), keys_out.data(), vals_in.data(), vals_out.data(), seg, c,
               table ? 1 : g, s);
  pass_events[2 * k].record(s);

  Xyzz* pass_buckets = buckets.data() + (table ? 0 : size_t{w0} * B);
  const DAffine* pair_bases = table ? reinterpret_cast<const DAffine*>(bases.table) : dbases;
  // Batch-affine when asked for and the buckets are full enough for a round to halve their items.
  const size_t chunk = std::min(total, affine_chunk);
  const size_t chunk_buckets = size_t{table ? 1 : std::min<size_t>(g, (chunk + m - 1) / m)} * B;
  const unsigned rounds = !affine ? 0 : affine_rounds ? affine_rounds : auto_affine_rounds(chunk, chunk_buckets);
  if (rounds > 0) {
    // A round flushes at most one item per bucket of the windows its chunk touches.
    const size_t flush_cap = size_t{table ? 1 : std::min<size_t>(g, (chunk + m - 1) / m + 1)} * B;
    accumulate_affine(pair_bases, seg, total, B, rounds, flush_cap, pass_buckets);
    pass_events[2 * k + 1].record(s);
    return;
  }
  size_t slice = 0;
  const size_t slices = slice_up(total, accumulate_blocks_per_sm, slice);
  accumulate()<<<blocks_for(slices), kBlock, 0, s>>>(pair_bases, keys_out.data(), vals_out.data(), seg, total, slice, B,
                                                     pass_buckets, head.data(), head_key.data(), tail.data(),
                                                     tail_key.data());
  CUZK_CUDA_CHECK(cudaGetLastError());
  fixup_kernel<DC><<<blocks_for(slices), kBlock, 0, s>>>(slices, B, pass_buckets, head.data(), head_key.data(),
                                                         tail.data(), tail_key.data());
  CUZK_CUDA_CHECK(cudaGetLastError());
  pass_events[2 * k + 1].record(s);
}

// Batch-affine accumulation of a pass's `total` sorted pairs (msm_affine.cuh): chunk by chunk, `rounds` rounds of
// pairwise affine sums, then the remaining items by equal slices in XYZZ, added into the buckets.
template <class C>
void Msm<C>::Impl::accumulate_affine(const DAffine* pair_bases, size_t seg, size_t total, uint32_t B, unsigned rounds,
                                     size_t flush_cap, Xyzz* pass_buckets) {
  using namespace msm_detail;
  const cudaStream_t s = stream.get();
  const size_t chunk = std::min(total, affine_chunk);
  stats.affine_rounds = rounds;
  grow(aff_pts[0], (chunk + 1) / 2);
  grow(aff_keys[0], (chunk + 1) / 2);
  if (rounds > 1) {
    grow(aff_pts[1], (chunk + 3) / 4);
    grow(aff_keys[1], (chunk + 3) / 4);
  }
  flush_cap = std::min(flush_cap, (chunk + 1) / 2);
  grow(flush_pts, flush_cap);
  grow(flush_keys, flush_cap);
  if (items_blocks_per_sm == 0) {
    CUZK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &items_blocks_per_sm, accumulate_items_kernel<DC, ArrayItems<DC>>, kBlock, 0));
    items_blocks_per_sm = std::max(items_blocks_per_sm, 1);
  }
  for (size_t lo = 0; lo < total; lo += chunk) {
    size_t n = std::min(chunk, total - lo);
    affine_round(affine_blocks_per_sm[0], PairItems<DC>{pair_bases, keys_out.data(), vals_out.data(), lo, seg, B}, n,
                 aff_pts[0].data(), aff_keys[0].data(), flush_cap, pass_buckets);
    n = (n + 1) / 2;
    unsigned cur = 0;
    for (unsigned r = 1; r < rounds && n > 1; ++r) {
      affine_round(affine_blocks_per_sm[1], ArrayItems<DC>{aff_pts[cur].data(), aff_keys[cur].data()}, n,
                   aff_pts[cur ^ 1].data(), aff_keys[cur ^ 1].data(), flush_cap, pass_buckets);
      n = (n + 1) / 2;
      cur ^= 1;
    }
    size_t slice = 0;
    const size_t slices = slice_up(n, items_blocks_per_sm, slice);
    const ArrayItems<DC> left{aff_pts[cur].data(), aff_keys[cur].data()};
    accumulate_items_kernel<DC><<<blocks_for(slices), kBlock, 0, s>>>(left, n, slice, pass_buckets, head.data(),
                                                                      head_key.data(), tail.data(), tail_key.data());
    CUZK_CUDA_CHECK(cudaGetLastError());
    fixup_items_kernel<DC><<<blocks_for(slices), kBlock, 0, s>>>(slices, pass_buckets, head.data(), head_key.data(),
                                                                 tail.data(), tail_key.data());
    CUZK_CUDA_CHECK(cudaGetLastError());
  }
}

// One round over n items into ceil(n/2): about one wave of threads, each with a run of pairs
// (the longer the run, the more pairs share the warp's inversion).
template <class C>
template <class Items>
void Msm<C>::Impl::affine_round(int& blocks_per_sm, Items in, size_t n, DAffine* out_pts, uint32_t* out_keys,
                                size_t flush_cap, Xyzz* pass_buckets) {
  using namespace msm_detail;
  const cudaStream_t s = stream.get();
  const auto kernel = affine_round_kernel<DC, Items>;
  if (blocks_per_sm == 0) {
    CUZK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kBlock, 0));
    blocks_per_sm = std::max(blocks_per_sm, 1);
  }
  const size_t pairs = (n + 1) / 2;
  const size_t wave = size_t{static_cast<unsigned>(sms)} * blocks_per_sm * kBlock;
  const size_t per_thread = (pairs + wave - 1) / wave;
  const size_t threads = (pairs + per_thread - 1) / per_thread;
  CUZK_CUDA_CHECK(cudaMemsetAsync(flush_count.data(), 0, sizeof(uint32_t), s));
  const FlushList<DC> flushed{flush_pts.data(), flush_keys.data(), flush_count.data()};
  kernel<<<blocks_for(threads), kBlock, 0, s>>>(in, n, per_thread, out_pts, out_keys, flushed);
  CUZK_CUDA_CHECK(cudaGetLastError());
  const size_t most = std::min(flush_cap, pairs);
  flush_list_kernel<DC>
      <<<blocks_for(most), kBlock, 0, s>>>(flush_pts.data(), flush_keys.data(), flush_count.data(), most, pass_buckets);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

// The `sums` bucket sets to one point each, copied to `out` (pinned host memory).
template <class C>
void Msm<C>::Impl::reduce_windows(unsigned sums, unsigned c, Xyzz* out) {
  using namespace msm_detail;
  const cudaStream_t s = stream.get();
  const uint32_t B = 1u << (c - 1);
  // Segments of K buckets: about one wave of threads for the whole reduction, K <= kMaxSegment.
  const size_t want = size_t{static_cast<unsigned>(sms)} * reduce_threads_per_sm;
  const uint32_t K = static_cast<uint32_t>(
      std::clamp<size_t>(std::bit_ceil((size_t{sums} * B + want - 1) / want), 1, std::min(B, kMaxSegment)));
  const size_t segs = B / K;
  grow(partial, sums * segs);
  reduce_segments_kernel<DC>
      <<<blocks_for(sums * segs), kBlock, 0, s>>>(buckets.data(), B, K, sums * segs, partial.data());
  CUZK_CUDA_CHECK(cudaGetLastError());
  halve_groups<DC>(partial.data(), sums, segs, s);
  // Window sums: the first point of each group.
  CUZK_CUDA_CHECK(cudaMemcpy2DAsync(out, sizeof(Xyzz), partial.data(), segs * sizeof(Xyzz), sizeof(Xyzz), sums,
                                    cudaMemcpyDeviceToHost, s));
}

template <class C>
Msm<C>::Msm() : impl_(std::make_unique<Impl>()) {}
template <class C>
Msm<C>::~Msm() = default;
template <class C>
Msm<C>::Msm(Msm&&) noexcept = default;
template <class C>
Msm<C>& Msm<C>::operator=(Msm&&) noexcept = default;

template <class C>
typename Msm<C>::Point Msm<C>::run(DeviceBasesView<C> bases, std::span<const ff::Fr> scalars,
                                   const GpuMsmOptions& opt) {
  static_assert(sizeof(ff::Fr) == 32, "Fr must be 4 raw 64-bit limbs");
  return impl_->run(bases, scalars.data(), scalars.size(), true, opt);
}
template <class C>
typename Msm<C>::Point Msm<C>::run_canonical(DeviceBasesView<C> bases, std::span<const ff::Limbs<4>> scalars,
                                             const GpuMsmOptions& opt) {
  static_assert(sizeof(ff::Limbs<4>) == 32, "Limbs<4> must be 32 bytes");
  return impl_->run(bases, scalars.data(), scalars.size(), false, opt);
}
template <class C>
typename Msm<C>::Point Msm<C>::run_device(DeviceBasesView<C> bases, const ff::Fr* d_scalars, size_t n,
                                          const GpuMsmOptions& opt, cudaStream_t after) {
  return impl_->run(bases, d_scalars, n, true, opt, true, after);
}
template <class C>
const GpuMsmStats& Msm<C>::stats() const {
  return impl_->stats;
}

}  // namespace cuzk::gpu
