#pragma once
// MSMs whose bases stay in pinned host memory (PinnedHostKey) and cross PCIe in chunks: a ring of
// R >= 2 device chunk buffers, each with its own copy stream, so that the copies of the next R - 1
// chunks run while the MSM of this one does (Msm::run_device waits for its buffer's copy through an
// event on that stream). The copies are chained in order (each waits for the previous one), so the
// chunk needed next is never slowed by later ones sharing the copy engine. An MSM is linear in its
// bases, so the chunks' sums add up to the whole MSM's exactly, in any order.
//
// Order: the chunks of MSMs marked copy_bound (the bases cross PCIe slower than the MSM sums them:
// Filecoin's l, a and b_g1, whose witness values are mostly 0 and 1) are interleaved with the
// others' (h over the dense H, G2) in proportion, so that their copies run while a compute-bound
// chunk keeps the SMs busy. With R = 3 a model of the 32 GiB partition (copies 0.88 s, MSMs 1.46 s)
// gives 1.50 s for the MSMs against 1.73 s in MSM order with R = 2 (docs/gpu-streamed.md).
//
// The chunks are cut once (msm_chunks.hpp) on multiples of 64 scalars: with a density each
// chunk's bitmap is a slice of whole words and its bases one contiguous range.
//
// Per-chunk costs (Msm<C>::run_device): the density words uploaded and a host prefix over them,
// scalar classification with one host sync for the counts, the sort, and a bucket reduction per
// chunk with its window sums combined on the CPU; chunks of 2^21 bases and more keep them small
// beside the chunk's accumulation. The scratch of an engine grows to the largest chunk it ran and is
// then reused: reserve() grows it at once, so that a short device fails when the prover is made.
//
// Several witnesses per pass: each chunk serves every witness's scalars before its buffer is
// reused, so the key crosses PCIe once for all of them.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "ec/bls12_381.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "groth16/gpu/msm_chunks.hpp"

namespace cuzk::gpu {

// Where an MSM's scalars are, per witness: H or z on the device.
enum class ScalarSource : uint8_t { h, z };
struct WitnessScalars {
  const ff::Fr* h = nullptr;
  const ff::Fr* z = nullptr;
};

struct StreamedMsm {
  bool g2 = false;
  bool copy_bound = false;                // its chunks are interleaved with the others' (see above)
  const std::byte* host_bases = nullptr;  // pinned, device layout: the MSM's base 0
  ScalarSource source = ScalarSource::z;
  uint64_t scalar_offset = 0;  // of the MSM's scalar 0 in its source
  std::vector<MsmChunk> chunks;
};

// The sums of every MSM for one witness, in the group of each (the other entry stays identity).
struct MsmSums {
  std::vector<ec::G1> g1;
  std::vector<ec::G2> g2;
};

class ChunkedMsm {
 public:
  // `buffers` (>= 2) device buffers of chunk_bytes each, a G1 engine and (with_g2) a G2 engine
  // whose passes hold at most g1_max_pairs / g2_max_pairs sorted pairs
  // (GpuMsmOptions::max_pairs_per_pass).
  ChunkedMsm(uint64_t chunk_bytes, unsigned buffers, bool with_g2, size_t g1_max_pairs, size_t g2_max_pairs);
  ~ChunkedMsm();
  ChunkedMsm(const ChunkedMsm&) = delete;
  ChunkedMsm& operator=(const ChunkedMsm&) = delete;

  // Grows the engines to their largest run (g1_points / g2_points bases, every scalar other than 0
  // and 1) on identity bases and `scratch` (device memory of max(g1_points, g2_points) elements,
  // clobbered).
  void reserve(uint64_t g1_points, uint64_t g2_points, ff::Fr* scratch);
  // Queues the copies of the first R chunks of `msms` (to run while H is computed); the next run()
  // over the same `msms` continues from them.
  void prefetch(std::span<const StreamedMsm> msms);
  // Every MSM for every witness, chunk after chunk; returns one MsmSums per witness. seconds[i]
  // (msms.size() entries) adds the wall time of MSM i's chunks. The witnesses' scalars must be complete on
  // the device (run_device orders the MSMs after the copies only).
  std::vector<MsmSums> run(std::span<const StreamedMsm> msms, std::span<const WitnessScalars> witnesses,
                           std::span<double> seconds);

  uint64_t bytes() const { return bytes_; }       // host -> device since construction: bases, density bitmaps
  uint64_t base_bytes() const { return bases_; }  // of which bases
  uint64_t copies() const { return copies_; }     // chunk copies since construction
  uint64_t chunk_bytes() const { return capacity_; }

 private:
  using Task = std::pair<size_t, size_t>;  // (msm, chunk)
  // The chunks in the order they run: copy-bound ones interleaved in proportion with the others.
  static std::vector<Task> tasks_of(std::span<const StreamedMsm> msms);
  // Queues task u's bases into buffer u % R, after the previously queued copy.
  void issue(std::span<const StreamedMsm> msms, const Task& task, size_t u);

  uint64_t capacity_;
  size_t g1_max_pairs_, g2_max_pairs_;
  std::vector<DeviceBuffer<std::byte>> buf_;
  std::deque<Stream> copy_;   // one per buffer (a deque: streams do not move)
  std::deque<Event> copied_;  // each buffer's last copy
  int last_copy_ = -1;        // the buffer of the copy queued last
  G1Msm g1_;
  std::optional<G2Msm> g2_;
  const StreamedMsm* prefetched_ = nullptr;  // msms.data() of the prefetched copies
  size_t prefetched_count_ = 0;              // tasks 0 .. count - 1 queued by prefetch()
  uint64_t bytes_ = 0, bases_ = 0, copies_ = 0;
};

}  // namespace cuzk::gpu
