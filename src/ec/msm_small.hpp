#pragma once
// The CPU MSM's two engines for few points (msm_default_config picks them; the large engine is
// msm_jobs.hpp): the shared path, whose windows share one bucket array per group, and the direct
// path, a scalar multiplication per point.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ec/msm.hpp"
#include "ec/msm_buckets.hpp"
#include "ec/msm_glv.hpp"
#include "ec/msm_recode.hpp"

namespace cuzk::ec::msm_detail {

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
// (BatchAffineBuckets::reduce_windows). The jobs path batches per window and reduces per window: at
// 2^8 points its inversions and reductions cost more than the additions themselves.
template <class C, class Traits, class Bases, class Scalars>
Jacobian<C> run_shared(const Bases& bases, const Scalars& scalars, const uint64_t* dens, const BlockOffsets& off,
                       unsigned c, bool glv, ThreadPool& pool) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  const size_t per = glv ? 2 : 1, np = size_t{off.big_off.back()} * per, n = scalars.size();
  const unsigned W = msm_num_windows(c, glv);
  // Point p (P_i, then phi(P_i) with the split) enters window j with digit digits[p * W + j],
  // negated once more when neg[p] (the sign of the split half k1).
  std::vector<const A*> pt(np);
  std::vector<uint8_t> neg(np, 0);
  std::vector<int32_t> digits(np * W);
  std::vector<A> img(glv ? np / 2 : 0);
  const GlvEndo* endo = glv ? &glv_endo<C>() : nullptr;
  pool.parallel_chunks(off.big_off.size() - 1, 1, [&](size_t b0, size_t b1) {
    for (size_t blk = b0; blk < b1; ++blk) {
      if (off.big_off[blk + 1] == off.big_off[blk]) continue;
      size_t pos = off.big_off[blk];
      for_each_in_block(blk, off.block, n, dens, off.base_off[blk], [&](size_t i, uint32_t b) {
        if (Traits::kind(scalars[i]) != 2) return;
        const size_t p = pos++ * per;
        pt[p] = &bases[b];
        if (!glv) {
          recode(Traits::canonical(scalars[i]), c, W, &digits[p * W], 1);
          return;
        }
        const GlvScalar g = glv_split(Traits::canonical(scalars[i]));
        img[p / 2] = glv_image(bases[b], *endo, g.neg2);
        pt[p + 1] = &img[p / 2];
        neg[p] = g.neg1;
        recode(g.m1, c, W, &digits[p * W], 1);
        recode(g.m2, c, W, &digits[(p + 1) * W], 1);
      });
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
Jacobian<C> run_direct(const Bases& bases, const Scalars& scalars, const uint64_t* dens, const BlockOffsets& off) {
  Jacobian<C> acc;
  for (size_t blk = 0; blk + 1 < off.big_off.size(); ++blk) {
    if (off.big_off[blk + 1] == off.big_off[blk]) continue;
    for_each_in_block(blk, off.block, scalars.size(), dens, off.base_off[blk], [&](size_t i, uint32_t b) {
      if (Traits::kind(scalars[i]) == 2) acc += Jacobian<C>(bases[b]).mul(Traits::canonical(scalars[i]));
    });
  }
  return acc;
}

}  // namespace cuzk::ec::msm_detail
