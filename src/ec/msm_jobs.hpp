#pragma once
// The CPU MSM's engine for many points (msm_pippenger.hpp step 4-5): signed window digits, jobs of
// (window, bucket range) shared by all threads, every bucket array reduced once at the end.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ec/msm.hpp"
#include "ec/msm_buckets.hpp"
#include "ec/msm_glv.hpp"
#include "ec/msm_recode.hpp"

namespace cuzk::ec::msm_detail {

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

// The points of one pass (at most Plan::chunk non-trivial scalars): entry e < cnt is
// bases[idx[e]], entry cnt + e is img[e] (with the split); window j's digits are
// digits[j * total + entry]. The arrays grow to the largest pass and are reused.
template <class C, class D>
struct PassPoints {
  std::unique_ptr<uint32_t[]> idx;
  std::unique_ptr<D[]> digits;
  RawArray<Affine<C>> img;  // phi(P_i) (+-), with the endomorphism split
  size_t cap = 0, cnt = 0, total = 0;

  void resize(size_t count, const Plan& plan) {
    cnt = count;
    total = count * (plan.glv ? 2 : 1);
    if (count <= cap) return;
    // Filled in parallel by recode_pass; allocated without value-initialization (a serial memset
    // of tens of MB would stall all threads).
    idx.reset();
    digits.reset();
    idx.reset(new uint32_t[count]);
    digits.reset(new D[total * plan.windows]);
    if (plan.glv) img.reset(count);
    cap = count;
  }
};

// Recodes the non-trivial scalars of blocks [blk0, blk1) into pts (already resized to their count).
template <class C, class D, class Traits, class Bases, class Scalars>
void recode_pass(PassPoints<C, D>& pts, const Bases& bases, const Scalars& scalars, const uint64_t* dens,
                 const BlockOffsets& off, size_t blk0, size_t blk1, const Plan& plan, ThreadPool& pool) {
  const GlvEndo* endo = plan.glv ? &glv_endo<C>() : nullptr;
  const size_t base_pos = off.big_off[blk0];
  pool.parallel_chunks(blk1 - blk0, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = blk0 + b0; blk < blk0 + b1; ++blk) {
      size_t pos = off.big_off[blk] - base_pos;
      for_each_in_block(blk, off.block, scalars.size(), dens, off.base_off[blk], [&](size_t i, uint32_t base) {
        if (Traits::kind(scalars[i]) != 2) return;
        if (!plan.glv) {
          pts.idx[pos] = base;
          recode(Traits::canonical(scalars[i]), plan.c, plan.windows, &pts.digits[pos], pts.total);
        } else {
          const GlvScalar g = glv_split(Traits::canonical(scalars[i]));
          pts.idx[pos] = base | (g.neg1 ? kGlvNeg : 0);
          ::new (pts.img.get() + pos) Affine<C>(glv_image(bases[base], *endo, g.neg2));
          recode(g.m1, plan.c, plan.windows, &pts.digits[pos], pts.total);
          recode(g.m2, plan.c, plan.windows, &pts.digits[pts.cnt + pos], pts.total);
        }
        ++pos;
      });
    }
  });
}

// One job per (window, bucket range). Threads share the jobs dynamically: a job's points are
// claimed in chunks of kClaim from an atomic cursor, each participating thread adds its chunks into
// a bucket array of its own (reused across passes), and every array is reduced at the end.
template <class Buckets>
struct Job {
  uint32_t lo = 0, hi = 0;
  unsigned window = 0;
  unsigned lanes = 1;
  std::atomic<size_t> next{0};
  std::atomic<unsigned> participants{0};
  std::mutex mu;
  std::vector<std::unique_ptr<Buckets>> arrays;  // every array of this job
  std::vector<Buckets*> idle;                    // arrays no thread is using

  // A bucket array for one more participant: an idle one, else a new one.
  Buckets* check_out(const Plan& plan) {
    participants.fetch_add(1);
    std::lock_guard lk(mu);
    if (!idle.empty()) {
      Buckets* bk = idle.back();
      idle.pop_back();
      return bk;
    }
    arrays.push_back(std::make_unique<Buckets>(hi - lo, plan.batch, lanes));
    return arrays.back().get();
  }
  void check_in(Buckets* bk) {
    {
      std::lock_guard lk(mu);
      idle.push_back(bk);
    }
    participants.fetch_sub(1);
  }
};

// The jobs of one MSM and the choice of the next job for a free thread: an untouched one while any
// is left (each is handed out once per pass), else the job that will finish last (most remaining
// points per participant), if joining it pays: the job's finish time drops by rem/parts -
// rem/(parts+1), while the new bucket array costs its reduction (~2 additions per bucket, spread
// over all threads at the end). So threads that run slower (shared or throttled cores) simply
// process fewer points.
template <class Buckets>
class JobBoard {
 public:
  static constexpr size_t kClaim = 2048;

  JobBoard(const Plan& plan, unsigned threads) : jobs_(size_t{plan.windows} * plan.splits), threads_(threads) {
    for (size_t t = 0; t < jobs_.size(); ++t) {
      const unsigned j = static_cast<unsigned>(t % plan.windows), s = static_cast<unsigned>(t / plan.windows);
      Job<Buckets>& job = jobs_[t];
      job.window = j;
      std::tie(job.lo, job.hi) = plan.range(j, s);
      if (job.hi > job.lo) job.lanes = plan.lanes(j, job.hi - job.lo);
    }
  }

  void start_pass(size_t total) {
    total_ = total;
    fresh_.store(0, std::memory_order_relaxed);
    for (auto& job : jobs_) {
      job.next.store(job.hi > job.lo ? 0 : total, std::memory_order_relaxed);
      job.participants.store(0, std::memory_order_relaxed);
    }
  }

  // The next job for a free thread, or nullptr when none is worth joining.
  Job<Buckets>* pick() {
    for (;;) {
      const size_t f = fresh_.fetch_add(1);
      if (f >= jobs_.size()) break;
      if (jobs_[f].next.load() < total_) return &jobs_[f];
    }
    Job<Buckets>* best = nullptr;
    double best_time = 0;
    for (auto& job : jobs_) {
      const size_t nx = job.next.load(std::memory_order_relaxed);
      if (nx >= total_) continue;
      const double time = static_cast<double>(total_ - nx) / parts(job);
      if (time > best_time) {
        best_time = time;
        best = &job;
      }
    }
    if (!best) return nullptr;
    const double nbt = static_cast<double>(best->hi - best->lo) * best->lanes;
    const double gain = best_time / (parts(*best) + 1);  // rem/parts - rem/(parts+1)
    return gain > 2.0 * nbt / threads_ + kClaim ? best : nullptr;
  }

  std::vector<Job<Buckets>>& jobs() { return jobs_; }

 private:
  static double parts(const Job<Buckets>& job) {
    return std::max(1u, job.participants.load(std::memory_order_relaxed));
  }

  std::vector<Job<Buckets>> jobs_;
  double threads_;
  size_t total_ = 0;
  std::atomic<size_t> fresh_{0};
};

// Adds the pass's points into one participant's bucket array of `job`, chunk by chunk, until the
// job's points are all claimed.
template <class C, class Buckets, class D, class Bases>
void work_on(Job<Buckets>& job, Buckets& bk, const PassPoints<C, D>& pts, const Bases& bases, const Plan& plan) {
  using A = Affine<C>;
  constexpr size_t kClaim = JobBoard<Buckets>::kClaim;
  const size_t cnt = pts.cnt, total = pts.total;
  const D* dg = &pts.digits[size_t{job.window} * total];
  for (;;) {
    const size_t p = job.next.fetch_add(kClaim);
    if (p >= total) return;
    const size_t e = std::min(total, p + kClaim);
    const uint32_t* ix = pts.idx.get() + p;
    if (!plan.glv) {
      accumulate<C>(
          bk, [&](size_t i) { return std::pair<const A*, bool>(&bases[ix[i]], false); }, dg + p, e - p, job.lo);
      continue;
    }
    if (p < cnt) {
      accumulate<C>(
          bk,
          [&](size_t i) {
            const uint32_t v = ix[i];
            return std::pair<const A*, bool>(&bases[v & ~kGlvNeg], (v & kGlvNeg) != 0);
          },
          dg + p, std::min(e, cnt) - p, job.lo);
    }
    if (e > cnt) {
      const size_t q = std::max(p, cnt);
      const A* im = pts.img.get() + (q - cnt);
      accumulate<C>(
          bk, [&](size_t i) { return std::pair<const A*, bool>(&im[i], false); }, dg + q, e - q, job.lo);
    }
  }
}

// Completes and reduces every bucket array, in slices of buckets so that all threads stay busy,
// then combines the windows by Horner's rule.
template <class C, class Buckets>
Jacobian<C> reduce_jobs(std::vector<Job<Buckets>>& jobs, const Plan& plan, ThreadPool& pool) {
  using J = Jacobian<C>;
  std::vector<std::pair<const Job<Buckets>*, Buckets*>> all;
  for (auto& job : jobs) {
    for (auto& a : job.arrays) all.emplace_back(&job, a.get());
  }
  pool.parallel_for(all.size(), [&](size_t i) { all[i].second->finish(); });
  struct Slice {
    size_t array, b0, b1;
  };
  std::vector<Slice> slices;
  size_t buckets = 0;
  for (auto& a : all) buckets += a.second->size();
  // About 4 slices per thread, none shorter than 1024 buckets (the lane reduction wants a few
  // hundred lanes of several buckets each).
  const size_t target = std::max<size_t>(1024, buckets / (size_t{pool.size()} * 4) + 1);
  for (size_t i = 0; i < all.size(); ++i) {
    const size_t m = all[i].second->size();
    const size_t k = std::max<size_t>(1, m / target);
    for (size_t q = 0; q < k; ++q) slices.push_back({i, m * q / k, m * (q + 1) / k});
  }
  std::vector<J> part(slices.size());
  pool.parallel_for(slices.size(), [&](size_t i) {
    const Slice& sl = slices[i];
    part[i] = all[sl.array].second->reduce_weighted(sl.b0, sl.b1, all[sl.array].first->lo);
  });
  std::vector<J> window(plan.windows);
  for (size_t i = 0; i < slices.size(); ++i) window[all[slices[i].array].first->window] += part[i];
  J acc;
  for (unsigned j = plan.windows; j-- > 0;) {
    for (unsigned k = 0; k < plan.c; ++k) acc = acc.dbl();
    acc += window[j];
  }
  return acc;
}

// The non-trivial scalars in passes of at most plan.chunk: each pass recoded, then every thread
// works on the jobs until none is worth joining. Bucket arrays persist across passes, so each is
// reduced once.
template <class C, class Buckets, class D, class Traits, class Bases, class Scalars>
Jacobian<C> run_pippenger(const Bases& bases, const Scalars& scalars, const uint64_t* dens, const BlockOffsets& off,
                          const Plan& plan, ThreadPool& pool) {
  const size_t nblk = off.big_off.size() - 1;
  JobBoard<Buckets> board(plan, pool.size());
  PassPoints<C, D> pts;
  for (size_t blk0 = 0; blk0 < nblk;) {
    size_t blk1 = blk0 + 1;
    while (blk1 < nblk && off.big_off[blk1 + 1] - off.big_off[blk0] <= plan.chunk) ++blk1;
    pts.resize(off.big_off[blk1] - off.big_off[blk0], plan);
    recode_pass<C, D, Traits>(pts, bases, scalars, dens, off, blk0, blk1, plan, pool);
    board.start_pass(pts.total);
    pool.parallel_for(pool.size(), [&](size_t) {
      while (Job<Buckets>* job = board.pick()) {
        Buckets* bk = job->check_out(plan);
        work_on<C>(*job, *bk, pts, bases, plan);
        job->check_in(bk);
      }
    });
    blk0 = blk1;
    if (plan.glv && blk0 < nblk) {
      // The buckets' pending additions point into img[], which the next pass overwrites.
      std::vector<Buckets*> open;
      for (auto& job : board.jobs()) {
        for (auto& a : job.arrays) open.push_back(a.get());
      }
      pool.parallel_for(open.size(), [&](size_t i) { open[i]->settle(); });
    }
  }
  return reduce_jobs<C>(board.jobs(), plan, pool);
}

}  // namespace cuzk::ec::msm_detail
