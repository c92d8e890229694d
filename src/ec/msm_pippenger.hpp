#pragma once
// The Pippenger MSM engine behind ec/msm.hpp (instantiated for G1 and G2 in msm.cpp).
//
// Phases:
//  1. Classify the scalars in blocks of 4096 (in parallel): 0 (skipped), 1 (summed directly) or
//     "big"; with a density bitmap, also count the bases each block consumes. Prefix sums give
//     every block its output positions, so the next passes are parallel and deterministic.
//  2. Sum the points with scalar 1 (batched affine additions in lanes, in parallel).
//  3. Choose the window width c and the bucket ranges per window (msm_default_config); few points
//     take msm_small.hpp's engines instead of steps 4-5.
//  4. For each super-chunk of at most MsmConfig::chunk (2^22) big scalars: recode them into
//     signed c-bit digits (window-major arrays), then let all threads share the jobs (window,
//     bucket range): a job's points are claimed in chunks by whoever works on it, each worker
//     adding into a bucket array of its own (msm_jobs.hpp). Arrays persist across
//     super-chunks, so each is reduced once. With the endomorphism split (msm_glv.hpp) every big
//     scalar becomes two 127-bit halves, for P_i and for phi(P_i) (computed in the recoding pass
//     into a per-super-chunk array, so chunks default to ~128 MiB of those images).
//  5. Reduce the arrays by running sums, in bucket slices spread over the threads, to
//     sum_m m * bucket[m] per window; combine the windows by Horner's rule (c doublings each).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/msm.hpp"
#include "ec/msm_buckets.hpp"
#include "ec/msm_glv.hpp"
#include "ec/msm_jobs.hpp"
#include "ec/msm_recode.hpp"
#include "ec/msm_small.hpp"

namespace cuzk::ec::msm_detail {

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

// Whether o sets a knob of the jobs path (window_bits, splits, batch, jacobian_buckets, chunk).
inline bool sets_jobs_knob(const MsmConfig& o) {
  return o.window_bits || o.splits || o.batch || o.jacobian_buckets || o.chunk;
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
    if (path == MsmPath::kAuto && sets_jobs_knob(o)) path = MsmPath::kJobs;
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

// Phase 1: per block of `block` scalars, how many are non-trivial, how many are 1 and how many
// have a base; as prefix sums, so that the later passes know where each block's output goes.
struct Classified {
  std::vector<uint32_t> big_off, one_off, base_off;
};

template <class Traits, class Scalars>
Classified classify(const Scalars& scalars, const uint64_t* dens, size_t block, ThreadPool& pool) {
  const size_t n = scalars.size(), nblk = (n + block - 1) / block;
  Classified k{std::vector<uint32_t>(nblk + 1, 0), std::vector<uint32_t>(nblk + 1, 0),
               std::vector<uint32_t>(nblk + 1, 0)};
  pool.parallel_chunks(nblk, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = b0; blk < b1; ++blk) {
      uint32_t big = 0, one = 0, nb = 0;
      for_each_in_block(blk, block, n, dens, 0, [&](size_t i, uint32_t) {
        ++nb;
        const int kind = Traits::kind(scalars[i]);
        big += kind == 2;
        one += kind == 1;
      });
      k.big_off[blk + 1] = big;
      k.one_off[blk + 1] = one;
      k.base_off[blk + 1] = nb;
    }
  });
  for (size_t b = 0; b < nblk; ++b) {
    k.big_off[b + 1] += k.big_off[b];
    k.one_off[b + 1] += k.one_off[b];
    k.base_off[b + 1] += k.base_off[b];
  }
  return k;
}

// Phase 2: the bases whose scalar is 1, summed without buckets.
template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> sum_ones(const Bases& bases, const Scalars& scalars, const uint64_t* dens, const Classified& k,
                     size_t block, ThreadPool& pool) {
  const size_t nblk = k.one_off.size() - 1;
  std::vector<uint32_t> ones(k.one_off[nblk]);
  if (ones.empty()) return Jacobian<C>();
  pool.parallel_chunks(nblk, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = b0; blk < b1; ++blk) {
      if (k.one_off[blk + 1] == k.one_off[blk]) continue;
      size_t pos = k.one_off[blk];
      for_each_in_block(blk, block, scalars.size(), dens, k.base_off[blk], [&](size_t i, uint32_t base) {
        if (Traits::kind(scalars[i]) == 1) ones[pos++] = base;
      });
    }
  });
  return sum_indexed<C>(bases, ones, pool);
}

// The jobs engine's plan for cfg.
template <class C>
Plan make_plan(const MsmConfig& cfg, size_t nbig) {
  const bool glv = cfg.endo == MsmEndo::kOn;
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
  return plan;
}

// Phases 3-5 for the non-trivial scalars: the engine msm_default_config (or opt.config) picks.
template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> sum_big(const Bases& bases, const Scalars& scalars, const uint64_t* dens, const BlockOffsets& off,
                    size_t nbig, const MsmOptions& opt, ThreadPool& pool) {
  const MsmConfig* oc = opt.config;
  const bool automatic = !oc || (oc->path == MsmPath::kAuto && oc->endo == MsmEndo::kAuto && !sets_jobs_knob(*oc));
  if (nbig <= kDirectMaxScalars && automatic) return run_direct<C, Traits>(bases, scalars, dens, off);
  const MsmConfig cfg = resolve_config<C>(nbig, bases.size(), opt, pool.size());
  if (cfg.path == MsmPath::kShared) {
    return run_shared<C, Traits>(bases, scalars, dens, off, cfg.window_bits, cfg.endo == MsmEndo::kOn, pool);
  }
  const Plan plan = make_plan<C>(cfg, nbig);
  if (plan.c <= 16) {
    if (plan.jacobian)
      return run_pippenger<C, JacobianBuckets<C>, int16_t, Traits>(bases, scalars, dens, off, plan, pool);
    return run_pippenger<C, BatchAffineBuckets<C>, int16_t, Traits>(bases, scalars, dens, off, plan, pool);
  }
  if (plan.jacobian)
    return run_pippenger<C, JacobianBuckets<C>, int32_t, Traits>(bases, scalars, dens, off, plan, pool);
  return run_pippenger<C, BatchAffineBuckets<C>, int32_t, Traits>(bases, scalars, dens, off, plan, pool);
}

template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> msm_run(const Bases& bases, const Scalars& scalars, const MsmOptions& opt) {
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

  constexpr size_t kBlock = 4096;
  const Classified k = classify<Traits>(scalars, dens, kBlock, pool);
  if (dens && k.base_off.back() != bases.size()) {
    throw std::invalid_argument("msm: the density bitmap selects " + std::to_string(k.base_off.back()) + " of " +
                                std::to_string(n) + " scalars but " + std::to_string(bases.size()) +
                                " bases were given");
  }
  Jacobian<C> result = sum_ones<C, Traits>(bases, scalars, dens, k, kBlock, pool);
  const size_t nbig = k.big_off.back();
  if (nbig == 0) return result;
  const BlockOffsets off{k.big_off, k.base_off, kBlock};
  return result + sum_big<C, Traits>(bases, scalars, dens, off, nbig, opt, pool);
}

}  // namespace cuzk::ec::msm_detail
