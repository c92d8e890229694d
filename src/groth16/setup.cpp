#include "groth16/setup.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "poly/domain.hpp"
#include "util/mapped_file.hpp"
#include "util/rng.hpp"

namespace cuzk::groth16 {

namespace {

ThreadPool& pool_or_global(ThreadPool* pool) {
  return pool ? *pool : ThreadPool::global();
}

Fr nonzero_random(Xoshiro256& rng) {
  for (;;) {
    Fr x = Fr::random(rng);
    if (!x.is_zero()) return x;
  }
}

// Bits [pos, pos + w) of a little-endian 256-bit integer (w <= 32; bits past 256 read as 0).
inline uint32_t window_digit(const ff::Limbs<4>& k, unsigned pos, unsigned w) {
  const unsigned limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  uint64_t v = k[limb] >> off;
  if (off + w > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return static_cast<uint32_t>(v & ((uint64_t{1} << w) - 1));
}

constexpr unsigned kScalarBits = 255;  // r < 2^255
constexpr size_t kMulBlock = 1024;     // points per batch-affine block in mul_many

// Accumulates column values of one matrix for the columns [c0, c1): out[col - c0] += coeff * L[row].
template <class RowPtr>
void scan_columns(const pce::Pce& pce, const pce::MatrixView& mv, std::span<const RowPtr> row_ptr,
                  std::span<const Fr> lag, uint64_t c0, uint64_t c1, Fr* out) {
  const uint64_t width = c1 - c0;
  const uint32_t* col = mv.col.data();
  auto rows_loop = [&](auto&& add) {
    for (uint64_t r = 0; r < mv.rows; ++r) {
      const uint64_t b = row_ptr[r], e = row_ptr[r + 1];
      for (uint64_t k = b; k < e; ++k) {
        const uint64_t off = uint64_t{col[k]} - c0;  // wraps for col < c0
        if (off < width) add(out[off], k, lag[r]);
      }
    }
  };
  if (!mv.values.empty()) {
    const Fr* vals = mv.values.data();
    rows_loop([&](Fr& acc, uint64_t k, const Fr& l) { acc += vals[k] * l; });
    return;
  }
  const Fr* dict = pce.dictionary().data();
  auto dict_add = [dict](Fr& acc, uint32_t idx, const Fr& l) {
    if (idx == pce::kCoeffPlusOne) {
      acc += l;
    } else if (idx == pce::kCoeffMinusOne) {
      acc -= l;
    } else {
      acc += dict[idx] * l;
    }
  };
  if (!mv.idx8.empty()) {
    const uint8_t* idx = mv.idx8.data();
    rows_loop([&](Fr& acc, uint64_t k, const Fr& l) { dict_add(acc, idx[k], l); });
  } else if (!mv.idx16.empty()) {
    const uint16_t* idx = mv.idx16.data();
    rows_loop([&](Fr& acc, uint64_t k, const Fr& l) { dict_add(acc, idx[k], l); });
  }
  // else: no non-zeros at all.
}

}  // namespace

ToxicWaste ToxicWaste::from_seed(uint64_t seed) {
  Xoshiro256 rng(seed ^ 0x746f786963ULL);
  ToxicWaste tw;
  tw.tau = nonzero_random(rng);
  tw.alpha = nonzero_random(rng);
  tw.beta = nonzero_random(rng);
  tw.gamma = nonzero_random(rng);
  tw.delta = nonzero_random(rng);
  return tw;
}

std::vector<Fr> lagrange_at(size_t n, const Fr& tau, ThreadPool* pool_ptr) {
  ThreadPool& pool = pool_or_global(pool_ptr);
  const poly::Domain dom = poly::Domain::create(n, poly::RootConvention::Zcash).value();
  const Fr z = tau.pow(n) - Fr::one();
  if (z.is_zero()) throw std::invalid_argument("lagrange_at: tau lies in the evaluation domain");
  const Fr factor = z * dom.size_inv();
  const Fr omega = dom.omega();
  std::vector<Fr> out(n);
  pool.parallel_chunks(n, 4096, [&](size_t b, size_t e) {
    std::vector<Fr> den(e - b);
    Fr wj = omega.pow(b);
    for (size_t j = b; j < e; ++j) {
      out[j] = wj;
      den[j - b] = tau - wj;
      wj *= omega;
    }
    ff::batch_inverse(std::span<Fr>(den));
    for (size_t j = b; j < e; ++j) out[j] = factor * out[j] * den[j - b];
  });
  return out;
}

QapAtTau evaluate_qap(const pce::Pce& pce, const Fr& tau, ThreadPool* pool_ptr) {
  ThreadPool& pool = pool_or_global(pool_ptr);
  QapAtTau q;
  q.domain_size = poly::Domain::size_for(pce.num_constraints());
  if (q.domain_size == 0) {
    throw std::invalid_argument("setup: " + std::to_string(pce.num_constraints()) +
                                " constraints need a domain larger than 2^28");
  }
  q.z = tau.pow(q.domain_size) - Fr::one();
  const std::vector<Fr> lag = lagrange_at(q.domain_size, tau, &pool);
  const uint64_t cols = pce.num_columns();
  q.u.assign(cols, Fr::zero());
  q.v.assign(cols, Fr::zero());
  q.w.assign(cols, Fr::zero());
  // One column range per thread; every task scans its whole matrix once and accumulates only its
  // own columns, so the accumulators are written by exactly one task and need no merging.
  const uint64_t parts = std::max<uint64_t>(1, std::min<uint64_t>(pool.size(), cols / 256));
  std::vector<Fr>* outs[3] = {&q.u, &q.v, &q.w};
  pool.parallel_for(3 * parts, [&](size_t t) {
    const auto id = static_cast<pce::MatrixId>(t / parts);
    const uint64_t part = t % parts;
    const uint64_t c0 = cols * part / parts, c1 = cols * (part + 1) / parts;
    const pce::MatrixView& mv = pce.matrix(id);
    Fr* out = outs[t / parts]->data() + c0;
    if (mv.rows == 0) return;
    if (!mv.row_ptr32.empty()) {
      scan_columns<uint32_t>(pce, mv, mv.row_ptr32, lag, c0, c1, out);
    } else {
      scan_columns<uint64_t>(pce, mv, mv.row_ptr64, lag, c0, c1, out);
    }
  });
  return q;
}

// ---- FixedBaseTable ----

template <class C>
unsigned FixedBaseTable<C>::default_window(size_t n) {
  // A block of points reads one table row (2^w - 1 entries) at random per window. Measured on the
  // 2-core CI machine (2 MiB L2 per core, a large L3; one thread, batch-affine G1): 226 ns per
  // addition from a 26 KiB row, 251 from 426 KiB, 278 from 6.8 MiB (huge pages, entries prefetched
  // a few points ahead), so wider rows still pay: 16 windows instead of 22 for a 10 M-point key.
  // Rows past ~8 MiB cost more per addition again (w = 18: 309 ns) and take seconds to build.
  constexpr size_t kMaxRowBytes = size_t{8} << 20;
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned w = 2; w <= 20; ++w) {
    const size_t windows = (kScalarBits + w - 1) / w;
    const size_t entries = windows * ((size_t{1} << w) - 1);
    if (w > 2 && (size_t{1} << w) * sizeof(Affine) > kMaxRowBytes) break;
    // Per point: one addition per window; table: one mixed addition per entry plus its share of
    // the batch conversion (measured: ~3 batch-affine additions per entry); per block of points
    // and window: one field inversion (counted as ~60 additions; it dominates for a handful of
    // points).
    const double blocks = n < 64 ? 0.0 : static_cast<double>((n + kMulBlock - 1) / kMulBlock);
    const double cost = static_cast<double>(n) * static_cast<double>(windows) + 3.0 * static_cast<double>(entries) +
                        60.0 * static_cast<double>(windows) * blocks;
    if (w == 2 || cost < best_cost) {
      best = w;
      best_cost = cost;
    }
  }
  return best;
}

template <class C>
FixedBaseTable<C>::FixedBaseTable(const Affine& base, unsigned window_bits, size_t expected_muls,
                                  ThreadPool* pool_ptr) {
  ThreadPool& pool = pool_or_global(pool_ptr);
  if (window_bits == 0) window_bits = default_window(expected_muls);
  if (window_bits > 22) throw std::invalid_argument("FixedBaseTable: window_bits must be 1..22");
  w_ = window_bits;
  windows_ = (kScalarBits + w_ - 1) / w_;
  row_ = (size_t{1} << w_) - 1;
  // Read at random: in huge pages where the kernel allows them (a TLB miss per read otherwise).
  table_.reserve(windows_ * row_);
  advise_huge_pages(table_.data(), table_.capacity() * sizeof(Affine));
  table_.resize(windows_ * row_);
  // 2^(w i) P for every window, in affine.
  std::vector<Jacobian> starts(windows_);
  Jacobian p(base);
  for (unsigned i = 0; i < windows_; ++i) {
    starts[i] = p;
    for (unsigned k = 0; k < w_; ++k) p = p.dbl();
  }
  std::vector<Affine> starts_aff(windows_);
  ec::batch_to_affine<C>(starts, starts_aff);
  // Entries in parallel, in tasks of consecutive (window, digit) entries: d * start_i by repeated
  // mixed additions, one batch conversion to affine per task.
  const size_t total = table_.size(), per_task = 4096;
  pool.parallel_for((total + per_task - 1) / per_task, [&](size_t t) {
    const size_t b = t * per_task, e = std::min(total, b + per_task);
    std::vector<Jacobian> tmp(e - b);
    size_t i = b / row_, d = b % row_;  // entry b is (d + 1) * start_i
    Jacobian acc = Jacobian(starts_aff[i]).mul(ff::Limbs<1>{d + 1});
    for (size_t k = b; k < e; ++k) {
      tmp[k - b] = acc;
      if (++d == row_) {
        d = 0;
        if (++i < windows_) acc = Jacobian(starts_aff[i]);
      } else {
        acc = acc.add_affine(starts_aff[i]);
      }
    }
    ec::batch_to_affine<C>(tmp, std::span<Affine>(table_).subspan(b, e - b));
  });
}

template <class C>
typename FixedBaseTable<C>::Jacobian FixedBaseTable<C>::mul(const Fr& k) const {
  const ff::Limbs<4> e = k.to_canonical();
  Jacobian acc;
  for (unsigned i = 0; i < windows_; ++i) {
    const uint32_t d = window_digit(e, i * w_, w_);
    if (d != 0) acc = acc.add_affine(table_[i * row_ + d - 1]);
  }
  return acc;
}

// Batch-affine evaluation of a block of scalars: the accumulators are affine points, and window by
// window every accumulator that gets a non-zero digit adds its table entry with an affine addition
// whose slope denominators share one field inversion (Montgomery's trick): about 5M + 1S per
// addition instead of 7M + 4S for a mixed Jacobian addition, no conversion at the end, and the
// block walks the table one window row at a time.
template <class C>
void FixedBaseTable<C>::mul_block(std::span<const Fr> scalars, std::span<Affine> out) const {
  using F = typename C::Base;
  const size_t n = scalars.size();
  if (n < 64) {  // too few points to amortize an inversion per window: Jacobian sums, one inversion
    std::vector<Jacobian> tmp(n);
    for (size_t i = 0; i < n; ++i) tmp[i] = mul(scalars[i]);
    ec::batch_to_affine<C>(tmp, out);
    return;
  }
  std::vector<ff::Limbs<4>> e(n);
  for (size_t i = 0; i < n; ++i) {
    e[i] = scalars[i].to_canonical();
    out[i] = Affine();
  }
  // Per pending addition: its accumulator, the slope's numerator and denominator and the added
  // point's x, stored in order so that the backward pass reads the table no more.
  std::vector<uint32_t> acc(n), digits(n);
  std::vector<F> prefix(n), dens(n), nums(n), xs(n);
  // Entries are read at random from rows up to a few MiB: each is prefetched this many points
  // before its use (all of a block's at once would evict each other from L1 before use).
  constexpr size_t kAhead = 16;
  auto prefetch = [](const Affine* p) {
    __builtin_prefetch(p);
    __builtin_prefetch(reinterpret_cast<const char*>(p) + sizeof(Affine) - 1);
  };
  for (unsigned k = 0; k < windows_; ++k) {
    const Affine* row = table_.data() + k * row_;  // digit d at row[d - 1]
    for (size_t i = 0; i < n; ++i) digits[i] = window_digit(e[i], k * w_, w_);
    for (size_t i = 0; i < std::min(n, kAhead); ++i) {
      if (digits[i] != 0) prefetch(row + digits[i] - 1);
    }
    size_t cnt = 0;
    F run = F::one();
    for (size_t i = 0; i < n; ++i) {
      if (i + kAhead < n && digits[i + kAhead] != 0) prefetch(row + digits[i + kAhead] - 1);
      if (digits[i] == 0) continue;
      const Affine& p = row[digits[i] - 1];
      Affine& a = out[i];
      if (a.infinity) {
        a = p;
        continue;
      }
      if (a.x == p.x) {
        if (!(a.y == p.y)) {  // a = -p
          a = Affine();
          continue;
        }
        const F xx = a.x.square();  // a = p: the tangent's slope 3x^2 / 2y
        nums[cnt] = xx.dbl() + xx;
        dens[cnt] = a.y.dbl();
      } else {
        nums[cnt] = p.y - a.y;
        dens[cnt] = p.x - a.x;
      }
      acc[cnt] = static_cast<uint32_t>(i);
      xs[cnt] = p.x;
      prefix[cnt] = run;
      run *= dens[cnt];
      ++cnt;
    }
    if (cnt == 0) continue;
    F inv = run.inverse();
    for (size_t j = cnt; j-- > 0;) {
      const F lambda = nums[j] * (inv * prefix[j]);
      inv *= dens[j];
      Affine& a = out[acc[j]];
      const F x3 = lambda.square() - a.x - xs[j];
      a = Affine(x3, lambda * (a.x - x3) - a.y);
    }
  }
}

template <class C>
void FixedBaseTable<C>::mul_many(std::span<const Fr> scalars, std::span<Affine> out, ThreadPool* pool_ptr,
                                 const std::function<void(uint64_t)>& progress) const {
  if (scalars.size() != out.size()) throw std::invalid_argument("FixedBaseTable::mul_many: size mismatch");
  ThreadPool& pool = pool_or_global(pool_ptr);
  const size_t nblocks = (scalars.size() + kMulBlock - 1) / kMulBlock;
  pool.parallel_for(nblocks, [&](size_t blk) {
    const size_t b = blk * kMulBlock, e = std::min(scalars.size(), b + kMulBlock);
    mul_block(scalars.subspan(b, e - b), out.subspan(b, e - b));
    if (progress) progress(e - b);
  });
}

template class FixedBaseTable<ec::G1Config>;
template class FixedBaseTable<ec::G2Config>;

// ---- setup ----

void check_toxic_waste(const ToxicWaste& tw) {
  for (const Fr* x : {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta}) {
    if (x->is_zero()) throw std::invalid_argument("setup: a toxic-waste value is zero");
  }
}

QapAtTau checked_qap(const pce::Pce& pce, const Fr& tau, ThreadPool* pool) {
  const uint64_t num_inputs = pce.num_inputs(), num_aux = pce.num_aux();
  if (num_inputs == 0) throw std::invalid_argument("setup: the Pce has no inputs (ONE is input 0)");
  const pce::DensityView a_aux = pce.a_aux_density(), b_in = pce.b_input_density(), b_aux = pce.b_aux_density();
  if (a_aux.size() != num_aux || b_in.size() != num_inputs || b_aux.size() != num_aux) {
    throw std::invalid_argument("setup: density bitmap sizes disagree with the Pce's counts");
  }
  QapAtTau qap = evaluate_qap(pce, tau, pool);
  for (uint64_t i = 0; i < num_inputs; ++i) {
    if (qap.u[i].is_zero()) {
      throw std::runtime_error("setup: input " + std::to_string(i) +
                               " has u_i(tau) = 0 (no A entry; the Groth16 input constraints are missing?)");
    }
    if (qap.v[i].is_zero() == b_in.test(i)) {
      throw std::runtime_error("setup: B input density bit " + std::to_string(i) + " disagrees with v_i(tau)" +
                               (b_in.test(i) ? " = 0" : " != 0"));
    }
  }
  for (uint64_t j = 0; j < num_aux; ++j) {
    const uint64_t c = num_inputs + j;
    if (qap.u[c].is_zero() == a_aux.test(j)) {
      throw std::runtime_error("setup: A aux density bit " + std::to_string(j) + " disagrees with u(tau)" +
                               (a_aux.test(j) ? " = 0" : " != 0"));
    }
    if (qap.v[c].is_zero() == b_aux.test(j)) {
      throw std::runtime_error("setup: B aux density bit " + std::to_string(j) + " disagrees with v(tau)" +
                               (b_aux.test(j) ? " = 0" : " != 0"));
    }
  }
  return qap;
}

ProvingKey setup(const pce::Pce& pce, const ToxicWaste& tw, const SetupProgressFn& progress, ThreadPool* pool_ptr) {
  ThreadPool& pool = pool_or_global(pool_ptr);
  check_toxic_waste(tw);
  const uint64_t num_inputs = pce.num_inputs(), num_aux = pce.num_aux();
  QapAtTau qap = checked_qap(pce, tw.tau, &pool);
  const size_t m = qap.domain_size;
  const Fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  const uint64_t cols = num_inputs + num_aux;
  std::vector<Fr> ic_l(cols);  // (beta u + alpha v + w)(tau) / gamma for inputs, / delta for aux
  pool.parallel_chunks(cols, 4096, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      ic_l[i] = (tw.beta * qap.u[i] + tw.alpha * qap.v[i] + qap.w[i]) * (i < num_inputs ? gamma_inv : delta_inv);
    }
  });
  std::vector<Fr> a_sc, b_sc;
  a_sc.reserve(num_inputs + pce.a_aux_density().count());
  b_sc.reserve(pce.b_input_density().count() + pce.b_aux_density().count());
  for (uint64_t i = 0; i < cols; ++i) {
    if (!qap.u[i].is_zero()) a_sc.push_back(qap.u[i]);
    if (!qap.v[i].is_zero()) b_sc.push_back(qap.v[i]);
  }
  const Fr z = qap.z;
  qap = QapAtTau{};  // release u, v, w

  std::vector<Fr> h_sc(m - 1);
  const Fr h0 = z * delta_inv;
  pool.parallel_chunks(m - 1, 4096, [&](size_t b, size_t e) {
    Fr t = tw.tau.pow(b) * h0;
    for (size_t i = b; i < e; ++i) {
      h_sc[i] = t;
      t *= tw.tau;
    }
  });

  const uint64_t n1 = cols + a_sc.size() + b_sc.size() + h_sc.size(), n2 = b_sc.size();
  const uint64_t total = n1 + n2;
  std::atomic<uint64_t> done{0};
  auto report = [&](uint64_t k) {
    const uint64_t d = done.fetch_add(k, std::memory_order_relaxed) + k;
    if (progress) progress(d, total);
  };
  if (progress) progress(0, total);

  ProvingKey pk;
  {
    const FixedBaseTable<ec::G1Config> g1(ec::g1_generator(), 0, n1, &pool);
    pk.vk.alpha_g1 = g1.mul(tw.alpha).to_affine();
    pk.vk.beta_g1 = g1.mul(tw.beta).to_affine();
    pk.vk.delta_g1 = g1.mul(tw.delta).to_affine();
    std::vector<G1Affine> ic_l_pts(cols);
    g1.mul_many(ic_l, ic_l_pts, &pool, report);
    pk.vk.ic.assign(ic_l_pts.begin(), ic_l_pts.begin() + static_cast<ptrdiff_t>(num_inputs));
    pk.l.assign(ic_l_pts.begin() + static_cast<ptrdiff_t>(num_inputs), ic_l_pts.end());
    ic_l_pts = {};
    pk.h.resize(h_sc.size());
    g1.mul_many(h_sc, pk.h, &pool, report);
    pk.a.resize(a_sc.size());
    g1.mul_many(a_sc, pk.a, &pool, report);
    pk.b_g1.resize(b_sc.size());
    g1.mul_many(b_sc, pk.b_g1, &pool, report);
  }
  {
    const FixedBaseTable<ec::G2Config> g2(ec::g2_generator(), 0, n2, &pool);
    pk.vk.beta_g2 = g2.mul(tw.beta).to_affine();
    pk.vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
    pk.vk.delta_g2 = g2.mul(tw.delta).to_affine();
    pk.b_g2.resize(b_sc.size());
    g2.mul_many(b_sc, pk.b_g2, &pool, report);
  }
  return pk;
}

}  // namespace cuzk::groth16
