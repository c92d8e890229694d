#pragma once
// Internal to src/poly: the precomputed plan of a Domain, shared by the scalar kernels
// (domain.cpp) and the AVX-512 IFMA kernels (ntt_ifma.cpp). Not part of the public API.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "ff/fr_ifma.hpp"
#include "poly/domain.hpp"

namespace cuzk::poly::detail {

// 64-byte aligned array of Fr (never value-initialised; Fr is trivially copyable and destructible,
// so the storage holds Fr objects as soon as it is allocated). Large ones ask for huge pages.
class FrBuffer {
 public:
  FrBuffer() = default;
  explicit FrBuffer(size_t n) { reset(n); }
  FrBuffer(const FrBuffer&) = delete;
  FrBuffer& operator=(const FrBuffer&) = delete;
  ~FrBuffer() { release(); }

  void reset(size_t n) {
    release();
    if (n == 0) return;
    const size_t bytes = n * sizeof(Fr);
    align_ = bytes >= (size_t{4} << 20) ? (size_t{2} << 20) : 64;
    const size_t rounded = (bytes + align_ - 1) / align_ * align_;
    void* p = ::operator new(rounded, std::align_val_t(align_));
    if (align_ > 64) (void)madvise(p, rounded, MADV_HUGEPAGE);  // advisory; failure is harmless
    data_ = static_cast<Fr*>(p);
    size_ = n;
  }
  Fr* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (data_) ::operator delete(static_cast<void*>(data_), std::align_val_t(align_));
    data_ = nullptr;
    size_ = 0;
  }
  Fr* data_ = nullptr;
  size_t size_ = 0;
  size_t align_ = 64;
};

// A per-thread buffer of at least n elements (grows, never shrinks).
Fr* local_buffer(size_t n);

// The IFMA kernels' constant operands (twiddles, scalings): ff/fr_ifma.hpp.
using ff::ifma52::to_limbs52_times16;

// Tables of one radix-2 DIF transform of size m = 2^log_m, both directions.
struct SubPlan {
  size_t m = 0;
  unsigned log_m = 0;
  // tw[dir][h - 1 + j] = w_{2h}^j (dir 0) or w_{2h}^-j (dir 1) for the stage of half-size h, j < h;
  // the stages h = 1, 2, 4, ..., m/2 are concatenated (m - 1 entries).
  std::vector<Fr> tw[2];
  // The same twiddles for the IFMA kernels, 5 limbs each (to_limbs52_times16); empty without IFMA.
  std::vector<uint64_t> tw52[2];
  std::vector<uint32_t> rev;  // bit reversal of log_m bits

  SubPlan(unsigned lg, const Fr& w, const Fr& w_inv, bool with_ifma);
};

struct DomainPlan {
  size_t n = 0;
  unsigned log_n = 0;
  RootConvention conv = RootConvention::Zcash;
  Fr omega, omega_inv, n_inv, gen, default_shift;

  bool four_step = false;
  unsigned log_n1 = 0, log_n2 = 0;
  size_t n1 = 0, n2 = 0;
  std::shared_ptr<const SubPlan> sub1, sub2;  // direct: sub1 is the whole domain
  std::vector<Fr> col_base[2];                // four-step: w_n^(+-j2), j2 < n2
  bool ifma = false;                          // IFMA tables present (CPU support at creation)
  std::vector<uint64_t> col_base52[2];        // the same, limb-major [5][n2] (to_limbs52_times16)

  // The four-step scratch copy (n elements), kept between calls so that repeated transforms do not
  // pay for fresh zeroed pages; a concurrent second call allocates its own.
  mutable std::mutex scratch_mu;
  mutable std::unique_ptr<FrBuffer> scratch;

  std::unique_ptr<FrBuffer> acquire_scratch() const {
    {
      std::lock_guard lk(scratch_mu);
      if (scratch) return std::move(scratch);
    }
    return std::make_unique<FrBuffer>(n);
  }
  void release_scratch(std::unique_ptr<FrBuffer> buf) const {
    std::lock_guard lk(scratch_mu);
    if (!scratch) scratch = std::move(buf);
  }
};

// Scaling applied around a transform: before, a[j] *= pre^j (if has_pre); after, a[k] *= c * post^k
// (post only if has_post; otherwise c alone).
struct Scaling {
  bool has_pre = false;
  Fr pre;
  Fr c = Fr::one();
  bool has_post = false;
  Fr post;
};

// A Scaling as the four-step passes apply it. With j = j1*n2 + j2 and k = k1 + n1*k2:
//   pre^j = pre^(j1*n2) * pre^j2: the first factor scales pass 1's input rows (row_pre); the second
//     is constant on a pass-1 column, so it commutes with the column transform and joins the
//     twiddles: pass 1 multiplies column j2, row k1 by c * pre^j2 * (w^j2 * post)^k1.
//   post^k = post^k1 * post^(n1*k2): the first factor is constant on a pass-2 column, so it moves
//     into pass 1's twiddles (the "* post" above); the second scales pass 2's output rows (row_post).
// So a coset costs one multiplication per element, and 1/n (c) none.
struct FourStepScales {
  Fr c = Fr::one();
  bool has_pre = false, has_post = false;
  Fr pre, post;
  std::vector<Fr> row_pre;   // pre^(j1*n2), j1 < n1 (has_pre)
  std::vector<Fr> row_post;  // post^(n1*k2), k2 < n2 (has_post)

  FourStepScales(const DomainPlan& p, const Scaling& sc);
  // The pass-1 twiddle of column j2 at k1 = 0 and its per-row step.
  Fr col_start(size_t j2) const { return has_pre ? c * pre.pow(static_cast<uint64_t>(j2)) : c; }
  Fr col_step(const DomainPlan& p, int dir, size_t j2) const {
    return has_post ? p.col_base[dir][j2] * post : p.col_base[dir][j2];
  }
};

// AVX-512 IFMA kernels (ntt_ifma.cpp): whether this CPU has them, and the two four-step passes.
// pass 1 reads x ([n1][n2]) and writes s ([n2][n1]); pass 2 reads s and writes x in natural order.
bool ifma_cpu_supported();
void ifma_pass1(const Fr* x, Fr* s, const DomainPlan& p, int dir, const FourStepScales& fs, ThreadPool& pool);
void ifma_pass2(Fr* x, const Fr* s, const DomainPlan& p, int dir, const FourStepScales& fs, ThreadPool& pool);

}  // namespace cuzk::poly::detail
