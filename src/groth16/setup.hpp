#pragma once
// Groth16 parameter generation (bellperson convention, keys.hpp) from a Pce, for tests and
// benchmarks: the keys a prover reads, made from known toxic waste.
//
// THIS IS NOT A TRUSTED SETUP. Whoever knows the ToxicWaste can forge proofs for the circuit;
// the keys it makes are for tests, benchmarks and local experiments only. Production keys come
// from a multi-party ceremony (Filecoin's .params files).
//
// Steps:
//  1. the Lagrange basis of the size-m zcash domain at tau (m = smallest power of two >= the PCE's
//     rows, input constraints included): L_j(tau) = (tau^m - 1)/m * w^j/(tau - w^j), batch
//     inversion, in parallel chunks;
//  2. u_i(tau), v_i(tau), w_i(tau) for every unified column i (inputs then aux) in one pass over
//     each of A, B, C: u_i(tau) = sum over rows j of A[j][i] L_j(tau). The columns are split into
//     one range per thread, every thread scans the matrix and accumulates its own columns (no
//     per-thread copies of the 3 x columns accumulators);
//  3. the query scalars, with the densities checked: a column has a non-zero u_i(tau) (v_i(tau))
//     iff the PCE's A (B) density has its bit (every input must have u_i(tau) != 0, which the
//     input constraints guarantee). For a random tau, a column that appears in a matrix has a
//     non-zero value except with probability about m/r, so any mismatch is reported as an error;
//  4. fixed-base scalar multiplication of the G1 and G2 generators by those scalars (windowed
//     tables shared by all queries of a group, multi-threaded, batch conversion to affine).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ec/bls12_381.hpp"
#include "groth16/keys.hpp"
#include "pce/pce.hpp"
#include "util/lifetimebound.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {

// TEST-ONLY: the secret values of a Groth16 setup. Anyone holding these can forge proofs.
struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // Deterministic non-zero values from a seed (Xoshiro256). TEST-ONLY: a seed is not a secret.
  static ToxicWaste from_seed(uint64_t seed);
};

// (done, total) in units of work (points computed); may be called from pool threads concurrently
// (cuzk::Progress::callback() is safe to pass).
using SetupProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// The proving key (vk included) of the circuit the Pce describes, for the given toxic waste.
// TEST-ONLY (see above). Throws std::invalid_argument when the Pce is too large for a domain
// (> 2^28 rows), when tau lies in the domain or a toxic value is 0, and std::runtime_error when a
// density bitmap disagrees with the polynomials (a column with a bit but a zero value at tau or the
// reverse, or an input column without any A entry).
ProvingKey setup(const pce::Pce& pce, const ToxicWaste& tw, const SetupProgressFn& progress = {},
                 ThreadPool* pool = nullptr);

// ---- Building blocks, exposed for tests and benchmarks ----

// L_j(tau) for j = 0..n-1 on the zcash domain of size n (a power of two); tau must not be in the
// domain (std::invalid_argument).
std::vector<Fr> lagrange_at(size_t n, const Fr& tau, ThreadPool* pool = nullptr);

// The QAP polynomials of every unified column (inputs then aux) at tau.
struct QapAtTau {
  size_t domain_size = 0;  // m
  Fr z;                    // tau^m - 1
  std::vector<Fr> u, v, w;
};
QapAtTau evaluate_qap(const pce::Pce& pce, const Fr& tau, ThreadPool* pool = nullptr);
// evaluate_qap plus the checks setup() makes (inputs present, densities consistent with the values;
// the exceptions setup() documents).
QapAtTau checked_qap(const pce::Pce& pce, const Fr& tau, ThreadPool* pool = nullptr);
// std::invalid_argument when a toxic-waste value is zero.
void check_toxic_waste(const ToxicWaste& tw);

// A windowed fixed-base table for k * P: window w bits, ceil(255 / w) windows, entries
// d * 2^(w*i) * P for d = 1..2^w - 1 (affine), so k * P costs one mixed addition per non-zero
// window digit. Instantiated for ec::G1Config and ec::G2Config.
template <class C>
class FixedBaseTable {
 public:
  using Affine = ec::Affine<C>;
  using Jacobian = ec::Jacobian<C>;

  // window_bits 1..22; 0 picks it for `expected_muls` multiplications.
  FixedBaseTable(const Affine& base, unsigned window_bits, size_t expected_muls = 0, ThreadPool* pool = nullptr);

  // The window best for `n` multiplications (table build + per-point additions, memory-capped).
  static unsigned default_window(size_t n);

  unsigned window_bits() const { return w_; }
  unsigned num_windows() const { return windows_; }
  // Window i, digit d (1..2^w - 1) lies at [i * (2^w - 1) + d - 1] (for device copies).
  std::span<const Affine> entries() const CUZK_LIFETIMEBOUND { return table_; }
  Jacobian mul(const Fr& k) const;
  // out[i] = scalars[i] * P in affine (identity for 0), multi-threaded; sizes must match.
  // `progress`, when given, is called with the number of points finished by each chunk.
  void mul_many(std::span<const Fr> scalars, std::span<Affine> out, ThreadPool* pool = nullptr,
                const std::function<void(uint64_t)>& progress = {}) const;

 private:
  void mul_block(std::span<const Fr> scalars, std::span<Affine> out) const;

  unsigned w_ = 0, windows_ = 0;
  size_t row_ = 0;             // entries per window: 2^w - 1
  std::vector<Affine> table_;  // window i, digit d at [i * row_ + d - 1]
};

extern template class FixedBaseTable<ec::G1Config>;
extern template class FixedBaseTable<ec::G2Config>;

}  // namespace cuzk::groth16
