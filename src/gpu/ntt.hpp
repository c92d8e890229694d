#pragma once
// NTTs over BLS12-381 Fr on device-resident data (plain C++ host API; kernels in ntt.cu).
//
// A GpuDomain is the device-side twin of poly::Domain: the same size and root convention, and
// transforms whose results are bit-for-bit those of the CPU Domain (field arithmetic is exact and
// both keep values fully reduced in Montgomery form with the same layout). Data pointers are DEVICE
// pointers typed as ff::Fr* (the device Fr has the CPU's byte layout); `batch` vectors lie back to
// back, n elements apart. Every call is asynchronous on the given stream.
//
// Algorithm (see docs/gpu-ntt.md): radix-2 stages grouped so that one kernel pass runs up to 11
// stages on 2048 elements held in shared memory; 2^27 takes 3 passes. Natural-order input runs
// decimation in frequency (DIF, bit-reversed output), bit-reversed input decimation in time (DIT,
// natural output); a bit-reversal swap pass is added only when the requested orders need it.
// Coset and 1/n scalings are folded into the first pass's loads or the last pass's stores.
// Twiddles, built on the device once per (device, size, convention, layout): one table of w^j,
// j < n/2 (TwiddleLayout::table: 2 GiB at 2^27), or two small tables whose product gives w^j
// (TwiddleLayout::compact: 640 KiB at 2^27, one more product per butterfly) for a prover under a
// device-memory cap. The results do not depend on the layout.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ff/bls12_381.hpp"
#include "poly/domain.hpp"

namespace cuzk::gpu {

enum class NttOrder : uint8_t { Natural, BitReversed };
enum class TwiddleLayout : uint8_t { table, compact };

namespace detail {
struct GpuDomainState;
}

class GpuDomain {
 public:
  // The cached domain of 2^log_n points (1 <= log_n <= 28) on the current device; the twiddle
  // table is built (synchronously, device-wide) the first time. Thread-safe.
  static std::shared_ptr<const GpuDomain> get(unsigned log_n, poly::RootConvention conv,
                                              TwiddleLayout layout = TwiddleLayout::table);
  // Device bytes of the twiddle tables of a domain of 2^log_n points (the coset power tables
  // that transforms with a scaling build come on top: 640 KiB each at 2^27).
  static uint64_t twiddle_bytes(unsigned log_n, TwiddleLayout layout);
  ~GpuDomain();
  GpuDomain(const GpuDomain&) = delete;
  GpuDomain& operator=(const GpuDomain&) = delete;

  size_t size() const;
  unsigned log_size() const;
  poly::RootConvention convention() const;
  TwiddleLayout twiddle_layout() const;
  const poly::Domain& host() const;  // the CPU domain with the same roots

  // In place on `batch` vectors of size() elements at d_data (device memory).
  //   forward:        coefficients -> evaluations A(w^i)
  //   inverse:        evaluations -> coefficients (includes 1/n)
  //   coset_forward:  coefficients -> A(shift * w^i)
  //   coset_inverse:  the inverse of coset_forward (shift != 0)
  // `in`/`out` give the order of the input and of the result (index i or bit-reversed i).
  void forward(ff::Fr* d_data, size_t batch, NttOrder in, NttOrder out, cudaStream_t stream = nullptr) const;
  void inverse(ff::Fr* d_data, size_t batch, NttOrder in, NttOrder out, cudaStream_t stream = nullptr) const;
  void coset_forward(ff::Fr* d_data, size_t batch, const ff::Fr& shift, NttOrder in, NttOrder out,
                     cudaStream_t stream = nullptr) const;
  void coset_inverse(ff::Fr* d_data, size_t batch, const ff::Fr& shift, NttOrder in, NttOrder out,
                     cudaStream_t stream = nullptr) const;

  // The building block the H computation composes: one transform in direction `inverse_roots`
  // (w^-1 when true), with optional scaling of the coefficients by c * g^k at logical index k
  // (natural index of the coefficient vector) applied on the input side (pre) or output side
  // (post). No 1/n is added implicitly here.
  struct Scale {
    bool active = false;
    ff::Fr c = ff::Fr::one();
    ff::Fr g = ff::Fr::one();
  };
  void transform(ff::Fr* d_data, size_t batch, bool inverse_roots, NttOrder in, NttOrder out, const Scale& pre,
                 const Scale& post, cudaStream_t stream) const;

 private:
  explicit GpuDomain(std::unique_ptr<detail::GpuDomainState> st);
  std::unique_ptr<detail::GpuDomainState> st_;
};

// Threads per block of the transform passes (128, or 256 = default: the kernel's launch bound, so
// that three blocks fit an SM's registers): a tuning knob for the benchmark; results do not depend
// on it.
void set_ntt_pass_threads(unsigned threads);

// In-place bit-reversal permutation of `batch` vectors of 2^log_n elements (device memory).
void bit_reverse(ff::Fr* d_data, unsigned log_n, size_t batch, cudaStream_t stream = nullptr);

}  // namespace cuzk::gpu
