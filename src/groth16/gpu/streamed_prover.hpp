#pragma once
// The Groth16 device stage (bellperson convention) under a cap on device memory: the key's bases
// stay in pinned host memory (PinnedHostKey, one copy per host) and cross PCIe chunk by chunk while
// the MSMs run (ChunkedMsm), so a key larger than the device is proved on it. Same inputs and
// outputs as GpuProver::stage1: the sums are the same group elements (an MSM is linear in its
// bases, H is computed by the same operations), so groth16::prove_finalize gives the same proof for
// the same r, s.
//
// What it holds on the device follows the plan (streamed_plan.hpp, computable without a device):
// the fastest of four arrangements that fits the cap, with the largest base chunk that fits:
//   pce3     the PCE (GpuPce), z and a, b, c as the resident prover: MatVec and H as it does them;
//   pce2     the PCE and z, two domain vectors: MatVec one matrix at a time, H in steps (h_steps);
//   stream2  as pce2 with the PCE in pinned host memory, streamed by row blocks (GpuPceStream);
//   host2    two domain vectors: MatVec on the CPU (pce::matvec) into the prover's pinned a, b, c,
//            each uploaded in one DMA into them in turn, H in steps, then z into the free vector.
// The NTTs' twiddles are two small tables (gpu::TwiddleLayout::compact) unless compact_twiddles is
// off: 2 GiB less at 2^27 than the resident prover's one table.
// Then the five MSMs (h from H; l, a, b_g1, b_g2 from z, through the densities as GpuProver),
// chunk after chunk through a ring of device buffers; the G2 MSM on the device in the same stream
// of chunks, or on the CPU beside the device work (b_g2_on_gpu = false: no G2 bases cross PCIe).
// The first chunks' copies start as soon as z is queued (host2: before the CPU's MatVec), so they
// cross while MatVec and H run.
//
// Per partition (32 GiB PoRep: m = 2^27, 130.2 M columns): the bases cross once per pass over the
// key (47.4 GB with G2 on the device, 41.0 without: 0.88 / 0.76 s at 54 GB/s pinned), shared by the
// witnesses_per_pass partitions of the pass (stage1_batch), plus z (4.2 GB), and a, b, c (12.5 GB)
// in host2 or the PCE (5.2 GB) in stream2. Whether a copy hides behind the MSMs depends on the MSM:
// the h MSM's scalars are all dense (0.79 s for 12.9 GB of bases on an H200: 16 GB/s, well below
// PCIe), while the l and a MSMs' witness values are mostly 0 and 1 (0.07-0.15 s for 12.5 GB each):
// PCIe-bound, ~0.23 s each. Expected: ~2 s a partition against the resident prover's 1.45 s, less
// with two witnesses a pass (their copies shared) or a deeper ring (copies run ahead through the h
// MSM). Chunking also costs MSM work: an engine picks its window for the chunk, not for the whole
// MSM (2^24 chunks ~11 % more bucket additions than 2^27 by the engine's own cost model), plus a
// bucket reduction and two host syncs per chunk. The floor is two domain vectors (8 GiB at 2^27)
// plus the smallest chunk's buffers and engines: 8.6 GiB (docs/gpu-streamed.md).
//
// All device memory (vectors, PCE, twiddles, chunk buffers, MSM engines, grown to their largest
// chunk when the prover is made) is allocated by the constructor, within min(memory_limit, free).
// Errors: cuzk::DeviceMemoryShort when no arrangement fits (naming the smallest workable cap),
// gpu::CudaError on CUDA failures, std::invalid_argument for a key that does not fit the Pce or a
// witness of the wrong size. One stage1 / stage1_batch at a time (calls are serialized).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "groth16/gpu/pinned_host_key.hpp"
#include "groth16/gpu/streamed_plan.hpp"
#include "groth16/key_source.hpp"
#include "groth16/prover.hpp"
#include "pce/pce.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::gpu {

struct GpuStreamedProverOptions {
  int device = 0;  // CUDA ordinal; every call sets it on the calling thread
  // Bytes the prover may allocate on the device, everything included (vectors, PCE, twiddles,
  // chunk buffers, MSM engines); 0: what the device has free when the prover is made.
  uint64_t memory_limit = 0;
  bool b_g2_on_gpu = true;                // false: the G2 MSM on the CPU (pool), beside the device work
  ThreadPool* pool = nullptr;             // CPU MatVec (host2), conversions, the CPU G2 MSM; null: global
  unsigned witnesses_per_pass = 1;        // partitions per pass over the key (stage1_batch)
  std::optional<StreamedMode> mode = {};  // forced arrangement (tests, benchmarks)
  uint64_t chunk_points = 0;              // forced bases per G1 chunk, >= 64 (tests, benchmarks)
  unsigned buffers = 3;                   // chunk buffers in the ring, >= 2 (chunked_msm.hpp)
  bool compact_twiddles = true;           // the NTTs' twiddles as two small tables (gpu/ntt.hpp)
  // The pinned copy's name in the process-wide registry (provers of one name share it); empty:
  // PinnedHostKey::identity_of(key).
  std::string key_id = {};

  StreamedPlanOptions plan_options() const {
    return {.b_g2_on_gpu = b_g2_on_gpu,
            .witnesses_per_pass = witnesses_per_pass,
            .mode = mode,
            .chunk_points = chunk_points,
            .buffers = buffers,
            .compact_twiddles = compact_twiddles};
  }
};

// What one stage1 / stage1_batch moved and held.
struct GpuStreamedStats {
  uint64_t h2d_bytes = 0;     // host -> device: bases, z, a/b/c (host2), density bitmaps
  uint64_t base_bytes = 0;    // of which the key's bases
  uint64_t chunk_copies = 0;  // base chunks copied
  uint64_t device_used = 0;   // device memory in use (all processes: total - free) after the MSMs
};

class GpuStreamedProver {
 public:
  // The key must fit the Pce (validate_key, checked); the Pce must outlive the prover, and so must
  // an in-memory key when the G2 MSM runs on the CPU (its b_g2 is read in place). The bases come
  // from the registry's pinned copy of the key (PinnedHostKey::shared), made from `key` if no
  // prover holds one.
  GpuStreamedProver(const groth16::KeySource& key, const pce::Pce& pce, const GpuStreamedProverOptions& options = {});
  // The same with a pinned copy the caller holds (its sizes must be the key's; with b_g2 unless
  // the G2 MSM runs on the CPU).
  GpuStreamedProver(std::shared_ptr<const PinnedHostKey> host_key, const groth16::KeySource& key, const pce::Pce& pce,
                    const GpuStreamedProverOptions& options = {});
  ~GpuStreamedProver();
  GpuStreamedProver(const GpuStreamedProver&) = delete;
  GpuStreamedProver& operator=(const GpuStreamedProver&) = delete;

  // The plan for a cap, without a device (what the constructor takes with cap = its limit).
  static StreamedPlan plan_for(const groth16::KeySizes& key, const pce::Pce& pce, uint64_t cap,
                               const GpuStreamedProverOptions& options = {});

  // The device stage of one witness. Timings as GpuProver's: upload_s (z), matvec_s (device
  // MatVec; host2: the CPU's and the uploads of a, b, c), h_poly_s, msm_*_s (wall time of each MSM's
  // chunks; the G2 MSM on the CPU overlaps the rest).
  groth16::ProofMsms stage1(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux,
                            groth16::ProveTimings* timings = nullptr, GpuStreamedStats* stats = nullptr);
  // Several witnesses, witnesses_per_pass at a time per pass over the key (each chunk serves all
  // of a pass's witnesses before the next is copied); results in order, timings and stats summed.
  std::vector<groth16::ProofMsms> stage1_batch(std::span<const groth16::Witness> witnesses,
                                               groth16::ProveTimings* timings = nullptr,
                                               GpuStreamedStats* stats = nullptr);

  int device() const;
  const StreamedPlan& plan() const;
  const groth16::CircuitShape& shape() const;
  const PinnedHostKey& host_key() const;

  // Test hook: the next `count` calls throw gpu::CudaError (cudaErrorLaunchFailure) after the
  // witness's upload, as a failing kernel would.
  void inject_failures(unsigned count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::gpu
