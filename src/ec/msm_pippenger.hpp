#pragma once
// The Pippenger MSM engine behind ec/msm.hpp (instantiated for G1 and G2 in msm.cpp).
//
// Phases:
//  1. Classify the scalars in blocks of 4096 (in parallel): 0 (skipped), 1 (summed directly) or
//     "big"; with a density bitmap, also count the bases each block consumes. Prefix sums give
//     every block its output positions, so the next passes are parallel and deterministic.
//  2. Sum the points with scalar 1 (batched affine additions in lanes, in parallel).
//  3. Choose the window width c and the bucket ranges per window (msm_default_config).
//  4. For each super-chunk of at most MsmConfig::chunk (2^22) big scalars: recode them into
//     signed c-bit digits (window-major arrays), then let all threads share the jobs (window,
//     bucket range): a job's points are claimed in chunks by whoever works on it, each worker
//     adding into a bucket array of its own (see run_pippenger). Arrays persist across
//     super-chunks, so each is reduced once. With the endomorphism split (msm_glv.hpp) every big
//     scalar becomes two 127-bit halves, for P_i and for phi(P_i) (computed in the recoding pass
//     into a per-super-chunk array, so chunks default to ~128 MiB of those images).
//  5. Reduce the arrays by running sums, in bucket slices spread over the threads, to
//     sum_m m * bucket[m] per window; combine the windows by Horner's rule (c doublings each).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#ifdef CUZK_MSM_TRACE
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#endif
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ec/msm.hpp"
#include "ec/msm_buckets.hpp"
#include "ec/msm_glv.hpp"

namespace cuzk::ec::msm_detail {

using ScalarLimbs = ff::Limbs<4>;

inline ScalarLimbs reduce_mod_r(ScalarLimbs k) {
  while (!ff::less_than(k, Fr::MOD)) ff::sub_limbs(k, k, Fr::MOD);
  return k;
}

// Bits [pos, pos + c) of k (c <= 32).
inline uint64_t extract_bits(const ScalarLimbs& k, unsigned pos, unsigned c) {
  const unsigned limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  uint64_t v = k[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return v & ((uint64_t{1} << c) - 1);
}

// Balanced recoding: k = sum_j d_j 2^(jc), d_j in [-2^(c-1), 2^(c-1) - 1]; W windows suffice for
// k < r (msm_num_windows).
template <class D>
inline void recode(const ScalarLimbs& k, unsigned c, unsigned windows, D* out, size_t stride) {
  const int64_t half = int64_t{1} << (c - 1), full = int64_t{1} << c;
  int64_t carry = 0;
  for (unsigned j = 0; j < windows; ++j) {
    int64_t x = static_cast<int64_t>(extract_bits(k, j * c, c)) + carry;
    carry = x >= half;
    x -= carry * full;
    out[j * stride] = static_cast<D>(x);
  }
}

struct FrScalar {
  // 0, 1 or 2 (anything else).
  static int kind(const Fr& s) { return s.is_zero() ? 0 : (s.is_one() ? 1 : 2); }
  static ScalarLimbs canonical(const Fr& s) { return s.to_canonical(); }
};

struct CanonicalScalar {
  static int kind(const ScalarLimbs& s) {
    const ScalarLimbs k = reduce_mod_r(s);
    if ((k[1] | k[2] | k[3]) != 0) return 2;
    return k[0] > 1 ? 2 : static_cast<int>(k[0]);
  }
  static ScalarLimbs canonical(const ScalarLimbs& s) { return reduce_mod_r(s); }
};

// Two spans read as one: elements [0, a.size()) of a, then those of b. msm_run reads its bases and
// scalars through operator[] and size() only, so msm_sum can run two MSMs as one.
template <class T>
struct Joined {
  std::span<const T> a, b;
  size_t size() const { return a.size() + b.size(); }
  const T& operator[](size_t i) const { return i < a.size() ? a[i] : b[i - a.size()]; }
};

// Sums bases[idx[i]] over i (no scalars) in parallel: each chunk keeps L lanes of affine partial
// sums and adds the next L points into the L lanes with one batched inversion.
template <class C, class Bases>
Jacobian<C> sum_indexed(const Bases& bases, std::span<const uint32_t> idx, ThreadPool& pool) {
  using J = Jacobian<C>;
  const size_t n = idx.size();
  if (n == 0) return J();
  if (n < 64) {
    J acc;
    for (uint32_t i : idx) acc = acc.add_affine(bases[i]);
    return acc;
  }
  const size_t chunks = std::min<size_t>(size_t{pool.size()} * 2, (n + 2047) / 2048);
  const size_t per = (n + chunks - 1) / chunks;
  std::vector<J> part(chunks);
  pool.parallel_for(chunks, [&](size_t c) {
    const size_t b = c * per, e = std::min(n, b + per);
    if (b >= e) return;
    const unsigned lanes = static_cast<unsigned>(std::clamp<size_t>((e - b) / 8, 1, 512));
    BatchAffineBuckets<C> acc(lanes, lanes);
    unsigned lane = 0;
    for (size_t i = b; i < e; ++i) {
      const Affine<C>* p = &bases[idx[i]];
      if (i + 8 < e) __builtin_prefetch(&bases[idx[i + 8]]);
      if (p->infinity) continue;
      acc.add(lane, p, false);
      if (++lane == lanes) {
        lane = 0;
        acc.sync();
      }
    }
    acc.finish();
    part[c] = acc.sum();
  });
  J acc;
  for (const J& p : part) acc += p;
  return acc;
}

// at(i) gives the base of point i and whether it enters negated (the sign of an endomorphism-split
// half).
template <class C, class Buckets, class D, class At>
void accumulate(Buckets& bk, const At& at, const D* dg, size_t cnt, uint32_t lo) {
  // Prefetches the base and the bucket of the next kAhead points that fall in this task's range
  // (a second cursor scans ahead), so that the loads overlap however sparse the range is.
  constexpr unsigned kAhead = 10;
  const uint32_t nb = static_cast<uint32_t>(bk.size());
  auto slot = [&](int d) -> uint32_t {  // bucket index within this range, or >= nb
    const uint32_t mag = static_cast<uint32_t>(d < 0 ? -d : d);
    return mag - 1 - lo;  // wraps for d == 0 or mag <= lo
  };
  size_t ahead = 0;     // the look-ahead cursor
  unsigned queued = 0;  // in-range points in [i, ahead), already prefetched
  for (size_t i = 0; i < cnt; ++i) {
    while (queued < kAhead && ahead < cnt) {
      const uint32_t s2 = slot(dg[ahead]);
      if (s2 < nb) {
        const char* bp = reinterpret_cast<const char*>(at(ahead).first);
        prefetch_lines(bp, sizeof(Affine<C>));
        bk.prefetch(s2);
        ++queued;
      }
      ++ahead;
    }
    const int d = dg[i];
    const uint32_t s = slot(d);
    if (s >= nb) continue;
    --queued;
    const auto [p, flip] = at(i);
    if (p->infinity) continue;
    bk.add(s, p, (d < 0) != flip);
  }
}

struct Plan {
  unsigned c, windows, splits, batch;
  bool jacobian;
  size_t chunk;
  size_t points;     // points in all: the non-trivial scalars, twice that with the endomorphism
  uint32_t top_mag;  // largest digit magnitude the top window can hold (digits there are >= 0)
  bool glv = false;  // endomorphism split (msm_glv.hpp): points P_i, then phi(P_i)
  uint32_t range_lo(unsigned s) const {
    const uint64_t nb = uint64_t{1} << (c - 1);
    return static_cast<uint32_t>(nb * s / splits);
  }
  // Bucket indices [lo, hi) of task (window j, split s), clipped to the magnitudes that occur.
  std::pair<uint32_t, uint32_t> range(unsigned j, unsigned s) const {
    uint32_t lo = range_lo(s), hi = range_lo(s + 1);
    if (j + 1 == windows) hi = std::min(hi, top_mag);
    return {lo, std::max(lo, hi)};
  }
  // Copies per bucket for a range of `eff` buckets: enough that a batch rarely meets the same
  // bucket twice, but only where the range receives many more points than it has buckets.
  unsigned lanes(unsigned j, uint32_t eff) const {
    const double window_buckets = j + 1 == windows ? top_mag : std::ldexp(1.0, static_cast<int>(c) - 1);
    const double pts = static_cast<double>(points) * eff / window_buckets;
    const double want = std::ceil(4.0 * batch / eff), cap = std::floor(pts / (8.0 * eff));
    return static_cast<unsigned>(std::clamp(std::min(want, cap), 1.0, 64.0));
  }
};

// Largest magnitude of a top-window digit for scalars (or split halves) up to `max`: the top bits
// plus the carry from below.
inline uint32_t top_magnitude(unsigned c, unsigned windows, const ScalarLimbs& max) {
  return static_cast<uint32_t>(extract_bits(max, (windows - 1) * c, c) + 1);
}

inline ScalarLimbs r_minus_1() {
  ScalarLimbs r1 = Fr::MOD;
  r1[0] -= 1;  // r is odd
  return r1;
}

// With the endomorphism split, idx[] holds this flag for points whose half k1 is negative (the
// bases are fewer than 2^31 then); the images phi(P_i) are stored already negated where k2 is.
inline constexpr uint32_t kGlvNeg = uint32_t{1} << 31;

// Storage for n objects of an implicit-lifetime type, left uninitialized: the passes below fill it
// in parallel, where a value-initialized array would first be written serially.
template <class T>
class RawArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  void reset(size_t n) {
    mem_.reset();
    mem_.reset(new std::byte[n * sizeof(T)]);
  }
  T* get() const { return reinterpret_cast<T*>(mem_.get()); }

 private:
  std::unique_ptr<std::byte[]> mem_;
};

// One job per (window, bucket range). Threads share the jobs dynamically: a job's points are
// claimed in chunks of kClaim from an atomic cursor, each participating thread adds its chunks into
// a bucket array of its own (reused across super-chunks), and every array is reduced at the end.
// A thread starts on an untouched job and, when none is left, joins the job whose remaining points
// per participant are largest, if that outweighs the cost of another bucket array. So threads that
// run slower (shared or throttled cores) simply process fewer points.
template <class Buckets>
struct Job {
  uint32_t lo = 0, hi = 0;
  unsigned lanes = 1;
  std::atomic<size_t> next{0};
  std::atomic<unsigned> participants{0};
  std::mutex mu;
  std::vector<std::unique_ptr<Buckets>> arrays;  // every array of this job
  std::vector<Buckets*> idle;                    // arrays no thread is using
};

template <class C, class Buckets, class D, class Traits, class Bases, class Scalars>
Jacobian<C> run_pippenger(const Bases& bases, const Scalars& scalars, const uint64_t* dens,
                          std::span<const uint32_t> big_off, std::span<const uint32_t> base_off, const Plan& plan,
                          ThreadPool& pool, size_t block) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  constexpr size_t kClaim = 2048;
  const size_t nblk = big_off.size() - 1;
  const size_t per_scalar = plan.glv ? 2 : 1;  // points per non-trivial scalar
  const GlvEndo* endo = plan.glv ? &glv_endo<C>() : nullptr;
  const size_t n = scalars.size();
  const unsigned W = plan.windows, NS = plan.splits;
  const size_t njobs = size_t{W} * NS;
  std::vector<Job<Buckets>> jobs(njobs);
  for (size_t t = 0; t < njobs; ++t) {
    const unsigned j = static_cast<unsigned>(t % W), s = static_cast<unsigned>(t / W);
    std::tie(jobs[t].lo, jobs[t].hi) = plan.range(j, s);
    if (jobs[t].hi > jobs[t].lo) jobs[t].lanes = plan.lanes(j, jobs[t].hi - jobs[t].lo);
  }
  // Filled in parallel below; allocated without value-initialization (a serial memset of tens of
  // MB would stall all threads).
  std::unique_ptr<uint32_t[]> idx;
  std::unique_ptr<D[]> digits;
  RawArray<A> img;  // phi(P_i) (+-), with the endomorphism split
  size_t cap = 0;

  size_t blk0 = 0;
  while (blk0 < nblk) {
    size_t blk1 = blk0 + 1;
    while (blk1 < nblk && big_off[blk1 + 1] - big_off[blk0] <= plan.chunk) ++blk1;
    const size_t base_pos = big_off[blk0];
    const size_t cnt = big_off[blk1] - base_pos;
    // Points of this pass: entry e < cnt is bases[idx[e]], entry cnt + e is img[e]; window j's
    // digits are digits[j * total + entry].
    const size_t total = cnt * per_scalar;
    if (cnt > cap) {
      idx.reset();
      digits.reset();
      idx.reset(new uint32_t[cnt]);
      digits.reset(new D[total * W]);
      if (plan.glv) img.reset(cnt);
      cap = cnt;
    }
    pool.parallel_chunks(blk1 - blk0, 1, [&](size_t b0, size_t b1) {
      for (size_t blk = blk0 + b0; blk < blk0 + b1; ++blk) {
        size_t pos = big_off[blk] - base_pos;
        uint32_t base = base_off[blk];
        const size_t e = std::min(n, (blk + 1) * block);
        for (size_t i = blk * block; i < e; ++i) {
          if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
          if (Traits::kind(scalars[i]) == 2) {
            if (!plan.glv) {
              idx[pos] = base;
              recode(Traits::canonical(scalars[i]), plan.c, W, &digits[pos], total);
            } else {
              const GlvScalar g = glv_split(Traits::canonical(scalars[i]));
              idx[pos] = base | (g.neg1 ? kGlvNeg : 0);
              ::new (img.get() + pos) A(glv_image(bases[base], *endo, g.neg2));
              recode(g.m1, plan.c, W, &digits[pos], total);
              recode(g.m2, plan.c, W, &digits[cnt + pos], total);
            }
            ++pos;
          }
          ++base;
        }
      }
    });
    for (auto& job : jobs) {
      job.next.store(job.hi > job.lo ? 0 : total, std::memory_order_relaxed);
      job.participants.store(0, std::memory_order_relaxed);
    }
#ifdef CUZK_MSM_TRACE
    const auto trace_t0 = std::chrono::steady_clock::now();
    std::vector<double> trace_end(pool.size()), trace_busy(pool.size());
    std::vector<int> trace_joins(pool.size());
#endif
    // Picks a job for a thread: an untouched one while any is left (each is handed out once),
    // else the job that will finish last (most remaining points per participant), if joining it
    // pays: the job's finish time drops by rem/parts - rem/(parts+1), while the new bucket array
    // costs its reduction (~2 additions per bucket, spread over all threads at the end).
    std::atomic<size_t> fresh{0};
    const double threads = pool.size();
    auto pick = [&]() -> size_t {
      for (;;) {
        const size_t f = fresh.fetch_add(1);
        if (f >= njobs) break;
        if (jobs[f].next.load() < total) return f;
      }
      size_t best = njobs;
      double best_time = 0;
      for (size_t t = 0; t < njobs; ++t) {
        const size_t nx = jobs[t].next.load(std::memory_order_relaxed);
        if (nx >= total) continue;
        const double parts = std::max(1u, jobs[t].participants.load(std::memory_order_relaxed));
        const double time = static_cast<double>(total - nx) / parts;
        if (time > best_time) {
          best_time = time;
          best = t;
        }
      }
      if (best == njobs) return njobs;
      const double parts = std::max(1u, jobs[best].participants.load(std::memory_order_relaxed));
      const double nbt = static_cast<double>(jobs[best].hi - jobs[best].lo) * jobs[best].lanes;
      const double gain = best_time / (parts + 1);  // rem/parts - rem/(parts+1)
      return gain > 2.0 * nbt / threads + kClaim ? best : njobs;
    };
    pool.parallel_for(pool.size(), [&](size_t w) {
#ifdef CUZK_MSM_TRACE
      const auto tw = std::chrono::steady_clock::now();
#endif
      size_t t = pick();
      while (t < njobs) {
        Job<Buckets>& job = jobs[t];
        job.participants.fetch_add(1);
        Buckets* bk = nullptr;
        {
          std::lock_guard lk(job.mu);
          if (!job.idle.empty()) {
            bk = job.idle.back();
            job.idle.pop_back();
          } else {
            job.arrays.push_back(std::make_unique<Buckets>(job.hi - job.lo, plan.batch, job.lanes));
            bk = job.arrays.back().get();
          }
        }
        const D* dg = &digits[size_t{t % W} * total];
        for (;;) {
          const size_t p = job.next.fetch_add(kClaim);
          if (p >= total) break;
          const size_t e = std::min(total, p + kClaim);
          if (!plan.glv) {
            const uint32_t* ix = idx.get() + p;
            accumulate<C>(
                *bk, [&](size_t i) { return std::pair<const A*, bool>(&bases[ix[i]], false); }, dg + p, e - p, job.lo);
            continue;
          }
          if (p < cnt) {
            const uint32_t* ix = idx.get() + p;
            accumulate<C>(
                *bk,
                [&](size_t i) {
                  const uint32_t v = ix[i];
                  return std::pair<const A*, bool>(&bases[v & ~kGlvNeg], (v & kGlvNeg) != 0);
                },
                dg + p, std::min(e, cnt) - p, job.lo);
          }
          if (e > cnt) {
            const size_t q = std::max(p, cnt);
            const A* im = img.get() + (q - cnt);
            accumulate<C>(
                *bk, [&](size_t i) { return std::pair<const A*, bool>(&im[i], false); }, dg + q, e - q, job.lo);
          }
        }
        {
          std::lock_guard lk(job.mu);
          job.idle.push_back(bk);
        }
        job.participants.fetch_sub(1);
#ifdef CUZK_MSM_TRACE
        trace_joins[w]++;
#endif
        t = pick();
      }
#ifdef CUZK_MSM_TRACE
      const auto te = std::chrono::steady_clock::now();
      trace_end[w] = std::chrono::duration<double, std::milli>(te - trace_t0).count();
      trace_busy[w] = std::chrono::duration<double, std::milli>(te - tw).count();
#endif
    });
#ifdef CUZK_MSM_TRACE
    {
      const double wall =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - trace_t0).count();
      double mn = 1e300;
      int joins = 0;
      size_t arrays = 0;
      for (size_t w = 0; w < trace_end.size(); ++w) {
        mn = std::min(mn, trace_end[w]);
        joins += trace_joins[w];
      }
      for (auto& job : jobs) arrays += job.arrays.size();
      std::fprintf(
          stderr,
          "msm trace: %zu points, %zu jobs, %zu arrays, %d joins: accumulate wall %.1f ms, first worker done %.1f ms\n",
          total, njobs, arrays, joins, wall, mn);
    }
#endif
    blk0 = blk1;
    if (plan.glv && blk0 < nblk) {
      // The buckets' pending additions point into img[], which the next pass overwrites.
      std::vector<Buckets*> open;
      for (auto& job : jobs) {
        for (auto& a : job.arrays) open.push_back(a.get());
      }
      pool.parallel_for(open.size(), [&](size_t i) { open[i]->settle(); });
    }
  }

  // Complete and reduce every bucket array, in slices of buckets so that all threads stay busy,
  // then combine the windows by Horner's rule.
  std::vector<std::pair<size_t, Buckets*>> all;
  for (size_t t = 0; t < njobs; ++t) {
    for (auto& a : jobs[t].arrays) all.emplace_back(t, a.get());
  }
  pool.parallel_for(all.size(), [&](size_t i) { all[i].second->finish(); });
  struct Slice {
    size_t array, b0, b1;
  };
  std::vector<Slice> slices;
  {
    size_t total = 0;
    for (auto& a : all) total += a.second->size();
    // About 4 slices per thread, none shorter than 1024 buckets (the lane reduction wants a few
    // hundred lanes of several buckets each).
    const size_t target = std::max<size_t>(1024, total / (size_t{pool.size()} * 4) + 1);
    for (size_t i = 0; i < all.size(); ++i) {
      const size_t m = all[i].second->size();
      const size_t k = std::max<size_t>(1, m / target);
      for (size_t q = 0; q < k; ++q) slices.push_back({i, m * q / k, m * (q + 1) / k});
    }
  }
  std::vector<J> part(slices.size());
  pool.parallel_for(slices.size(), [&](size_t i) {
    const Slice& sl = slices[i];
    part[i] = all[sl.array].second->reduce_weighted(sl.b0, sl.b1, jobs[all[sl.array].first].lo);
  });
  std::vector<J> window(W);
  for (size_t i = 0; i < slices.size(); ++i) window[all[slices[i].array].first % W] += part[i];
  J acc;
  for (unsigned j = W; j-- > 0;) {
    for (unsigned k = 0; k < plan.c; ++k) acc = acc.dbl();
    acc += window[j];
  }
  return acc;
}

// Points (twice the scalars with the endomorphism split) up to which msm_default_config takes the
// shared path.
inline constexpr double kSharedMaxPoints = 1 << 12;
// Additions per group (thread) of the shared path, at least: below it a second thread's wake-up and
// its own batches and reduction cost about what it saves (and a loaded daemon has no idle core).
inline constexpr size_t kSharedGroupAdds = 8192;

// Small MSMs (MsmPath::kShared, msm_default_config picks it up to a few thousand points): the
// windows' buckets in one array per group of windows (a group per thread), each point added into
// all of its group's windows in turn, so the batches are shared by the windows and an inversion
// serves hundreds of additions however few buckets a window has; then the windows reduced together
// (BatchAffineBuckets::reduce_windows). The jobs above batch per window and reduce per window: at
// 2^8 points their inversions and reductions cost more than the additions themselves.
template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> run_shared(const Bases& bases, const Scalars& scalars, const uint64_t* dens,
                       std::span<const uint32_t> big_off, std::span<const uint32_t> base_off, unsigned c, bool glv,
                       ThreadPool& pool, size_t block) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  const size_t per = glv ? 2 : 1, np = size_t{big_off.back()} * per, n = scalars.size();
  const unsigned W = msm_num_windows(c, glv);
  // Point p (P_i, then phi(P_i) with the split) enters window j with digit digits[p * W + j],
  // negated once more when neg[p] (the sign of the split half k1).
  std::vector<const A*> pt(np);
  std::vector<uint8_t> neg(np, 0);
  std::vector<int32_t> digits(np * W);
  std::vector<A> img(glv ? np / 2 : 0);
  const GlvEndo* endo = glv ? &glv_endo<C>() : nullptr;
  pool.parallel_chunks(big_off.size() - 1, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = b0; blk < b1; ++blk) {
      if (big_off[blk + 1] == big_off[blk]) continue;
      size_t pos = big_off[blk];
      uint32_t base = base_off[blk];
      for (size_t i = blk * block, e = std::min(n, (blk + 1) * block); i < e; ++i) {
        if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
        const uint32_t b = base++;
        if (Traits::kind(scalars[i]) != 2) continue;
        const size_t p = pos++ * per;
        pt[p] = &bases[b];
        if (!glv) {
          recode(Traits::canonical(scalars[i]), c, W, &digits[p * W], 1);
          continue;
        }
        const GlvScalar g = glv_split(Traits::canonical(scalars[i]));
        img[p / 2] = glv_image(bases[b], *endo, g.neg2);
        pt[p + 1] = &img[p / 2];
        neg[p] = g.neg1;
        recode(g.m1, c, W, &digits[p * W], 1);
        recode(g.m2, c, W, &digits[(p + 1) * W], 1);
      }
    }
  });
  const uint32_t nb = uint32_t{1} << (c - 1);
  const size_t groups = std::clamp<size_t>(std::min<size_t>(W / 4, np * W / kSharedGroupAdds), 1, pool.size());
  std::vector<J> window(W);
  pool.parallel_for(groups, [&](size_t g) {
    const unsigned j0 = static_cast<unsigned>(W * g / groups), j1 = static_cast<unsigned>(W * (g + 1) / groups);
    const size_t buckets = size_t{j1 - j0} * nb;
    // A quarter of the buckets per batch keeps conflicts (deferred points) rare; G2 batches stop at
    // 512 as in the jobs path (msm.cpp).
    const size_t max_batch = std::is_same_v<C, G1Config> ? 1024 : 512;
    BatchAffineBuckets<C> bk(buckets, static_cast<unsigned>(std::clamp<size_t>(buckets / 4, 16, max_batch)));
    for (size_t p = 0; p < np; ++p) {
      if (pt[p]->infinity) continue;
      const int32_t* d = &digits[p * W];
      for (unsigned j = j0; j < j1; ++j) {
        if (d[j] == 0) continue;
        const uint32_t mag = static_cast<uint32_t>(d[j] < 0 ? -d[j] : d[j]);
        bk.add(static_cast<uint32_t>((j - j0) * nb + mag - 1), pt[p], (d[j] < 0) != (neg[p] != 0));
      }
    }
    bk.finish();
    // Lanes per window: each step costs an inversion shared by the group, each lane ~3 Jacobian
    // additions at the end; with an inversion at ~6 Jacobian additions, sqrt(2 nb / windows) lanes
    // minimize the sum (msm.cpp's shared-path model).
    const double lanes = std::sqrt(2.0 * nb / static_cast<double>(j1 - j0));
    const std::vector<J> w = bk.reduce_windows(nb, static_cast<size_t>(std::max(1.0, std::round(lanes))));
    std::copy(w.begin(), w.end(), window.begin() + j0);
  });
  J acc;
  for (unsigned j = W; j-- > 0;) {
    for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
    acc += window[j];
  }
  return acc;
}

// A handful of non-trivial scalars (and no configuration asked for): each point multiplied on its
// own (wNAF), which costs less than any bucket set-up at that size.
inline constexpr size_t kDirectMaxScalars = 2;

template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> run_direct(const Bases& bases, const Scalars& scalars, const uint64_t* dens,
                       std::span<const uint32_t> big_off, std::span<const uint32_t> base_off, size_t block) {
  Jacobian<C> acc;
  for (size_t blk = 0; blk + 1 < big_off.size(); ++blk) {
    if (big_off[blk + 1] == big_off[blk]) continue;
    uint32_t base = base_off[blk];
    for (size_t i = blk * block, e = std::min(scalars.size(), (blk + 1) * block); i < e; ++i) {
      if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
      const uint32_t b = base++;
      if (Traits::kind(scalars[i]) == 2) acc += Jacobian<C>(bases[b]).mul(Traits::canonical(scalars[i]));
    }
  }
  return acc;
}

// The configuration for nbig non-trivial scalars: msm_default_config's, with what opt.config sets.
// Setting a knob of the jobs path (window_bits, splits, batch, jacobian_buckets, chunk) without a
// path asks for the jobs path.
template <class C>
MsmConfig resolve_config(size_t nbig, size_t num_bases, const MsmOptions& opt, unsigned threads) {
  MsmEndo endo = opt.config ? opt.config->endo : MsmEndo::kAuto;
  if (num_bases >= kGlvNeg) endo = MsmEndo::kOff;  // idx[] needs its top bit for the sign
  MsmPath path = MsmPath::kAuto;
  if (opt.config) {
    const MsmConfig& o = *opt.config;
    path = o.path;
    if (path == MsmPath::kAuto && (o.window_bits || o.splits || o.batch || o.jacobian_buckets || o.chunk)) {
      path = MsmPath::kJobs;
    }
  }
  MsmConfig cfg = msm_default_config(nbig, threads, !std::is_same_v<C, G1Config>, endo, path);
  if (!opt.config) return cfg;
  const MsmConfig& o = *opt.config;
  if (o.window_bits) {
    if (o.window_bits < 2 || o.window_bits > 24) throw std::invalid_argument("msm: window_bits must be 2..24");
    if (o.window_bits != cfg.window_bits && !o.splits) cfg.splits = 1;
    cfg.window_bits = o.window_bits;
  }
  if (o.splits) cfg.splits = o.splits;
  if (o.batch) cfg.batch = o.batch;
  cfg.jacobian_buckets = o.jacobian_buckets;
  cfg.chunk = o.chunk;
  return cfg;
}

template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> msm_run(const Bases& bases, const Scalars& scalars, const MsmOptions& opt) {
  using J = Jacobian<C>;
  const size_t n = scalars.size();
  const uint64_t* dens = nullptr;
  if (opt.density) {
    const size_t need = (n + 63) / 64;
    if (opt.density->size() < need) {
      throw std::invalid_argument("msm: the density bitmap has " + std::to_string(opt.density->size()) + " words but " +
                                  std::to_string(n) + " scalars need " + std::to_string(need));
    }
    dens = opt.density->data();
  } else if (bases.size() != n) {
    throw std::invalid_argument("msm: " + std::to_string(bases.size()) + " bases but " + std::to_string(n) +
                                " scalars (without a density bitmap the counts must be equal)");
  }
  if (bases.size() > UINT32_MAX || n > (size_t{1} << 40)) throw std::invalid_argument("msm: too many points");
  ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();

  // Phase 1: classification per block.
  constexpr size_t kBlock = 4096;
  const size_t nblk = (n + kBlock - 1) / kBlock;
  std::vector<uint32_t> big_off(nblk + 1, 0), one_off(nblk + 1, 0), base_off(nblk + 1, 0);
  pool.parallel_chunks(nblk, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = b0; blk < b1; ++blk) {
      uint32_t big = 0, one = 0, nb = 0;
      const size_t e = std::min(n, (blk + 1) * kBlock);
      for (size_t i = blk * kBlock; i < e; ++i) {
        if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
        ++nb;
        const int k = Traits::kind(scalars[i]);
        big += k == 2;
        one += k == 1;
      }
      big_off[blk + 1] = big;
      one_off[blk + 1] = one;
      base_off[blk + 1] = nb;
    }
  });
  for (size_t b = 0; b < nblk; ++b) {
    big_off[b + 1] += big_off[b];
    one_off[b + 1] += one_off[b];
    base_off[b + 1] += base_off[b];
  }
  if (dens && base_off[nblk] != bases.size()) {
    throw std::invalid_argument("msm: the density bitmap selects " + std::to_string(base_off[nblk]) + " of " +
                                std::to_string(n) + " scalars but " + std::to_string(bases.size()) +
                                " bases were given");
  }
  const size_t nbig = big_off[nblk], nones = one_off[nblk];

  // Points with scalar 1.
  std::vector<uint32_t> ones(nones);
  if (nones > 0) {
    pool.parallel_chunks(nblk, 1, [&](size_t b0, size_t b1) {
      for (size_t blk = b0; blk < b1; ++blk) {
        if (one_off[blk + 1] == one_off[blk]) continue;
        size_t pos = one_off[blk];
        uint32_t base = base_off[blk];
        const size_t e = std::min(n, (blk + 1) * kBlock);
        for (size_t i = blk * kBlock; i < e; ++i) {
          if (dens && !((dens[i / 64] >> (i % 64)) & 1)) continue;
          if (Traits::kind(scalars[i]) == 1) ones[pos++] = base;
          ++base;
        }
      }
    });
  }
  J result = sum_indexed<C>(bases, ones, pool);
  ones = {};

  const auto bo = std::span<const uint32_t>(big_off), so = std::span<const uint32_t>(base_off);
  const MsmConfig* oc = opt.config;
  const bool automatic = !oc || (oc->path == MsmPath::kAuto && oc->endo == MsmEndo::kAuto && !oc->window_bits &&
                                 !oc->splits && !oc->batch && !oc->jacobian_buckets && !oc->chunk);
  if (nbig > 0 && nbig <= kDirectMaxScalars && automatic) {
    result += run_direct<C, Traits>(bases, scalars, dens, bo, so, kBlock);
  } else if (nbig > 0) {
    const MsmConfig cfg = resolve_config<C>(nbig, bases.size(), opt, pool.size());
    const bool glv = cfg.endo == MsmEndo::kOn;
    if (cfg.path == MsmPath::kShared) {
      return result + run_shared<C, Traits>(bases, scalars, dens, bo, so, cfg.window_bits, glv, pool, kBlock);
    }
    Plan plan{cfg.window_bits,
              msm_num_windows(cfg.window_bits, glv),
              1,
              cfg.batch ? cfg.batch : 512,
              cfg.jacobian_buckets,
              size_t{1} << 22,
              nbig * (glv ? 2 : 1),
              0,
              glv};
    plan.top_mag = top_magnitude(plan.c, plan.windows, glv ? kGlvMaxMagnitude : r_minus_1());
    plan.splits = std::clamp<unsigned>(cfg.splits, 1, 1u << (plan.c - 1));
    // The split stores phi(P_i) for every scalar of a pass: at most ~128 MiB of them by default.
    if (glv) plan.chunk = std::max<size_t>(size_t{1} << 16, (size_t{128} << 20) / sizeof(Affine<C>));
    if (cfg.chunk) plan.chunk = cfg.chunk;
    J p;
    if (plan.c <= 16) {
      if (plan.jacobian)
        p = run_pippenger<C, JacobianBuckets<C>, int16_t, Traits>(bases, scalars, dens, bo, so, plan, pool, kBlock);
      else
        p = run_pippenger<C, BatchAffineBuckets<C>, int16_t, Traits>(bases, scalars, dens, bo, so, plan, pool, kBlock);
    } else {
      if (plan.jacobian)
        p = run_pippenger<C, JacobianBuckets<C>, int32_t, Traits>(bases, scalars, dens, bo, so, plan, pool, kBlock);
      else
        p = run_pippenger<C, BatchAffineBuckets<C>, int32_t, Traits>(bases, scalars, dens, bo, so, plan, pool, kBlock);
    }
    result += p;
  }
  return result;
}

}  // namespace cuzk::ec::msm_detail
