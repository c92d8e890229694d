#pragma once
// The GPU implementation of ProverBackend (CUDA builds only): one gpu::GpuProver, its CUDA errors
// surfaced as DeviceFailure so that with_cpu_fallback retries the proof on the CPU.
#include <memory>

#include "backend/prover_backend.hpp"
#include "gpu/gpu_prover.hpp"

namespace cuzk::backend {

class GpuBackend final : public ProverBackend {
 public:
  // key.vk() and the Pce must outlive the backend (an in-memory key too: see gpu::GpuProver).
  GpuBackend(const groth16::KeySource& key, const pce::Pce& pce, const gpu::GpuProverOptions& options);
  std::string name() const override;  // "gpu:<ordinal>"
  uint64_t device_bytes() const override { return prover_.memory().total(); }
  groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* timings) override;
  gpu::GpuProver& prover() { return prover_; }

 private:
  gpu::GpuProver prover_;
};

std::unique_ptr<GpuBackend> make_gpu_backend(const groth16::KeySource& key, const pce::Pce& pce,
                                             const gpu::GpuProverOptions& options);

// A resident GpuZkeyProver as a ZkeyDeviceProver (CUDA errors become DeviceFailure; a prover that
// does not fit throws DeviceMemoryShort).
std::unique_ptr<ZkeyDeviceProver> make_gpu_zkey_prover(const groth16::Zkey& zkey, const gpu::GpuProverOptions& options);

// The zkey proof's device stage on one GPU (a fresh GpuZkeyProver); CUDA errors of the proof
// itself become DeviceFailure, a prover that cannot be built throws what its constructor threw.
groth16::ZkeyMsms zkey_stage1_gpu(const groth16::Zkey& zkey, std::span<const Fr> witness,
                                  const gpu::GpuProverOptions& options, unsigned inject_failures,
                                  groth16::ProveTimings* timings);

}  // namespace cuzk::backend
