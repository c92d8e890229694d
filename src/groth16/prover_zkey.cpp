#include "groth16/prover_zkey.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "ec/msm.hpp"
#include "poly/domain.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point& t) {
  const Clock::time_point now = Clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

[[noreturn]] void fail(const std::string& msg) {
  throw std::invalid_argument("prove_zkey: " + msg);
}

void check_key(const Zkey& z) {
  const uint64_t n = z.domain_size;
  if (n < 2 || (n & (n - 1)) != 0 || z.log2_domain_size >= 32 || (uint64_t{1} << z.log2_domain_size) != n) {
    fail("zkey domain size " + std::to_string(n) + " (log2 " + std::to_string(z.log2_domain_size) +
         ") is not a power of two >= 2");
  }
  if (z.n_vars == 0 || z.n_public >= z.n_vars) {
    fail("zkey has nVars = " + std::to_string(z.n_vars) + " and nPublic = " + std::to_string(z.n_public) +
         " (need nPublic < nVars)");
  }
  auto count = [](const char* what, size_t got, size_t want) {
    if (got != want) {
      fail(std::string("zkey ") + what + " section has " + std::to_string(got) + " points, expected " +
           std::to_string(want));
    }
  };
  count("A", z.a.size(), z.n_vars);
  count("B1", z.b1.size(), z.n_vars);
  count("B2", z.b2.size(), z.n_vars);
  count("C", z.c.size(), size_t{z.n_vars} - z.n_public - 1);
  count("H", z.h.size(), z.domain_size);
}

void check_witness(const Zkey& z, std::span<const Fr> w) {
  if (w.size() != z.n_vars) {
    fail("the witness has " + std::to_string(w.size()) +
         " values, the zkey expects nVars = " + std::to_string(z.n_vars));
  }
  if (!w[0].is_one()) fail("witness[0] must be 1 (the constant signal), got " + w[0].to_hex());
}

void check_all(const Zkey& z, std::span<const Fr> w) {
  check_key(z);
  check_witness(z, w);
}

// a[c] += A[c][i] w_i, b[c] += B[c][i] w_i over the coefficient section. snarkjs lists the entries
// in constraint order; the list is then cut at constraint boundaries so that every row is written
// by one thread only. Any other order is accumulated serially.
void accumulate_ab(const Zkey& z, std::span<const Fr> w, std::vector<Fr>& a, std::vector<Fr>& b) {
  const std::vector<ZkeyCoef>& coefs = z.coefs;
  const size_t m = coefs.size();
  if (m == 0) return;
  ThreadPool& pool = ThreadPool::global();
  const size_t chunks = m < 1024 ? 1 : std::min<size_t>(size_t{pool.size()} * 4, m / 256);
  auto nominal = [&](size_t k) { return k * m / chunks; };

  // Validate every entry and find out whether the list is in constraint order.
  std::vector<size_t> first_bad(chunks, SIZE_MAX);
  std::vector<uint8_t> sorted(chunks, 1);
  pool.parallel_for(chunks, [&](size_t k) {
    const size_t lo = nominal(k), hi = nominal(k + 1);
    for (size_t i = lo; i < hi; ++i) {
      const ZkeyCoef& e = coefs[i];
      if (e.matrix > 1 || e.constraint >= z.domain_size || e.signal >= z.n_vars) {
        first_bad[k] = i;
        return;
      }
      if (i > lo && e.constraint < coefs[i - 1].constraint) sorted[k] = 0;
    }
  });
  for (size_t k = 0; k < chunks; ++k) {
    if (first_bad[k] == SIZE_MAX) continue;
    const ZkeyCoef& e = coefs[first_bad[k]];
    fail("coefficient entry " + std::to_string(first_bad[k]) + " (matrix " + std::to_string(e.matrix) +
         ", constraint " + std::to_string(e.constraint) + ", signal " + std::to_string(e.signal) +
         ") is out of range (matrix 0 or 1, constraint < " + std::to_string(z.domain_size) + ", signal < " +
         std::to_string(z.n_vars) + ")");
  }
  bool in_order = std::all_of(sorted.begin(), sorted.end(), [](uint8_t v) { return v != 0; });
  for (size_t k = 1; in_order && k < chunks; ++k) {
    const size_t i = nominal(k);
    if (coefs[i].constraint < coefs[i - 1].constraint) in_order = false;
  }

  Fr* const out[2] = {a.data(), b.data()};
  auto run = [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      const ZkeyCoef& e = coefs[i];
      out[e.matrix][e.constraint] += e.value * w[e.signal];
    }
  };
  if (!in_order) {
    run(0, m);
    return;
  }
  // Chunk k starts at the first entry of a constraint, at or after its nominal start.
  std::vector<size_t> start(chunks + 1, m);
  start[0] = 0;
  for (size_t k = 1; k < chunks; ++k) {
    size_t i = std::max(nominal(k), start[k - 1]);
    while (i < m && i > 0 && coefs[i].constraint == coefs[i - 1].constraint) ++i;
    start[k] = i;
  }
  pool.parallel_for(chunks, [&](size_t k) { run(start[k], start[k + 1]); });
}

ZkeyAbc compute_abc(const Zkey& z, std::span<const Fr> w) {
  ZkeyAbc abc;
  abc.a.assign(z.domain_size, Fr::zero());
  abc.b.assign(z.domain_size, Fr::zero());
  accumulate_ab(z, w, abc.a, abc.b);
  abc.c.resize(z.domain_size);
  ThreadPool::global().parallel_chunks(z.domain_size, 4096, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) abc.c[i] = abc.a[i] * abc.b[i];
  });
  return abc;
}

// a, b, c evaluations on the n-domain -> p_j = a'_j b'_j - c'_j at w_{2n}^(2j+1) (in a; b and c
// are overwritten).
std::vector<Fr> compute_h(const Zkey& z, ZkeyAbc&& abc) {
  Result<poly::Domain> dom = poly::Domain::create(z.domain_size, poly::RootConvention::Snarkjs);
  if (!dom) fail("domain of size " + std::to_string(z.domain_size) + ": " + dom.error());
  // snarkjs: inc = Fr.w[power + 1] (Fr.shift only when power == Fr.s = 32, beyond our 2^28 limit).
  const Fr shift = poly::root_of_unity(z.log2_domain_size + 1, poly::RootConvention::Snarkjs);
  for (std::vector<Fr>* v : {&abc.a, &abc.b, &abc.c}) {
    dom->ifft(*v);
    dom->coset_fft(*v, shift);
  }
  ThreadPool::global().parallel_chunks(z.domain_size, 4096, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) abc.a[i] = abc.a[i] * abc.b[i] - abc.c[i];
  });
  return std::move(abc.a);
}

}  // namespace

ZkeyAbc zkey_abc(const Zkey& zkey, std::span<const Fr> witness) {
  check_all(zkey, witness);
  return compute_abc(zkey, witness);
}

std::vector<Fr> zkey_h_scalars(const Zkey& zkey, std::span<const Fr> witness) {
  check_all(zkey, witness);
  return compute_h(zkey, compute_abc(zkey, witness));
}

Proof zkey_finalize(const Zkey& zkey, const ZkeyMsms& m, const Fr& r, const Fr& s) {
  const ec::G1 delta1(zkey.delta1);
  const ec::G1 pi_a = m.a.add_affine(zkey.alpha1) + delta1.mul(r);
  const ec::G2 pi_b = m.b2.add_affine(zkey.beta2) + ec::G2(zkey.delta2).mul(s);
  const ec::G1 b1 = m.b1.add_affine(zkey.beta1) + delta1.mul(s);
  const ec::G1 pi_c = m.c + m.h + pi_a.mul(s) + b1.mul(r) - delta1.mul(r * s);
  return Proof{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

ZkeyMsms zkey_msms(const Zkey& zkey, std::span<const Fr> witness, ProveTimings* timings) {
  ProveTimings local;
  ProveTimings& t = timings != nullptr ? *timings : local;
  Clock::time_point tick = Clock::now();

  check_all(zkey, witness);
  ZkeyAbc abc = compute_abc(zkey, witness);
  t.matvec_s += seconds_since(tick);

  const std::vector<Fr> p = compute_h(zkey, std::move(abc));
  t.h_poly_s += seconds_since(tick);

  ZkeyMsms sums;
  sums.a = ec::msm(std::span<const G1Affine>(zkey.a), witness);
  t.msm_a_s += seconds_since(tick);
  sums.b1 = ec::msm(std::span<const G1Affine>(zkey.b1), witness);
  t.msm_b_g1_s += seconds_since(tick);
  sums.b2 = ec::msm(std::span<const G2Affine>(zkey.b2), witness);
  t.msm_b_g2_s += seconds_since(tick);
  // C and H enter pi_c only as their sum: one MSM over both point sets (one set of windows and
  // bucket reductions; C's big scalars ride H's wider windows). It keeps the windows H alone would
  // get: with a full-width witness (chain17, 2 x 2^17 points) the cost model's choice for the sum
  // (c = 15, 1.5 MB bucket arrays) measured 3 % slower on Zen 4 (1 MB L2) than two MSMs.
  const ec::MsmConfig cfg = ec::msm_default_config(zkey.h.size(), ThreadPool::global().size(), false);
  ec::MsmOptions opt;
  opt.config = &cfg;
  sums.c = ec::msm_sum(std::span<const G1Affine>(zkey.c), witness.subspan(size_t{zkey.n_public} + 1),
                       std::span<const G1Affine>(zkey.h), std::span<const Fr>(p), opt);
  sums.h = ec::G1::identity();  // included in sums.c
  t.msm_h_s += seconds_since(tick);
  return sums;
}

Proof prove_zkey(const Zkey& zkey, std::span<const Fr> witness, const Fr& r, const Fr& s, ProveTimings* timings) {
  const ZkeyMsms sums = zkey_msms(zkey, witness, timings);
  Clock::time_point tick = Clock::now();
  const Proof proof = zkey_finalize(zkey, sums, r, s);
  if (timings != nullptr) timings->finalize_s += seconds_since(tick);
  return proof;
}

Proof prove_zkey(const Zkey& zkey, std::span<const Fr> witness, ProveTimings* timings) {
  SystemRng rng;
  const Fr r = Fr::random(rng);
  const Fr s = Fr::random(rng);
  return prove_zkey(zkey, witness, r, s, timings);
}

}  // namespace cuzk::groth16
