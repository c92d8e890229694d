#pragma once
// A proving key's bases in page-locked host memory, in the device's point layout, for provers
// that stream the bases to the GPU chunk by chunk (GpuStreamedProver) instead of holding them in
// device memory. One copy per host: the process-wide registry (shared()) hands every prover of the
// same key, on any device, the same copy while one of them holds it.
//
// Layout: the device's affine layout (msm.hpp DeviceBases: x then y, 96 bytes a G1 point, 192 a
// G2 point, the identity as all zeros), so that each chunk is one plain DMA at full PCIe speed.
// The host's ec::Affine is not that layout (it carries an `infinity` flag: 104 / 200 bytes a
// point with padding), so an in-memory ProvingKey's vectors cannot be registered and sent as they
// are; every point is converted once, in parallel, when the copy is made (a 32 GiB PoRep key:
// 44.1 GiB pinned), rather than through a staging buffer for every partition.
//
// The memory is allocated with cudaHostAllocPortable, so every device of the process reads it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "groth16/key_source.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::gpu {

class PinnedHostKey {
 public:
  static constexpr uint64_t kG1Bytes = 96;   // bytes a G1 point (device layout)
  static constexpr uint64_t kG2Bytes = 192;  // bytes a G2 point

  // Reads every G1 section of `src` (and b_g2 when with_b_g2) into new pinned memory, converting on
  // `pool` (null: ThreadPool::global()). Throws gpu::CudaError when pinned memory cannot be had and
  // what the source throws (a changed file).
  static std::shared_ptr<const PinnedHostKey> load(const groth16::KeySource& src, bool with_b_g2,
                                                   ThreadPool* pool = nullptr);
  // The copy of the key named `id` that a live prover already holds, else a new one from `src`
  // (loaded under the registry's lock: concurrent callers for one key wait for one load). An empty
  // id: a private copy (load()). Throws std::invalid_argument when the held copy under `id` has other
  // sizes than `src` or lacks b_g2 that is asked for.
  static std::shared_ptr<const PinnedHostKey> shared(const std::string& id, const groth16::KeySource& src,
                                                     bool with_b_g2, ThreadPool* pool = nullptr);
  // A name for the key behind `src`: "params:<path>" for a .params file, "memory:<address>" for a
  // key in memory (the ProvingKey must then not be replaced at that address while provers of it
  // live), "" when the source has no identity.
  static std::string identity_of(const groth16::KeySource& src);

  PinnedHostKey(const PinnedHostKey&) = delete;
  PinnedHostKey& operator=(const PinnedHostKey&) = delete;

  const groth16::KeySizes& sizes() const { return sizes_; }
  bool has_b_g2() const { return b_g2_ != nullptr || sizes_.b_g2 == 0; }
  // The first point of a section (device layout; point i at i * kG1Bytes / kG2Bytes).
  const std::byte* g1(groth16::G1Section s) const { return g1_[static_cast<size_t>(s)].get(); }
  const std::byte* b_g2() const { return b_g2_.get(); }
  uint64_t bytes() const;  // pinned bytes held

 private:
  struct FreePinned {
    void operator()(std::byte* p) const;  // cudaFreeHost
  };
  using Pinned = std::unique_ptr<std::byte, FreePinned>;
  static Pinned allocate(uint64_t bytes);

  PinnedHostKey() = default;
  groth16::KeySizes sizes_;
  Pinned g1_[4];
  Pinned b_g2_;
};

}  // namespace cuzk::gpu
