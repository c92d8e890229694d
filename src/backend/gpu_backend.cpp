#include "backend/gpu_backend.hpp"

#include <string>

#include "gpu/cuda_error.hpp"

namespace cuzk::backend {

GpuBackend::GpuBackend(const groth16::KeySource& key, const pce::Pce& pce, const gpu::GpuProverOptions& options)
    : ProverBackend(key.vk()), prover_(key, pce, options) {}

std::string GpuBackend::name() const {
  return "gpu:" + std::to_string(prover_.device());
}

groth16::ProofMsms GpuBackend::stage1(const groth16::Witness& w, groth16::ProveTimings* timings) {
  try {
    return prover_.stage1(w.inputs, w.aux, timings);
  } catch (const gpu::CudaError& e) {
    throw DeviceFailure(name() + ": " + e.what());
  }
}

groth16::ZkeyMsms zkey_stage1_gpu(const groth16::Zkey& zkey, std::span<const Fr> witness,
                                  const gpu::GpuProverOptions& options, unsigned inject_failures,
                                  groth16::ProveTimings* timings) {
  gpu::GpuZkeyProver prover(zkey, options);
  prover.inject_failures(inject_failures);
  try {
    return prover.stage1(witness, timings);
  } catch (const gpu::CudaError& e) {
    throw DeviceFailure("gpu:" + std::to_string(options.device) + ": " + e.what());
  }
}

namespace {

class GpuZkeyDeviceProver final : public ZkeyDeviceProver {
 public:
  GpuZkeyDeviceProver(const groth16::Zkey& zkey, const gpu::GpuProverOptions& options)
      : prover_(zkey, options), memory_(gpu::GpuZkeyProver::memory_needed(zkey, options).total()) {}
  std::string name() const override { return "gpu:" + std::to_string(prover_.device()); }
  uint64_t device_bytes() const override { return memory_; }
  groth16::ZkeyMsms stage1(std::span<const Fr> witness) override {
    try {
      return prover_.stage1(witness);
    } catch (const gpu::CudaError& e) {
      throw DeviceFailure(name() + ": " + e.what());
    }
  }

 private:
  gpu::GpuZkeyProver prover_;
  uint64_t memory_;
};

}  // namespace

std::unique_ptr<ZkeyDeviceProver> make_gpu_zkey_prover(const groth16::Zkey& zkey,
                                                       const gpu::GpuProverOptions& options) {
  try {
    return std::make_unique<GpuZkeyDeviceProver>(zkey, options);
  } catch (const gpu::DeviceMemoryShort& e) {
    throw DeviceMemoryShort(e.what());
  } catch (const gpu::CudaError& e) {
    throw DeviceFailure("gpu:" + std::to_string(options.device) + ": building the zkey prover: " + e.what());
  }
}

std::unique_ptr<GpuBackend> make_gpu_backend(const groth16::KeySource& key, const pce::Pce& pce,
                                             const gpu::GpuProverOptions& options) {
  try {
    return std::make_unique<GpuBackend>(key, pce, options);
  } catch (const gpu::DeviceMemoryShort& e) {
    throw DeviceMemoryShort(e.what());
  } catch (const gpu::CudaError& e) {
    throw DeviceFailure("gpu:" + std::to_string(options.device) + ": building the prover: " + e.what());
  }
}

}  // namespace cuzk::backend
