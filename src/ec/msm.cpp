#include "ec/msm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ec/fq_ifma.hpp"
#include "ec/msm_buckets.hpp"
#include "ec/msm_pippenger.hpp"
#include "util/rng.hpp"
#include "util/tuning.hpp"

namespace cuzk::ec {

unsigned msm_num_windows(unsigned c, bool endo) {
  // Enough windows that the top digit of any k < r, or of any split half (<= kGlvMaxMagnitude),
  // plus the carry from below stays below 2^(c-1), so the balanced recoding never carries out of
  // the last window. Starting from ceil(bits / c) keeps the top bits within one window.
  static const ff::Limbs<4> r_minus_1 = msm_detail::r_minus_1();
  const ff::Limbs<4>& max = endo ? msm_detail::kGlvMaxMagnitude : r_minus_1;
  const unsigned bits = endo ? 127 : 255;
  unsigned w = (bits + c - 1) / c;
  for (;; ++w) {
    const uint64_t top = msm_detail::extract_bits(max, (w - 1) * c, c);
    if ((w - 1) * c >= 256 || top + 1 < (uint64_t{1} << (c - 1))) return w;
  }
}

bool msm_endo_default() {
  return tuning().msm_glv;
}

namespace {

// Costs in units of one batched affine bucket addition (measured on Zen 4 and on the 16-core Xeon
// device machine; the small-MSM terms on the 2-core Xeon dev machine, bench_msm G1small/G2small).
struct UnitCosts {
  double inv;        // one inversion (divsteps, ~1.6 us on Zen 4, plus the lane products)
  double max_batch;  // the largest batch worth its memory
  double scalar;     // an addition of a batch too small for the IFMA kernel (< kIfmaMinBatch)
  double jac;        // a Jacobian addition (reduction tails, running sums of short ranges)
};

UnitCosts unit_costs(bool g2) {
  // With the AVX-512 IFMA kernels (ec/fq_ifma.hpp) a G1 addition is ~2.4x cheaper (G2 ~3x) while
  // the inversion stays scalar: batches of up to 1024 measured 4-8% faster for G1 on Zen 4 (2^16,
  // 2^20, one thread); G2 was neutral, so it keeps 512 (its kernel stash per step is twice as
  // large). A Jacobian addition (11-16 multiplications) is ~2.2 scalar batched ones (~6).
  const bool ifma = fq_ifma::active();
  UnitCosts u;
  u.inv = g2 ? (ifma ? 8.0 : 4.0) : (ifma ? 30.0 : 8.0);
  u.max_batch = !g2 && ifma ? 1024.0 : 512.0;
  u.scalar = ifma ? (g2 ? 3.0 : 2.4) : 1.0;
  u.jac = 2.2 * u.scalar;
  return u;
}

struct Choice {
  MsmConfig config;
  double cost = 1e300;  // estimated time, in additions on one thread
};

Choice choose_jobs(size_t n, unsigned threads, bool g2, bool endo, const UnitCosts& u) {
  // The jobs path (run_pippenger), tuned for large MSMs (the shared path's model below is the one
  // for small ones, where this one underrates the reductions):
  //  - a job (window, 1/S of its buckets) adds ~n/S points and reduces nb/S buckets, a reduction
  //    step being two batched affine additions (~4 Jacobian-ish ones for tiny ranges);
  //  - every job also scans all n digits of its window, and a split range loses locality: ~0.02
  //    per digit and job (S = 8 measured +15% CPU at 2^20);
  //  - threads share the jobs (window, bucket range) dynamically, so the time is about the total
  //    work over the threads, plus one more bucket array (~4 additions per bucket: allocation,
  //    reduction) for every thread beyond the number of jobs;
  //  - the batch inversion is amortized over the batch (min(512 or 1024, points per task / 8, a
  //    quarter of the task's buckets)). A batch holds one addition per bucket; with more entries
  //    than about half the buckets most of it waits for the next batch or spills to Jacobian
  //    additions (c = 10, 512 buckets: batch 1024 -> 128 made the MSMs of 4k points 2x faster).
  // With the endomorphism split there are 2n points of 127 bits (msm_glv.hpp).
  Choice best;
  const double dn = static_cast<double>(std::max<size_t>(n, 1)) * (endo ? 2 : 1);
  for (unsigned c = 2; c <= 20; ++c) {
    const unsigned w = msm_num_windows(c, endo);
    const double nb = std::ldexp(1.0, static_cast<int>(c) - 1);
    for (unsigned s = 1; s <= 64; s *= 2) {
      if (nb / s < 8 && s > 1) break;
      const double nbt = nb / s;
      const double batch = std::clamp(std::min(dn / s / 8, nbt / 4), 16.0, u.max_batch);
      // Bucket arrays beyond ~4 MB miss the per-core L2 (device: 2 MB/core, c = 17 measured 15%
      // slower than c = 16 at 2^22 for G1 although it has 4% less work).
      const double bytes = nbt * (g2 ? 192.0 : 96.0);
      const double per_add = (1.0 + u.inv / batch) * (bytes > 4.5e6 ? 1.2 : 1.0);
      const double per_task = dn / s * per_add + nbt * (nbt >= 64 ? 2.2 : 4.0) + dn * (s > 1 ? 0.02 : 0.002) + 20.0;
      const double jobs = static_cast<double>(w) * s;
      const double extra = std::max(0.0, threads - jobs) * 4.0 * nbt;
      const double cost = (jobs * per_task + extra) / std::min<double>(threads, jobs * dn / 2048 + 1);
      if (cost < best.cost * 0.999) {
        best.cost = cost;
        best.config.window_bits = c;
        best.config.splits = s;
        best.config.batch = static_cast<unsigned>(batch);
      }
    }
  }
  best.config.path = MsmPath::kJobs;
  return best;
}

Choice choose_shared(size_t n, unsigned threads, bool endo, const UnitCosts& u) {
  // The shared path (run_shared), as it runs: groups of windows (one per thread, at least 4
  // windows and kSharedGroupAdds additions each), every point added into each window of its group in batches
  // of a quarter of the group's buckets; the group's windows reduced together (2 additions per
  // bucket, an inversion per step of the group, ~3 Jacobian additions plus a short multiplication
  // per lane); c doublings per window (Horner, ~half a Jacobian addition each); ~20 additions of
  // set-up per group.
  Choice best;
  const double np = static_cast<double>(std::max<size_t>(n, 1)) * (endo ? 2 : 1);
  for (unsigned c = 2; c <= 14; ++c) {
    const unsigned w = msm_num_windows(c, endo);
    const double nb = std::ldexp(1.0, static_cast<int>(c) - 1);
    const double groups = std::clamp(std::min(std::floor(w / 4.0), std::floor(np * w / msm_detail::kSharedGroupAdds)),
                                     1.0, static_cast<double>(std::max(1u, threads)));
    const double wg = std::ceil(w / groups);
    const double adds = np * wg, batch = std::min(std::clamp(wg * nb / 4, 16.0, u.max_batch), adds);
    const double add = batch < msm_detail::kIfmaMinBatch ? u.scalar : 1.0;
    const double lanes = std::max(1.0, std::round(std::sqrt(2.0 * nb / wg)));
    const double pairs = 2 * lanes * wg, steps = std::ceil(nb / lanes);
    const double reduce = 2.0 * wg * nb * (pairs >= msm_detail::kIfmaMinBatch ? 1.0 : u.scalar) + steps * u.inv +
                          wg * (3.0 * lanes + 4.0) * u.jac;
    const double cost = adds * (add + u.inv / batch) + reduce + w * c * 0.5 * u.jac + 20.0 * groups;
    if (cost < best.cost * 0.999) {
      best.cost = cost;
      best.config.window_bits = c;
    }
  }
  best.config.splits = 1;
  best.config.path = MsmPath::kShared;
  return best;
}

}  // namespace

MsmConfig msm_default_config(size_t n, unsigned threads, bool g2, MsmEndo endo, MsmPath path) {
  // The endomorphism split halves the windows and so the bucket reductions, but costs a pass that
  // writes phi(P_i) (an Fq multiplication and 100-200 bytes of memory traffic per point). Measured
  // on Zen 4 (one thread, random scalars, CPU time): G1 2^12 / 2^14 / 2^16: -20% / -33% / -6%,
  // 2^17 to 2^20: -4% to +5% (noise level); G2 2^12 / 2^14 / 2^16 / 2^18: -46% / -18% / -6% / -2%,
  // 2^19 / 2^20: -2% / 0%. So automatic mode splits up to 2^16 (G1) and 2^18 (G2) non-trivial
  // scalars, where it clearly pays.
  constexpr size_t kAutoMaxG1 = size_t{1} << 16, kAutoMaxG2 = size_t{1} << 18;
  bool on = endo == MsmEndo::kOn;
  if (endo == MsmEndo::kAuto) on = msm_endo_default() && n <= (g2 ? kAutoMaxG2 : kAutoMaxG1);
  const UnitCosts u = unit_costs(g2);
  threads = std::max(1u, threads);
  // Small MSMs take the shared path by size, not by comparing the two models: the jobs model
  // underrates the per-window batches and reductions there (measured on the 2-core Xeon, 1 and 2
  // threads, G1 and G2, 2^4 to 2^10 scalars: the shared path 1.7-2.9x faster; at 2^12 the two were
  // within the noise of a loaded machine).
  const double points = static_cast<double>(n) * (on ? 2 : 1);
  const bool shared = path == MsmPath::kShared || (path == MsmPath::kAuto && points <= msm_detail::kSharedMaxPoints);
  Choice best = shared ? choose_shared(n, threads, on, u) : choose_jobs(n, threads, g2, on, u);
  best.config.endo = on ? MsmEndo::kOn : MsmEndo::kOff;
  return best.config;
}

G1 msm(std::span<const G1Affine> bases, std::span<const Fr> scalars, const MsmOptions& o) {
  return msm_detail::msm_run<G1Config, msm_detail::FrScalar>(bases, scalars, o);
}
G2 msm(std::span<const G2Affine> bases, std::span<const Fr> scalars, const MsmOptions& o) {
  return msm_detail::msm_run<G2Config, msm_detail::FrScalar>(bases, scalars, o);
}
G1 msm_sum(std::span<const G1Affine> bases1, std::span<const Fr> scalars1, std::span<const G1Affine> bases2,
           std::span<const Fr> scalars2, const MsmOptions& o) {
  if (o.density) throw std::invalid_argument("msm_sum: no density bitmap");
  if (bases1.size() != scalars1.size() || bases2.size() != scalars2.size()) {
    throw std::invalid_argument("msm_sum: " + std::to_string(bases1.size()) + " + " + std::to_string(bases2.size()) +
                                " bases but " + std::to_string(scalars1.size()) + " + " +
                                std::to_string(scalars2.size()) + " scalars (the counts must be equal)");
  }
  return msm_detail::msm_run<G1Config, msm_detail::FrScalar>(msm_detail::Joined<G1Affine>{bases1, bases2},
                                                             msm_detail::Joined<Fr>{scalars1, scalars2}, o);
}
G1 msm_canonical(std::span<const G1Affine> bases, std::span<const ff::Limbs<4>> scalars, const MsmOptions& o) {
  return msm_detail::msm_run<G1Config, msm_detail::CanonicalScalar>(bases, scalars, o);
}
G2 msm_canonical(std::span<const G2Affine> bases, std::span<const ff::Limbs<4>> scalars, const MsmOptions& o) {
  return msm_detail::msm_run<G2Config, msm_detail::CanonicalScalar>(bases, scalars, o);
}

std::pair<Fr, Fr> test_bases_dlog(uint64_t seed) {
  Xoshiro256 rng(seed ^ 0x6d736d5f62617365ULL);
  Fr a = Fr::random(rng);
  Fr b = Fr::random(rng);
  return {a, b};
}

namespace {

template <class C>
std::vector<Affine<C>> test_bases(size_t n, uint64_t seed, ThreadPool* pool, const Affine<C>& gen) {
  using J = Jacobian<C>;
  std::vector<Affine<C>> out(n);
  if (n == 0) return out;
  ThreadPool& tp = pool ? *pool : ThreadPool::global();
  const std::pair<Fr, Fr> dlog = test_bases_dlog(seed);
  const Fr a = dlog.first, b = dlog.second;  // (no structured bindings: lambdas capture them)
  const J g(gen);
  const Affine<C> step = g.mul(b).to_affine();
  const size_t chunks = std::min<size_t>(n, size_t{tp.size()} * 4);
  const size_t per = (n + chunks - 1) / chunks;
  tp.parallel_for(chunks, [&](size_t c) {
    const size_t lo = c * per, hi = std::min(n, lo + per);
    if (lo >= hi) return;
    std::vector<J> pts(hi - lo);
    J p = g.mul(a + Fr::from_u64(lo) * b);
    for (size_t i = lo; i < hi; ++i) {
      pts[i - lo] = p;
      p = p.add_affine(step);
    }
    batch_to_affine<C>(pts, std::span<Affine<C>>(out).subspan(lo, hi - lo));
  });
  return out;
}

}  // namespace

std::vector<G1Affine> g1_test_bases(size_t n, uint64_t seed, ThreadPool* pool) {
  return test_bases<G1Config>(n, seed, pool, g1_generator());
}
std::vector<G2Affine> g2_test_bases(size_t n, uint64_t seed, ThreadPool* pool) {
  return test_bases<G2Config>(n, seed, pool, g2_generator());
}

}  // namespace cuzk::ec
