#pragma once
// Multi-scalar multiplication sum_i k_i * P_i on the GPU for G1 and G2 (plain C++ host API).
//
// The bases live in device memory (DeviceBases: uploaded once, e.g. the SRS, and reused by many
// MSMs); scalars are uploaded per call, either as ff::Fr in Montgomery form (converted to canonical
// on the GPU) or as canonical little-endian Limbs<4> (values >= r reduced mod r, as the CPU's
// ec::msm_canonical). The result comes back as a CPU Jacobian point and equals ec::msm exactly.
//
// Algorithm (msm_impl.cuh, docs/gpu-msm.md): scalars equal to 0 are dropped and scalars equal to 1
// are summed directly (a tree of point additions), the rest go through Pippenger with signed
// c-bit window digits: (bucket, point) pairs are radix-sorted per window (CUB), buckets are
// accumulated by equal slices of the sorted pairs (XYZZ coordinates, mixed additions), then each
// window is reduced on the GPU by segmented running sums; only the window sums come back and the
// CPU combines them (c doublings per window).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ec/bls12_381.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

template <class C>
class DeviceBases;

// A contiguous range of device-resident bases (non-owning; the DeviceBases must outlive it).
template <class C>
struct DeviceBasesView {
  const std::byte* data = nullptr;  // device pointer, device affine layout (x, y; (0, 0) = identity)
  size_t size = 0;
  // The precomputed window table when the DeviceBases has one (DeviceBases::precompute): row w
  // holds [2^(table_bits * w)] P; `table` points at this view's first base in row 0 and row w
  // starts table_stride bases further per row.
  const std::byte* table = nullptr;
  size_t table_stride = 0;
  unsigned table_bits = 0;
};

// Affine bases of G1 (C = ec::G1Config) or G2 (ec::G2Config) copied to device memory once.
template <class C>
class DeviceBases {
 public:
  using HostAffine = ec::Affine<C>;
  // Bytes one base takes on the device (G1: 96, G2: 192).
  static constexpr size_t kBytesPerBase = 2 * sizeof(typename C::Base);

  DeviceBases() = default;
  explicit DeviceBases(std::span<const HostAffine> bases);
  // Room for n bases, filled by upload() (a key streamed from its file window by window).
  explicit DeviceBases(size_t n);
  // Copies bases to [first, first + bases.size()); throws std::out_of_range past the end.
  void upload(size_t first, std::span<const HostAffine> bases);
  size_t size() const { return n_; }
  size_t bytes() const { return buf_.bytes(); }
  DeviceBasesView<C> view() const { return view(0, n_); }
  // Bases [first, first + count); throws std::out_of_range past the end.
  DeviceBasesView<C> view(size_t first, size_t count) const;

  // Precomputed window table (fixed bases, plentiful device memory): rows w < num_windows(c) of
  // [2^(c*w)] P for every base, so that an MSM with window width c puts the digits of all its
  // windows into one set of buckets: one bucket reduction instead of one per window and no
  // doublings between windows, which makes wider windows (fewer windows, fewer additions) pay.
  // Costs `rows` copies of the bases (bytes_for_table; row 0 repeats them so that every row is
  // addressed alike). MSMs over views of these bases use
  // the table when they run with window width c (GpuMsmOptions::window_bits 0 or c).
  // window_bits in 2..24; throws std::invalid_argument when rows * size() >= 2^31 (sorted indices
  // are 31 bits) and CudaError when device memory is short. Replaces any earlier table.
  void precompute(unsigned window_bits);
  void drop_table() {
    table_ = DeviceBuffer<std::byte>();
    table_bits_ = 0;
  }
  unsigned table_bits() const { return table_bits_; }
  size_t table_bytes() const { return table_.bytes(); }
  static size_t bytes_for_table(size_t n, unsigned window_bits);

 private:
  DeviceBuffer<std::byte> buf_;
  size_t n_ = 0;
  DeviceBuffer<std::byte> table_;
  unsigned table_bits_ = 0;
};

struct GpuMsmOptions {
  // Density bitmap with the CPU's semantics (ec::MsmOptions::density): scalars are the full
  // assignment; scalar i takes part iff bit i is set and then pairs with base number
  // popcount(bits < i). The bases must number the set bits among the first scalars.size() bits.
  const std::vector<uint64_t>* density = nullptr;
  // c in 2..22 (or the bases' table width); 0 = the table width when the bases have a table, else
  // chosen from the count of scalars other than 0 and 1.
  unsigned window_bits = 0;
  // Most (digit, base) pairs sorted and accumulated at once (without a window table, whole
  // windows per pass); 0 = msm_detail::kDefaultMaxPairsPerPass. Bounds the scratch at large n.
  size_t max_pairs_per_pass = 0;
  // With batch-affine accumulation ([tuning] gpu_msm_affine): most sorted pairs per chunk of
  // rounds (0 = msm_detail::kAffineChunkG1/G2; bounds the round scratch, lets tests cross
  // chunks), and rounds of pairwise affine sums before the XYZZ slices (0 = from the pairs per
  // bucket, msm_detail::auto_affine_rounds).
  size_t affine_chunk = 0;
  unsigned affine_rounds = 0;
};

// What the last run did (for benchmarks and tuning).
struct GpuMsmStats {
  size_t scalars = 0;     // scalars taking part (density applied)
  size_t nontrivial = 0;  // scalars other than 0 and 1 (through Pippenger)
  size_t ones = 0;        // scalars equal to 1 (summed directly)
  unsigned window_bits = 0, windows = 0;
  unsigned passes = 0;         // groups of windows sorted and accumulated one after the other
  bool table = false;          // the precomputed window table was used
  unsigned affine_rounds = 0;  // batch-affine rounds per chunk (0: XYZZ accumulation)
  float upload_ms = 0;         // scalars (and bitmap) host -> device
  float compute_ms = 0;        // everything after the upload until the window sums are on the host
  // compute_ms in phases (0 when every scalar was 0 or 1): classify, recode and sort; bucket
  // accumulation; bucket and window reduction (with the 1-scalars' sum and the copy to the host).
  float prepare_ms = 0, accumulate_ms = 0, reduce_ms = 0;
};

// An MSM engine for one group: owns a stream and scratch buffers that grow to the largest size
// run so far, so repeated MSMs allocate nothing. Not thread-safe; use one per host thread.
template <class C>
class Msm {
 public:
  using Point = ec::Jacobian<C>;
  Msm();
  ~Msm();
  Msm(Msm&&) noexcept;
  Msm& operator=(Msm&&) noexcept;

  // Size mismatches (bases vs scalars or density) throw std::invalid_argument.
  Point run(DeviceBasesView<C> bases, std::span<const ff::Fr> scalars, const GpuMsmOptions& = {});
  Point run_canonical(DeviceBasesView<C> bases, std::span<const ff::Limbs<4>> scalars, const GpuMsmOptions& = {});
  // Scalars already in DEVICE memory (n ff::Fr in Montgomery form, e.g. the prover's witness or
  // H): no upload. Work queued on `after` before this call is waited for (an event, not a host
  // sync); the device scalars must not change until run_device returns (it is synchronous).
  Point run_device(DeviceBasesView<C> bases, const ff::Fr* d_scalars, size_t n, const GpuMsmOptions& = {},
                   cudaStream_t after = nullptr);
  const GpuMsmStats& stats() const;

  struct Impl;  // msm_impl.cuh (public only so that the kernel launch stubs may name its types)

 private:
  std::unique_ptr<Impl> impl_;
};

// One-shot conveniences (a fresh engine per call: scratch allocation included).
template <class C>
ec::Jacobian<C> msm(const DeviceBases<C>& bases, std::span<const ff::Fr> scalars, const GpuMsmOptions& opt = {}) {
  return Msm<C>().run(bases.view(), scalars, opt);
}
template <class C>
ec::Jacobian<C> msm_canonical(const DeviceBases<C>& bases, std::span<const ff::Limbs<4>> scalars,
                              const GpuMsmOptions& opt = {}) {
  return Msm<C>().run_canonical(bases.view(), scalars, opt);
}

using G1DeviceBases = DeviceBases<ec::G1Config>;
using G2DeviceBases = DeviceBases<ec::G2Config>;
using G1Msm = Msm<ec::G1Config>;
using G2Msm = Msm<ec::G2Config>;

extern template class DeviceBases<ec::G1Config>;
extern template class DeviceBases<ec::G2Config>;
extern template class Msm<ec::G1Config>;
extern template class Msm<ec::G2Config>;

}  // namespace cuzk::gpu
