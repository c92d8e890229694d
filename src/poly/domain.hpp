#pragma once
// Radix-2 evaluation domains over BLS12-381 Fr and the number-theoretic transforms on them.
//
// A domain of size n = 2^k is {w^i : 0 <= i < n} for a primitive n-th root of unity w. Two root
// conventions coexist because the provers we interoperate with disagree on w:
//   Zcash   (bellman/bellperson): multiplicative generator 7, w_32 = 7^t with r - 1 = 2^32 t,
//           w_k = w_32^(2^(32-k)); coset FFTs use the shift 7.
//   Snarkjs (ffjavascript):       generator 5, w_32 = 5^t, w_k = w_{k+1}^2; the prover's H
//           computation evaluates on the odd half of the 2n-domain, i.e. the coset w_{2n} * <w_n>.
// Both give the same set of roots in a different order, so the conventions are not interchangeable.
//
// All transforms work in place on exactly size() elements, natural order in and out:
//   fft:        coefficients a_j -> evaluations A(w^i)           = sum_j a_j w^(ij)
//   ifft:       the inverse (includes the 1/n scaling)
//   coset_fft:  coefficients -> evaluations A(shift * w^i)
//   coset_ifft: the inverse of coset_fft
// They run on a ThreadPool (the global one by default; pass a ThreadPool(1) for a serial run;
// below 2^14 points they always run on the calling thread). The result does not depend on the
// number of threads or on the kernels used. Larger transforms use a four-step (Bailey)
// decomposition with one scratch copy of the input (size() elements), kept by the domain between
// calls (release_scratch() frees it). A Domain is immutable apart from that cache: any number of
// threads may transform through the same Domain (or copies of it) concurrently.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "ff/bls12_381.hpp"
#include "util/result.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::poly {

using ff::Fr;

enum class RootConvention { Zcash, Snarkjs };

// Fr has 2-adicity 32: r - 1 = 2^32 * t with t odd.
inline constexpr unsigned kFrTwoAdicity = 32;
// Largest supported domain: 2^28 elements (8 GiB of Fr).
inline constexpr unsigned kMaxLogDomainSize = 28;

// The multiplicative generator the convention derives its roots from (7 for Zcash, 5 for Snarkjs).
Fr multiplicative_generator(RootConvention conv);
// A primitive 2^log_n-th root of unity of the convention, log_n <= 32 (w_32 = g^t, w_k = w_{k+1}^2).
Fr root_of_unity(unsigned log_n, RootConvention conv);
const char* to_string(RootConvention conv);

// Transforms of more than 2^12 points use AVX-512 IFMA kernels (8 elements per vector, ~4x the
// scalar speed) when the CPU has avx512f + avx512ifma, else the scalar kernels; both give identical
// results. set_simd_enabled(false) forces the scalar kernels process-wide (tests, benchmarks).
void set_simd_enabled(bool enabled);
bool simd_active();  // enabled and supported by this CPU

namespace detail {
struct DomainPlan;
}

class Domain {
 public:
  // n must be a power of two between 2^1 and 2^28.
  static Result<Domain> create(size_t n, RootConvention conv = RootConvention::Zcash);
  // The smallest domain with at least m elements (and at least 2).
  static Result<Domain> create_at_least(size_t m, RootConvention conv = RootConvention::Zcash);
  // Smallest power of two >= max(m, 2), or 0 if that exceeds 2^28.
  static size_t size_for(size_t m);

  size_t size() const;
  unsigned log_size() const;
  const Fr& omega() const;      // w_n, a primitive n-th root of unity
  const Fr& omega_inv() const;  // w_n^-1
  const Fr& size_inv() const;   // 1/n
  const Fr& generator() const;  // multiplicative generator of Fr* of the convention (7 or 5)
  RootConvention convention() const;
  // The coset the convenience overloads use: 7 for Zcash (bellperson's coset FFT), w_{2n} for
  // Snarkjs (the odd half of the 2n-domain, where snarkjs evaluates A, B, C for H).
  Fr default_coset_shift() const;
  // w^i for any i (reduced mod n).
  Fr element(size_t i) const;

  // In place; each span must hold exactly size() elements (else std::invalid_argument).
  void fft(std::span<Fr> a, ThreadPool& pool = ThreadPool::global()) const;
  void ifft(std::span<Fr> a, ThreadPool& pool = ThreadPool::global()) const;
  // Coefficients -> evaluations at shift * w^i.
  void coset_fft(std::span<Fr> a, const Fr& shift, ThreadPool& pool = ThreadPool::global()) const;
  // Evaluations at shift * w^i -> coefficients; shift must be non-zero (else std::invalid_argument).
  void coset_ifft(std::span<Fr> a, const Fr& shift, ThreadPool& pool = ThreadPool::global()) const;
  // The same with default_coset_shift().
  void coset_fft(std::span<Fr> a, ThreadPool& pool = ThreadPool::global()) const;
  void coset_ifft(std::span<Fr> a, ThreadPool& pool = ThreadPool::global()) const;

  // Z(x) = x^n - 1, the vanishing polynomial of the domain; on the coset shift * <w> it is the
  // constant shift^n - 1.
  Fr evaluate_vanishing(const Fr& x) const;
  Fr z_on_coset(const Fr& shift) const;
  Fr z_on_coset() const;  // with default_coset_shift() (-2 for Snarkjs, 7^n - 1 for Zcash)

  // Four-step transforms (more than 2^12 points; from 2^6 with the IFMA kernels) need a scratch
  // copy of size() elements; the domain keeps one between calls (shared by copies of this Domain,
  // a concurrent second call allocates its own). This frees it now.
  void release_scratch() const;

 private:
  explicit Domain(std::shared_ptr<const detail::DomainPlan> plan) : plan_(std::move(plan)) {}
  void check_span(std::span<Fr> a, const char* what) const;

  std::shared_ptr<const detail::DomainPlan> plan_;  // immutable; copies of a Domain share it
};

}  // namespace cuzk::poly
