#pragma once
// Bucket accumulators for the Pippenger MSM (msm_pippenger.hpp).
//
// BatchAffineBuckets keeps every bucket in affine coordinates and collects additions "bucket +=
// point" into a batch; the batch is evaluated with one field inversion (Montgomery's trick), so an
// addition costs about 5M + 1S plus 1/batch of an inversion. A point whose bucket already has an
// addition in the current batch is deferred to a pending list and retried after the next flush; if
// the pending list keeps growing (many points in few buckets, e.g. equal scalars), the excess is
// spilled into Jacobian overflow buckets, so degenerate inputs cost at most a mixed addition per
// point; finish() folds those back into the affine buckets. All edge cases of the affine addition are handled: empty
// bucket (the point is copied), P == Q (tangent slope), P == -Q (the bucket becomes empty).
//
// On CPUs with AVX-512 IFMA the batches (flush() and PairBatch::eval()) run 8 additions per vector
// instruction (fq_ifma.cpp: radix 2^52, lazy reduction), about 2.4x (G1) and 3x (G2) faster per
// addition on Zen 4; fq_ifma::set_enabled(false) or CUZK_MSM_SIMD=0 forces the scalar code.
//
// JacobianBuckets is the textbook alternative (one mixed Jacobian addition per point), kept for
// comparison and as a fallback.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ec/fq_ifma.hpp"
#include "ec/short_weierstrass.hpp"
#include "ff/bls12_381.hpp"

namespace cuzk::ec::msm_detail {

// Batches of at least this many additions over Fq or Fq2 (G1, G2) go to the AVX-512 IFMA kernel
// (fq_ifma.hpp) when it is active; smaller ones (and batches with a doubling) stay on the scalar
// code. The kernel inverts 8 lane products in scalar code, which a handful of additions does not
// amortize. Both paths compute exact field values, so the buckets hold the same bits either way.
inline constexpr size_t kIfmaMinBatch = 32;

template <class F>
inline constexpr bool kIfmaField = std::is_same_v<F, ff::Fq> || std::is_same_v<F, ff::Fq2>;

// The kernel for F: q[i] += +-p[i] on coordinates of 6 (Fq) or 12 (Fq2) words, x then y.
template <class F>
inline void ifma_batch_add(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k) {
  static_assert(sizeof(F) == (std::is_same_v<F, ff::Fq> ? 6 : 12) * sizeof(uint64_t));
  if constexpr (std::is_same_v<F, ff::Fq>) {
    fq_ifma::g1_batch_add(q, p, neg, k);
  } else {
    fq_ifma::g2_batch_add(q, p, neg, k);
  }
}

// sum_{b in [b0, b1)} (lo + b) * bucket_b by running sums, walking down from the top bucket;
// add_bucket(b, running) adds bucket b into the running sum. Shared by both bucket stores.
template <class J, class AddBucket>
J reduce_running_sums(size_t b0, size_t b1, uint64_t lo, AddBucket&& add_bucket) {
  J running, acc;
  for (size_t b = b1; b-- > b0;) {
    add_bucket(b, running);
    if (!running.is_identity()) acc += running;
  }
  lo += b0;
  if (lo != 0 && !running.is_identity()) acc += running.mul_u64(lo);
  return acc;
}

// k * p for the small k of the reductions (steps per lane): double-and-add from the top bit. mul_u64
// builds a wNAF table of 8 points first, more than the whole product costs for k < 2^10.
template <class J>
J mul_small(const J& p, uint64_t k) {
  J acc;
  for (int b = 63 - std::countl_zero(k); b >= 0; --b) {
    acc = acc.dbl();
    if ((k >> b) & 1) acc += p;
  }
  return acc;
}

// Prefetches every cache line of [p, p + bytes): a G2 point (200 bytes) or bucket (192) spans up
// to 4 lines, and prefetching only the first and last byte left the middle ones to miss in the
// IFMA kernel's gathers (G2 MSM 2^16: 3% slower).
template <int RW = 0>
inline void prefetch_lines(const void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p), end = a + bytes;
  for (uintptr_t l = a & ~uintptr_t{63}; l < end; l += 64) __builtin_prefetch(reinterpret_cast<const void*>(l), RW);
}

template <class C>
class BatchAffineBuckets {
 public:
  using F = typename C::Base;
  using A = Affine<C>;
  using J = Jacobian<C>;

  // `lanes` > 1 keeps that many copies of every bucket and sends consecutive additions to
  // consecutive copies: for ranges of few buckets that receive many points (the top window, fine
  // splits) this keeps the batch free of conflicts; finish() folds the copies together.
  BatchAffineBuckets(size_t num_buckets, unsigned batch, unsigned lanes = 1)
      : buckets_(num_buckets),
        lanes_(lanes < 1 ? 1 : lanes),
        xy_(num_buckets * lanes_),
        state_(num_buckets * lanes_, kEmpty),
        batch_(batch < 1 ? 1 : batch) {
    entries_.resize(batch_);
    den_.resize(batch_);
    prefix_.resize(batch_);
    pending_.reserve(batch_);
    retry_.reserve(batch_);
  }

  size_t size() const { return buckets_; }

  void prefetch(uint32_t b) const {
    if (lanes_ != 1) return;  // small arrays, and the copy is not known yet
    const char* p = reinterpret_cast<const char*>(&xy_[b]);
    prefetch_lines<1>(p, sizeof(XY));
    __builtin_prefetch(&state_[b], 1);
  }

  // bucket[b] += (neg ? -p : p); p must not be the point at infinity and must stay alive (and
  // unchanged) until finish().
  void add(uint32_t b, const A* p, bool neg) {
    if (lanes_ != 1) {
      b = static_cast<uint32_t>(b * lanes_ + lane_);
      if (++lane_ == lanes_) lane_ = 0;
    }
    insert(b, p, neg);
    if (count_ == batch_ || pending_.size() >= batch_) sync();
  }

  // Evaluates the current batch and retries the deferred points.
  void sync() {
    flush();
    drain_pending();
  }

  // Completes every addition made so far, so that no point pointer is kept; more may follow.
  void settle() {
    flush();
    for (int round = 0; round < 4 && !pending_.empty(); ++round) {
      drain_pending();
      flush();
    }
    spill_pending();
  }

  // Completes every addition; afterwards the buckets hold their final sums.
  void finish() {
    settle();
    fold_overflow();
    if (lanes_ != 1) merge_lanes();
  }

  // sum_b (lo + b + 1) * bucket[b] for the range of magnitudes this object holds. Call after
  // finish().
  //
  // Running sums, vectorized over L lanes so that their affine additions can share inversions:
  // lane l owns the s = ceil(size/L) consecutive buckets [l*s, l*s + s) and walks them from the
  // top, R_l += bucket, A_l += R_l; afterwards A_l = sum_u (u + 1) bucket[l*s + u] and
  // R_l = sum_u bucket[l*s + u], so the total is sum_l A_l + s * sum_l l * R_l + lo * sum_l R_l.
  J reduce_weighted(uint64_t lo) const { return reduce_weighted(0, size(), lo); }

  // The part of it from buckets [b0, b1): sum_{b0 <= b < b1} (lo + b + 1) * bucket[b]. Disjoint
  // ranges can be reduced concurrently.
  J reduce_weighted(size_t b0, size_t b1, uint64_t lo) const {
    const size_t m = b1 - b0, L = lanes_;
    if (m < 64) return reduce_weighted_jacobian(b0, b1, lo);
    lo += b0;
    // L lanes cost m/L + 1 inversions and 3L Jacobian additions at the end: L = sqrt(4m) measured
    // best (m = 2^12: 128 lanes; sqrt(8m) and sqrt(16m) were up to 2% slower).
    const size_t lanes = std::clamp<size_t>(static_cast<size_t>(std::sqrt(4.0 * static_cast<double>(m))), 1,
                                            std::min<size_t>(512, m / 8));
    const size_t steps = (m + lanes - 1) / lanes;
    std::vector<XY> run(lanes), acc(lanes);
    std::vector<uint8_t> run_st(lanes, kEmpty), acc_st(lanes, kEmpty);
    // One batch per step holds both A_l += R_l (R_l before the step, copied) and R_l += bucket: half
    // the inversions of doing them one after the other (G1 MSM 2^16: 2.5% faster). A_l then lacks
    // the last R_l, added after the loop.
    PairBatch batch(2 * lanes);
    for (size_t t = 0; t < steps; ++t) {
      for (size_t l = 0; l < lanes; ++l) {
        if (run_st[l] == kFilled) batch.schedule_copy(acc[l], acc_st[l], run[l]);
        const size_t b = l * steps + (steps - 1 - t);
        if (b < m && state_[(b0 + b) * L] == kFilled) batch.schedule(run[l], run_st[l], xy_[(b0 + b) * L]);
      }
      batch.eval();
    }
    for (size_t l = 0; l < lanes; ++l) {
      if (run_st[l] == kFilled) batch.schedule(acc[l], acc_st[l], run[l]);
    }
    batch.eval();
    J sum_acc, running, weighted;
    for (size_t l = lanes; l-- > 0;) {
      if (acc_st[l] == kFilled) sum_acc = sum_acc.add_affine(A(acc[l].x, acc[l].y));
      if (run_st[l] == kFilled) running = running.add_affine(A(run[l].x, run[l].y));
      if (l > 0) weighted += running;  // sum_l l * R_l
    }
    J r = sum_acc + weighted.mul_u64(steps);
    if (lo != 0) r += running.mul_u64(lo);
    return r;
  }

  // For windows of `width` buckets laid end to end (bucket j * width + u holds the points of
  // window j's digit magnitude u + 1): sum_u (u + 1) * bucket[j * width + u] for every window j.
  // The running sums of reduce_weighted, `lanes` per window, but every window's lanes share one
  // batch per step: small MSMs have many windows of few buckets, where a batch per window left
  // most of the work to inversions and the lanes' Jacobian tails. Call after finish().
  std::vector<J> reduce_windows(size_t width, size_t lanes) const {
    const size_t windows = buckets_ / width, L = lanes_;
    lanes = std::clamp<size_t>(lanes, 1, width);
    const size_t steps = (width + lanes - 1) / lanes, total = windows * lanes;
    std::vector<XY> run(total), acc(total);
    std::vector<uint8_t> run_st(total, kEmpty), acc_st(total, kEmpty);
    PairBatch batch(2 * total);
    for (size_t t = 0; t < steps; ++t) {
      for (size_t i = 0; i < total; ++i) {
        if (run_st[i] == kFilled) batch.schedule_copy(acc[i], acc_st[i], run[i]);
        const size_t u = (i % lanes) * steps + (steps - 1 - t), b = (i / lanes) * width + u;
        if (u < width && state_[b * L] == kFilled) batch.schedule(run[i], run_st[i], xy_[b * L]);
      }
      batch.eval();
    }
    for (size_t i = 0; i < total; ++i) {
      if (run_st[i] == kFilled) batch.schedule(acc[i], acc_st[i], run[i]);
    }
    batch.eval();
    // Per window, as in reduce_weighted: sum_l A_l + steps * sum_l l * R_l.
    std::vector<J> out(windows);
    for (size_t j = 0; j < windows; ++j) {
      J sum_acc, running, weighted;
      for (size_t l = lanes; l-- > 0;) {
        const size_t i = j * lanes + l;
        if (acc_st[i] == kFilled) sum_acc = sum_acc.add_affine(A(acc[i].x, acc[i].y));
        if (run_st[i] == kFilled) running = running.add_affine(A(run[i].x, run[i].y));
        if (l > 0) weighted += running;
      }
      out[j] = sum_acc + mul_small(weighted, steps);
    }
    return out;
  }

  // The same with Jacobian running sums (one mixed and one full addition per bucket).
  J reduce_weighted_jacobian(size_t b0, size_t b1, uint64_t lo) const {
    return reduce_running_sums<J>(b0, b1, lo, [&](size_t b, J& running) {
      const size_t i = b * lanes_;
      if (state_[i] == kFilled) running = running.add_affine(A(xy_[i].x, xy_[i].y));
    });
  }

  // sum_b bucket[b] (after finish()).
  J sum() const {
    J acc;
    for (size_t b = 0; b < state_.size(); b += lanes_) {
      if (state_[b] == kFilled) acc = acc.add_affine(A(xy_[b].x, xy_[b].y));
    }
    return acc;
  }

 private:
  enum : uint8_t { kEmpty = 0, kFilled = 1, kBusy = 2 };
  struct XY {
    F x, y;
  };
  struct Entry {
    const A* p;
    uint32_t b;
    bool neg;
    bool dbl;
  };

  // Affine additions dst += src for many independent (dst, src) pairs with one inversion; dst
  // states are updated (empty + src = src; P + (-P) = empty).
  class PairBatch {
   public:
    explicit PairBatch(size_t cap) : e_(cap), den_(cap), prefix_(cap), copies_(cap) {}
    // The same with a copy of src taken now: src may be the destination of another pair of this
    // batch (the pairs are evaluated in no particular order).
    void schedule_copy(XY& dst, uint8_t& dst_state, const XY& src) {
      if (dst_state == kEmpty) {
        dst = src;
        dst_state = kFilled;
        return;
      }
      XY& c = copies_[copied_++];
      c = src;
      schedule(dst, dst_state, c);
    }
    void schedule(XY& dst, uint8_t& dst_state, const XY& src) {
      if (dst_state == kEmpty) {
        dst = src;
        dst_state = kFilled;
        return;
      }
      F d = src.x - dst.x;
      bool dbl = false;
      if (d.is_zero()) {
        if (src.y == dst.y && !dst.y.is_zero()) {
          dbl = true;
          d = dst.y.dbl();
        } else {
          dst_state = kEmpty;
          return;
        }
      }
      e_[k_] = Item{&dst, &src, dbl};
      den_[k_] = d;
      has_dbl_ |= dbl;
      ++k_;
    }
    void eval() {
      copied_ = 0;
      const size_t k = k_;
      if (k == 0) return;
      if constexpr (kIfmaField<F>) {
        if (k >= kIfmaMinBatch && !has_dbl_ && fq_ifma::active()) {
          // The kernel reads and writes the coordinates as limb arrays, x then y.
          static_assert(sizeof(XY) == 2 * sizeof(F));
          qp_.resize(k);
          pp_.resize(k);
          neg_.assign(k, 0);
          for (size_t i = 0; i < k; ++i) {
            qp_[i] = reinterpret_cast<uint64_t*>(e_[i].dst);
            pp_[i] = reinterpret_cast<const uint64_t*>(e_[i].src);
          }
          ifma_batch_add<F>(qp_.data(), pp_.data(), neg_.data(), k);
          k_ = 0;
          return;
        }
      }
      has_dbl_ = false;
      prefix_[0] = den_[0];
      for (size_t i = 1; i < k; ++i) prefix_[i] = prefix_[i - 1] * den_[i];
      F inv = prefix_[k - 1].inverse();
      for (size_t i = k; i-- > 0;) {
        F di = inv;
        if (i > 0) {
          di = inv * prefix_[i - 1];
          inv *= den_[i];
        }
        XY& q = *e_[i].dst;
        const XY& p = *e_[i].src;
        F lambda;
        if (e_[i].dbl) {
          F xx = q.x.square();
          lambda = xx.dbl() + xx;
        } else {
          lambda = p.y - q.y;
        }
        lambda *= di;
        F x3 = lambda.square() - q.x - p.x;  // p.x == q.x when doubling
        q.y = lambda * (q.x - x3) - q.y;
        q.x = x3;
      }
      k_ = 0;
    }

   private:
    struct Item {
      XY* dst;
      const XY* src;
      bool dbl;
    };
    std::vector<Item> e_;
    std::vector<F> den_, prefix_;
    std::vector<XY> copies_;  // sources taken by value (schedule_copy)
    size_t copied_ = 0;
    size_t k_ = 0;
    bool has_dbl_ = false;
    std::vector<uint64_t*> qp_;  // the IFMA kernel's arguments
    std::vector<const uint64_t*> pp_;
    std::vector<uint8_t> neg_;
  };

  // a == b for fully reduced elements, word by word: F's operator== compares std::arrays, which
  // GCC turns into a memcmp call (6% of the MSM once the additions were vectorized).
  static bool same(const F& a, const F& b) {
    static_assert(sizeof(F) % sizeof(uint64_t) == 0 && std::is_trivially_copyable_v<F>);
    const auto* x = reinterpret_cast<const uint64_t*>(&a);
    const auto* y = reinterpret_cast<const uint64_t*>(&b);
    uint64_t d = 0;
    for (size_t i = 0; i < sizeof(F) / sizeof(uint64_t); ++i) d |= x[i] ^ y[i];
    return d == 0;
  }

  void insert(uint32_t b, const A* p, bool neg) {
    const uint8_t s = state_[b];
    if (s == kEmpty) {
      xy_[b].x = p->x;
      xy_[b].y = neg ? -p->y : p->y;
      state_[b] = kFilled;
      return;
    }
    if (s == kBusy) {
      pending_.push_back(Entry{p, b, neg, false});
      return;
    }
    // An x equal to the bucket's (a doubling, or P + (-P)) is found by check_batch(); the
    // denominators are formed in flush() (the IFMA kernel forms its own).
    entries_[count_] = Entry{p, b, neg, false};
    state_[b] = kBusy;
    ++count_;
  }

  // Finds the points of the batch whose x equals their bucket's: P == Q (a doubling, for the
  // scalar formulas) or P == -Q (the bucket becomes empty; the entry is dropped). Done here for the
  // whole batch rather than in insert(): the bucket loads miss the per-core cache for large
  // windows, and in a tight loop they overlap, while insert() stalled on each of them (G1 MSM 2^18
  // and 2^20: 3-5% faster).
  void check_batch() {
    size_t k = 0;
    for (size_t i = 0; i < count_; ++i) {
      Entry e = entries_[i];
      const XY& q = xy_[e.b];
      if (*reinterpret_cast<const uint64_t*>(&q.x) == *reinterpret_cast<const uint64_t*>(&e.p->x) && same(q.x, e.p->x))
          [[unlikely]] {
        const F y2 = e.neg ? -e.p->y : e.p->y;
        if (y2 == q.y && !q.y.is_zero()) {
          e.dbl = true;
          has_dbl_ = true;
        } else {
          state_[e.b] = kEmpty;
          continue;
        }
      }
      entries_[k++] = e;
    }
    count_ = k;
  }

  // Evaluates the batch: one inversion of the product of the denominators, then each slope.
  void flush() {
    check_batch();
    const size_t k = count_;
    if (k == 0) return;
    if constexpr (kIfmaField<F>) {
      if (k >= kIfmaMinBatch && !has_dbl_ && fq_ifma::active()) {
        flush_ifma();
        return;
      }
    }
    has_dbl_ = false;
    // Denominators: x2 - x1, or 2y for a doubling. For -P the slope (-y2 - y1) / (x2 - x1) is
    // computed as (y2 + y1) / (x1 - x2): no negation.
    for (size_t i = 0; i < k; ++i) {
      const Entry& e = entries_[i];
      const XY& q = xy_[e.b];
      den_[i] = e.dbl ? q.y.dbl() : (e.neg ? q.x - e.p->x : e.p->x - q.x);
    }
    prefix_[0] = den_[0];
    for (size_t i = 1; i < k; ++i) prefix_[i] = prefix_[i - 1] * den_[i];
    F inv = prefix_[k - 1].inverse();
    for (size_t i = k; i-- > 0;) {
      F di = inv;
      if (i > 0) {
        di = inv * prefix_[i - 1];
        inv *= den_[i];
      }
      const Entry& e = entries_[i];
      XY& q = xy_[e.b];
      F lambda;
      if (e.dbl) {
        F xx = q.x.square();
        lambda = xx.dbl() + xx;
      } else {
        lambda = e.neg ? (e.p->y + q.y) : (e.p->y - q.y);
      }
      lambda *= di;
      F x3 = lambda.square() - q.x - (e.dbl ? q.x : e.p->x);
      q.y = lambda * (q.x - x3) - q.y;
      q.x = x3;
      state_[e.b] = kFilled;
    }
    count_ = 0;
  }

  // The same batch on the 8-lane IFMA kernel (G1 or G2; no doublings in it): bit-identical results.
  void flush_ifma() {
    static_assert(sizeof(XY) == 2 * sizeof(F));
    static_assert(offsetof(A, x) == 0 && offsetof(A, y) == sizeof(F));
    const size_t k = count_;
    qp_.resize(k);
    pp_.resize(k);
    neg_.resize(k);
    for (size_t i = 0; i < k; ++i) {
      const Entry& e = entries_[i];
      qp_[i] = reinterpret_cast<uint64_t*>(&xy_[e.b]);
      pp_[i] = reinterpret_cast<const uint64_t*>(e.p);
      neg_[i] = e.neg;
    }
    ifma_batch_add<F>(qp_.data(), pp_.data(), neg_.data(), k);
    for (size_t i = 0; i < k; ++i) state_[entries_[i].b] = kFilled;
    count_ = 0;
  }

  // Re-inserts the deferred points (no bucket is busy right after a flush). Points that still
  // conflict stay pending; if too many do, they go to the overflow buckets instead.
  void drain_pending() {
    if (pending_.empty()) return;
    retry_.swap(pending_);
    pending_.clear();
    for (const Entry& e : retry_) {
      insert(e.b, e.p, e.neg);
      if (count_ == batch_) flush();
    }
    retry_.clear();
    if (pending_.size() * 2 >= batch_) spill_pending();
  }

  // Adds the overflow buckets into the affine ones (converted to affine with one inversion, then
  // batched pair additions) and drops them, so that the reduction and the lane merge run on the
  // affine buckets alone: a single spill used to send the whole array to the Jacobian reduction,
  // ~2.3x the cost per bucket (witnesses with many equal scalars spill: SHA-256 circuits' A, B and
  // C MSMs spent a third of their time there).
  void fold_overflow() {
    if (overflow_.empty()) return;
    std::vector<uint32_t> at;
    std::vector<J> sums;
    for (size_t i = 0; i < overflow_.size(); ++i) {
      if (overflow_[i].is_identity()) continue;
      at.push_back(static_cast<uint32_t>(i));
      sums.push_back(overflow_[i]);
    }
    std::vector<A> aff(sums.size());
    batch_to_affine<C>(sums, aff);
    std::vector<XY> src(aff.size());
    PairBatch batch(aff.size());
    for (size_t k = 0; k < aff.size(); ++k) {
      src[k] = XY{aff[k].x, aff[k].y};
      batch.schedule(xy_[at[k]], state_[at[k]], src[k]);
    }
    batch.eval();
    overflow_ = {};
  }

  // Adds every copy of a bucket into copy 0: log2(lanes) rounds of batched pair additions.
  void merge_lanes() {
    const size_t L = lanes_, m = buckets_;
    PairBatch batch(m * ((L + 1) / 2));
    for (size_t step = 1; step < L; step *= 2) {
      for (size_t b = 0; b < m; ++b) {
        for (size_t l = 0; l + step < L; l += 2 * step) {
          const size_t d = b * L + l, src = d + step;
          if (state_[src] == kFilled) batch.schedule(xy_[d], state_[d], xy_[src]);
        }
      }
      batch.eval();
    }
  }

  void spill_pending() {
    if (pending_.empty()) return;
    if (overflow_.empty()) overflow_.resize(state_.size());
    for (const Entry& e : pending_) {
      J& o = overflow_[e.b];
      o = o.add_affine(e.neg ? -*e.p : *e.p);
    }
    pending_.clear();
  }

  size_t buckets_, lanes_, lane_ = 0;
  std::vector<XY> xy_;  // bucket b, copy l at b * lanes_ + l
  std::vector<uint8_t> state_;
  std::vector<J> overflow_;  // allocated on first spill
  size_t batch_;
  size_t count_ = 0;
  std::vector<Entry> entries_;
  std::vector<F> den_, prefix_;
  std::vector<Entry> pending_, retry_;
  bool has_dbl_ = false;       // the current batch holds a doubling (scalar path)
  std::vector<uint64_t*> qp_;  // the IFMA kernel's arguments
  std::vector<const uint64_t*> pp_;
  std::vector<uint8_t> neg_;
};

template <class C>
class JacobianBuckets {
 public:
  using A = Affine<C>;
  using J = Jacobian<C>;

  JacobianBuckets(size_t num_buckets, unsigned /*batch*/, unsigned /*lanes*/ = 1) : b_(num_buckets) {}
  size_t size() const { return b_.size(); }
  void prefetch(uint32_t b) const {
    const char* p = reinterpret_cast<const char*>(&b_[b]);
    __builtin_prefetch(p, 1);
    __builtin_prefetch(p + sizeof(J) - 1, 1);
  }
  void add(uint32_t b, const A* p, bool neg) { b_[b] = b_[b].add_affine(neg ? -*p : *p); }
  void sync() {}
  void settle() {}
  void finish() {}
  J reduce_weighted(size_t b0, size_t b1, uint64_t lo) const {
    return reduce_running_sums<J>(b0, b1, lo, [&](size_t b, J& running) { running += b_[b]; });
  }
  J sum() const {
    J acc;
    for (const J& x : b_) acc += x;
    return acc;
  }

 private:
  std::vector<J> b_;
};

}  // namespace cuzk::ec::msm_detail
