#pragma once
// Batch-affine bucket accumulation (GpuMsmOptions / [tuning] gpu_msm_affine): the sorted (bucket,
// point) pairs of a pass are summed by rounds of pairwise affine additions that share one field
// inversion per warp (Montgomery's trick), instead of one XYZZ mixed addition per pair.
//
// Why: an affine addition with its inversion shared costs ~6 Fq multiplications (3 for the trick,
// slope, its square, y) against 10 for the mixed XYZZ addition (madd-2008-s), and the
// accumulation is multiplication-bound (docs/gpu-msm.md, "Work and floor"). The price is memory
// traffic: each round reads its items and writes half as many.
//
// Items: an affine point and a key (the bucket in this pass's bucket sets, or kNullKey for digit
// 0). A round turns n items into ceil(n/2): items 2j and 2j+1 of one bucket become their sum;
// when the keys differ, item 2j is its bucket's last item in this round and is listed to be added
// into the bucket's XYZZ accumulator after the round ("flushed"), and item 2j+1 goes on. The items
// of a bucket stay contiguous, so at most one pair per bucket and round flushes (no two threads of
// the flush kernel touch a bucket). After a few rounds (about log2 of the items per bucket: each
// round halves the items while the buckets still hold several) the remaining items are summed per
// bucket by equal slices in XYZZ (as the plain accumulation does) and added into the buckets.
//
// Each round ends in a field inversion whose latency (~570 dependent multiplications) no other
// work of the round hides, so rounds are few and chunks large (kAffineChunkG1/G2 pairs).
//
// Measured on the H200 it is 1.5-1.6x slower than the XYZZ accumulation (docs/gpu-msm.md: the
// first round is latency-bound on its twice-gathered bases), so it is off by default.
#include <cstddef>
#include <cstdint>

#include "gpu/curve.cuh"
#include "gpu/msm_internal.hpp"
#include "gpu/warp_inverse.cuh"

namespace cuzk::gpu::msm_detail {

inline constexpr uint32_t kNullKey = ~0u;
// Pairs per chunk (a pass's pairs are cut into chunks; every chunk adds its buckets into the bucket
// sets once): the round scratch holds ceil(chunk/2) + ceil(chunk/4) points and keys: G1 5.0 GB at
// 2^26, G2 4.9 GB at 2^25.
inline constexpr size_t kAffineChunkG1 = size_t{1} << 26, kAffineChunkG2 = size_t{1} << 25;
inline constexpr unsigned kMaxAffineRounds = 8;
// Rounds for `pairs` pairs over `buckets` buckets: about log2 of the pairs per bucket, less one
// (the last rounds mostly flush), at most kMaxAffineRounds.
inline unsigned auto_affine_rounds(size_t pairs, size_t buckets) {
  unsigned r = 0;
  while (r < kMaxAffineRounds && (buckets << (r + 2)) <= pairs) ++r;
  return r;
}

// Round 1 reads its items from the pass's sorted pairs: pair p (from `lo`) of window-in-pass
// p / seg with digit keys[p] and base vals[p] (negated when kNegBit is set).
template <class C>
struct PairItems {
  const AffinePoint<C>* bases;
  const uint32_t* keys;
  const uint32_t* vals;
  size_t lo, seg;
  uint32_t B;
  __device__ __forceinline__ uint32_t key(size_t i) const {
    const size_t p = lo + i;
    const uint32_t d = keys[p];
    // p < 2^31 (a pass's pairs are indexed by 31 bits): 32-bit division.
    return d == 0 ? kNullKey : static_cast<uint32_t>(p) / static_cast<uint32_t>(seg) * B + d - 1;
  }
  __device__ __forceinline__ typename C::F x(size_t i) const { return load16(&bases[vals[lo + i] & ~kNegBit].x); }
  __device__ __forceinline__ AffinePoint<C> point(size_t i) const {
    const uint32_t v = vals[lo + i];
    const AffinePoint<C> q = load16(&bases[v & ~kNegBit]);
    return (v & kNegBit) ? -q : q;
  }
};

// Later rounds read the items the round before wrote.
template <class C>
struct ArrayItems {
  const AffinePoint<C>* pts;
  const uint32_t* keys;
  __device__ __forceinline__ uint32_t key(size_t i) const { return keys[i]; }
  __device__ __forceinline__ typename C::F x(size_t i) const { return load16(&pts[i].x); }
  __device__ __forceinline__ AffinePoint<C> point(size_t i) const { return load16(&pts[i]); }
};

// The items a round flushes: listed (warp-aggregated append) and added into their buckets by
// flush_list_kernel after the round, rather than by the lane that met them: a flush is a mixed
// XYZZ addition that one lane in a few would run while the rest of its warp waited.
template <class C>
struct FlushList {
  AffinePoint<C>* pts;
  uint32_t* keys;
  uint32_t* count;
  __device__ __forceinline__ void push(uint32_t key, const AffinePoint<C>& p) const {
    if (key == kNullKey || p.is_identity()) return;
    const unsigned mask = __activemask();
    const unsigned lane = threadIdx.x & 31u, leader = __ffs(mask) - 1;
    uint32_t at = 0;
    if (lane == leader) at = atomicAdd(count, __popc(mask));
    at = __shfl_sync(mask, at, leader) + __popc(mask & ((1u << lane) - 1));
    store16(&pts[at], p);
    keys[at] = key;
  }
};

// bucket += listed item (the keys of one round's list are distinct: a bucket flushes once a round).
template <class C>
__global__ void flush_list_kernel(const AffinePoint<C>* pts, const uint32_t* keys, const uint32_t* count, size_t most,
                                  XyzzPoint<C>* buckets) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= most || i >= *count) return;
  const uint32_t key = keys[i];
  buckets[key] = buckets[key].add_affine(load16(&pts[i]));
}

// One round over n items: thread t takes pairs [t*per_thread, (t+1)*per_thread). First pass: the
// product of the x differences of the pairs added in the batch, each pair's prefix kept in its
// output slot's x; one inversion per warp; second pass (backwards): each pair's 1/(x1 - x0) from
// the running inverse and its prefix, then the affine sum. Every thread of the warp reaches
// warp_inverse (threads without pairs pass 1).
template <class C, class Items>
__global__ void affine_round_kernel(Items in, size_t n, size_t per_thread, AffinePoint<C>* __restrict__ out_pts,
                                    uint32_t* __restrict__ out_keys, FlushList<C> flushed) {
  using A = AffinePoint<C>;
  using F = typename C::F;
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const size_t pairs = (n + 1) / 2;
  const size_t j0 = min(t * per_thread, pairs), j1 = min(j0 + per_thread, pairs);
  // Two independent product chains (even and odd pairs of the thread's run): twice the
  // instruction-level parallelism of one chain of dependent multiplications. A pair of one bucket
  // is in the batch unless an item is the identity ((0, 0): x = 0) or the items are opposite:
  // its denominator is x1 - x0, or 2y for equal points (a repeated base: doubled in the batch
  // too, so that no input costs an inversion of its own).
  F prod[2] = {F::one(), F::one()};
  for (size_t j = j0; j < j1; ++j) {
    const size_t i = 2 * j;
    if (i + 1 >= n) continue;
    const uint32_t k0 = in.key(i);
    if (k0 != in.key(i + 1) || k0 == kNullKey) continue;
    const F x0 = in.x(i), x1 = in.x(i + 1);
    F d;
    if (!(x0 == x1)) {
      if ((x0.is_zero() && in.point(i).is_identity()) || (x1.is_zero() && in.point(i + 1).is_identity())) continue;
      d = x1 - x0;
    } else {
      const A p0 = in.point(i), p1 = in.point(i + 1);
      if (p0.is_identity() || p1.is_identity() || !(p0.y == p1.y)) continue;
      d = p0.y.dbl();
    }
    F& pr = prod[(j - j0) & 1];
    store16(&out_pts[j].x, pr);
    pr = pr * d;
  }
  const F all = warp_inverse(prod[0] * prod[1]);
  F inv[2] = {all * prod[1], all * prod[0]};
  for (size_t j = j1; j-- > j0;) {
    const size_t i = 2 * j;
    const uint32_t k0 = in.key(i);
    if (i + 1 >= n) {
      store16(&out_pts[j], in.point(i));
      out_keys[j] = k0;
      continue;
    }
    const uint32_t k1 = in.key(i + 1);
    if (k0 != k1) {
      flushed.push(k0, in.point(i));
      store16(&out_pts[j], in.point(i + 1));
      out_keys[j] = k1;
      continue;
    }
    out_keys[j] = k0;
    if (k0 == kNullKey) continue;  // digit 0: the point is never read
    const A p0 = in.point(i), p1 = in.point(i + 1);
    if (p0.is_identity()) {
      store16(&out_pts[j], p1);
    } else if (p1.is_identity()) {
      store16(&out_pts[j], p0);
    } else {
      const bool same_x = p0.x == p1.x;
      if (same_x && !(p0.y == p1.y)) {
        store16(&out_pts[j], A::identity());  // P + (-P)
        continue;
      }
      F& iv = inv[(j - j0) & 1];
      const F inv_d = iv * load16(&out_pts[j].x);
      F l;
      if (!same_x) {
        iv = iv * (p1.x - p0.x);
        l = (p1.y - p0.y) * inv_d;
      } else {
        iv = iv * p0.y.dbl();
        const F xx = p0.x.sqr();
        l = (xx.dbl() + xx) * inv_d;  // 3x^2 / 2y
      }
      A r;
      r.x = l.sqr() - p0.x - p1.x;
      r.y = l * (p0.x - r.x) - p0.y;
      store16(&out_pts[j], r);
    }
  }
}

// After the rounds: the n remaining items summed per bucket by equal slices (XYZZ mixed
// additions, as accumulate_kernel), each run wholly inside a slice added into its bucket; runs
// that cross a slice boundary go to head/tail for fixup_items_kernel.
template <class C, class Items>
__global__ void accumulate_items_kernel(Items in, size_t n, size_t slice, XyzzPoint<C>* buckets, XyzzPoint<C>* head,
                                        uint64_t* head_key, XyzzPoint<C>* tail, uint64_t* tail_key) {
  using Xyzz = XyzzPoint<C>;
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const size_t start = t * slice;
  if (start >= n) return;
  const size_t end = min(start + slice, n);
  constexpr uint64_t kNone = ~uint64_t{0};
  head_key[t] = kNone;
  tail_key[t] = kNone;
  uint32_t cur = in.key(start);
  const bool from_left = start > 0 && in.key(start - 1) == cur;
  bool first = true;
  Xyzz acc = Xyzz::identity();
  auto flush = [&](uint32_t key, bool left, bool right) {
    if (key == kNullKey) return;
    if (left) {
      head[t] = acc;
      head_key[t] = key;
    } else if (right) {
      tail[t] = acc;
      tail_key[t] = key;
    } else {
      buckets[key] = add_ool(buckets[key], acc);
    }
  };
  for (size_t p = start; p < end; ++p) {
    const uint32_t k = in.key(p);
    if (k != cur) {
      flush(cur, first && from_left, false);
      acc = Xyzz::identity();
      cur = k;
      first = false;
    }
    if (k != kNullKey) acc = acc.add_affine(in.point(p));
  }
  flush(cur, first && from_left, end < n && in.key(end) == cur);
}

// The runs that cross slices: the slice that started a run adds the heads that continue it, then
// the sum into the bucket.
template <class C>
__global__ void fixup_items_kernel(size_t slices, XyzzPoint<C>* buckets, const XyzzPoint<C>* head,
                                   const uint64_t* head_key, const XyzzPoint<C>* tail, const uint64_t* tail_key) {
  const size_t t = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (t >= slices || tail_key[t] == ~uint64_t{0}) return;
  const uint64_t key = tail_key[t];
  XyzzPoint<C> acc = tail[t];
  for (size_t s = t + 1; s < slices && head_key[s] == key; ++s) acc = add_ool(acc, head[s]);
  buckets[key] = add_ool(buckets[key], acc);
}

}  // namespace cuzk::gpu::msm_detail
