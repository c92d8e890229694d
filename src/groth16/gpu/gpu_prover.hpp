#pragma once
// The Groth16 device stage (bellperson convention) on one GPU: the key's G1 queries (h, l, a,
// b_g1; b_g2 too unless the G2 MSM runs on the CPU) and the Pce are uploaded once and stay
// resident; per witness:
//   upload z = inputs ‖ aux (through a pinned staging buffer),
//   a, b, c = A·z, B·z, C·z on the device (GpuPce, zero-padded to the domain size m),
//   H on the device (gpu::compute_h, Zcash convention: bit-identical to groth16::compute_h),
//   the five MSMs on the device from the device-resident z and H (same density semantics as
//   groth16::prove_stage1: a = inputs dense + aux through the A aux density, b = inputs and aux
//   through the B densities), the G2 MSM concurrently on its own stream (or on the CPU),
// and returns groth16::ProofMsms: groth16::prove_finalize turns it into the proof, which for the
// same r, s is byte-identical to the CPU prover's (the MSM sums are the same group elements).
//
// Device buffers (z, a/b/c, MSM scratch) are allocated once and reused by every witness. Before
// uploading anything the constructor checks the device's free memory (cudaMemGetInfo) against an
// estimate of everything the prover will hold and throws std::runtime_error naming both numbers.
// CUDA failures surface as gpu::CudaError. One GpuProver per device; with witness_slots = 2, two
// host threads may call stage1 at once: each witness gets its own z and pinned staging, so one
// uploads while the other's kernels run (the kernels themselves run one witness at a time).
// Otherwise one host thread at a time.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ec/bls12_381.hpp"
#include "groth16/gpu/resident_plan.hpp"
#include "groth16/key_source.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/zkey.hpp"
#include "pce/pce.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::gpu {

struct GpuProverOptions {
  int device = 0;              // CUDA ordinal; every call sets it on the calling thread
  bool b_g2_on_gpu = true;     // false: the G2 MSM runs on the CPU (pool) while the GPU does the G1 MSMs
  ThreadPool* pool = nullptr;  // the CPU G2 MSM's threads; null: ThreadPool::global()
  // > 0: precomputed MSM window tables of this width (2..24) for every base set on the device
  // (DeviceBases::precompute): faster MSMs for num_windows(c) times the base memory, built once
  // when the prover is made. Pays where memory is plentiful: 2^20 circuits (c = 20: 13 rows).
  unsigned msm_table_bits = 0;
  // Witnesses in flight at once (1 or 2). 2: the next witness's upload (host copy into pinned
  // memory and DMA: 0.14 s of a 1.57 s device stage at 32 GiB) overlaps this one's kernels, for one
  // more z on the device and one more pinned staging buffer on the host (4.2 GB each at 32 GiB).
  unsigned witness_slots = 1;
  // true: H's transforms run while the l, a and b_g1 MSMs (and G2) do, which need only the
  // witness; the h MSM follows H. Off by default: at 32 GiB on an H200 the MSMs beside H slow down
  // by about H's time (one process: 1.513-1.526 s a stage against 1.490-1.499 s; the daemon, one
  // run: 13.72 against 13.85 s a proof, within the noise; BENCHMARKS.md). `gpus.overlap_h`.
  bool overlap_h = false;
  // Bytes the prover may take on the device (gpus.memory_limit: a card shared with other work, or a
  // large card standing in for a small one); 0: what the device has free. Checked with the free
  // memory before anything is uploaded.
  uint64_t memory_limit = 0;
};

// What the prover will hold on the device, by part (resident_plan.hpp: computable without CUDA).
using GpuProverMemory = ResidentMemory;

class GpuProver {
 public:
  // The key must fit the Pce (groth16::validate_key, checked); both must outlive the prover (the
  // CPU G2 path and the density bitmaps read them). Throws cuzk::DeviceMemoryShort when the device has
  // too little free memory, gpu::CudaError on CUDA failures.
  GpuProver(const groth16::ProvingKey& pk, const pce::Pce& pce, const GpuProverOptions& options = {});
  // The bases read from `key` while building (a ParamsKeySource streams a .params file window by
  // window: the host never holds the whole key); afterwards the prover needs the source no more,
  // except an in-memory key's b_g2 when the G2 MSM runs on the CPU. The Pce must outlive it.
  GpuProver(const groth16::KeySource& key, const pce::Pce& pce, const GpuProverOptions& options = {});
  // Without a Pce (full synthesis gives a, b, c): only stage1_abc is available. The key must fit
  // the shape (validate_key).
  GpuProver(const groth16::ProvingKey& pk, const groth16::CircuitShape& shape, const GpuProverOptions& options = {});
  ~GpuProver();
  GpuProver(const GpuProver&) = delete;
  GpuProver& operator=(const GpuProver&) = delete;

  // The estimate the constructor checks (no device needed).
  static GpuProverMemory memory_needed(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                       const GpuProverOptions& options = {});
  static GpuProverMemory memory_needed(const groth16::KeySizes& key, const pce::Pce& pce,
                                       const GpuProverOptions& options = {});
  static GpuProverMemory memory_needed(const groth16::KeySizes& key, const groth16::CircuitShape& shape,
                                       const GpuProverOptions& options = {});
  static GpuProverMemory memory_needed(const groth16::ProvingKey& pk, const groth16::CircuitShape& shape,
                                       const GpuProverOptions& options = {});

  // The device stage for one witness (sizes are validated as by the CPU prover). Timings: upload_s
  // (host copy and DMA), device_wait_s (another witness's kernels, witness_slots = 2), then the
  // kernels; with the G2 MSM concurrent, msm_b_g2_s overlaps the G1 MSMs.
  groth16::ProofMsms stage1(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux,
                            groth16::ProveTimings* timings = nullptr);
  // The same from a, b, c computed on the host (num_constraints each; uploaded instead of MatVec).
  // Works with or without a Pce.
  groth16::ProofMsms stage1_abc(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux, std::span<const ec::Fr> a,
                                std::span<const ec::Fr> b, std::span<const ec::Fr> c,
                                groth16::ProveTimings* timings = nullptr);

  int device() const;
  unsigned witness_slots() const;  // how many stage1 calls may run at once
  const GpuProverMemory& memory() const;
  const groth16::CircuitShape& shape() const;

  // Test hook: the next `count` calls of stage1 throw gpu::CudaError (cudaErrorLaunchFailure) after
  // uploading the witness, as a failing kernel would.
  void inject_failures(unsigned count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The snarkjs convention (a .zkey, groth16/prover_zkey.hpp) on one GPU: the zkey's a, b1, c, h
// (and b2) points resident; per witness a, b, c = A·w, B·w, a∘b on the CPU (groth16::zkey_abc:
// the zkey holds a coefficient list, not a PCE), uploaded with w; H (p_j on the odd coset,
// gpu::compute_h with the Snarkjs convention) and the five MSMs on the device. The sums go to
// groth16::zkey_finalize; for the same r, s the proof equals groth16::prove_zkey's.
class GpuZkeyProver {
 public:
  // The Zkey must outlive the prover. Throws cuzk::DeviceMemoryShort when the device memory is short.
  explicit GpuZkeyProver(const groth16::Zkey& zkey, const GpuProverOptions& options = {});
  ~GpuZkeyProver();
  GpuZkeyProver(const GpuZkeyProver&) = delete;
  GpuZkeyProver& operator=(const GpuZkeyProver&) = delete;

  static GpuProverMemory memory_needed(const groth16::Zkey& zkey, const GpuProverOptions& options = {});

  // Adds to every field of `timings` but finalize_s (the caller's); msm_l_s is the C query's MSM.
  groth16::ZkeyMsms stage1(std::span<const ec::Fr> witness, groth16::ProveTimings* timings = nullptr);
  int device() const;
  void inject_failures(unsigned count);  // test hook, as GpuProver's

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::gpu
