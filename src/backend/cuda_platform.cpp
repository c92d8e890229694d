// The CUDA platform (linked in CUDA builds only, see device_platform.hpp): gpu::GpuProver and
// gpu::GpuZkeyProver behind the DeviceProver interface, their CUDA errors surfaced as DeviceFailure
// so that the retry policy proves elsewhere.
#include <string>

#include "backend/device_platform.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device.hpp"
#include "groth16/gpu/fixed_base.hpp"
#include "groth16/gpu/gpu_prover.hpp"

namespace cuzk::backend {

namespace {

gpu::GpuProverOptions gpu_options(int device, const FitOptions& fit) {
  return {.device = device,
          .b_g2_on_gpu = fit.b_g2_on_gpu,
          .pool = fit.pool,
          .msm_table_bits = fit.msm_table_bits,
          .witness_slots = fit.witness_slots,
          .overlap_h = fit.overlap_h};
}

// Runs `fn`, a CUDA error becoming DeviceFailure named after the device.
template <class Fn>
auto on_device(int device, const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const gpu::CudaError& e) {
    throw DeviceFailure("gpu:" + std::to_string(device) + ": " + what + e.what());
  }
}

class GpuPceProver final : public DeviceProver {
 public:
  GpuPceProver(const PceKey& key, int device, const FitOptions& fit)
      : prover_(*key.key, *key.pce, gpu_options(device, fit)) {
    prover_.inject_failures(fit.test_inject_failures);
  }
  std::string name() const override { return "gpu:" + std::to_string(prover_.device()); }
  uint64_t device_bytes() const override { return prover_.memory().total(); }
  unsigned concurrency() const override { return prover_.witness_slots(); }
  StageMsms stage1(const WitnessRef& wr, groth16::ProveTimings* t) override {
    const auto* w = std::get_if<groth16::Witness>(&wr);
    if (!w) throw std::invalid_argument(name() + ": a bellperson prover was given a snarkjs witness");
    return on_device(prover_.device(), "", [&] { return prover_.stage1(w->inputs, w->aux, t); });
  }

 private:
  gpu::GpuProver prover_;
};

class GpuZkeyProver final : public DeviceProver {
 public:
  GpuZkeyProver(const ZkeyKey& key, int device, const FitOptions& fit)
      : prover_(*key.zkey, gpu_options(device, fit)),
        bytes_(gpu::GpuZkeyProver::memory_needed(*key.zkey, gpu_options(device, fit)).total()) {
    prover_.inject_failures(fit.test_inject_failures);
  }
  std::string name() const override { return "gpu:" + std::to_string(prover_.device()); }
  uint64_t device_bytes() const override { return bytes_; }
  StageMsms stage1(const WitnessRef& wr, groth16::ProveTimings* t) override {
    const auto* w = std::get_if<FullWitness>(&wr);
    if (!w) throw std::invalid_argument(name() + ": a snarkjs prover was given a bellperson witness");
    return on_device(prover_.device(), "", [&] { return prover_.stage1(w->w, t); });
  }

 private:
  gpu::GpuZkeyProver prover_;
  uint64_t bytes_;
};

class CudaPlatform final : public DevicePlatform {
 public:
  DeviceReport describe() const override {
    DeviceReport report;
    const gpu::DeviceScan scan = gpu::scan_devices();
    report.unavailable_reason = scan.unavailable_reason;
    if (scan.driver_version > 0) {
      report.driver_version =
          std::to_string(scan.driver_version / 1000) + "." + std::to_string(scan.driver_version % 1000 / 10);
    }
    for (const gpu::DeviceInfo& d : scan.devices) {
      report.devices.push_back({d.ordinal, d.name, d.total_memory, d.free_memory, d.cc_major, d.cc_minor});
    }
    return report;
  }

  std::unique_ptr<DeviceProver> build(int device, const ProverKey& key, const FitOptions& fit) const override {
    return on_device(device, "building the prover: ", [&]() -> std::unique_ptr<DeviceProver> {
      if (const auto* k = std::get_if<PceKey>(&key)) return std::make_unique<GpuPceProver>(*k, device, fit);
      return std::make_unique<GpuZkeyProver>(std::get<ZkeyKey>(key), device, fit);
    });
  }

  ResidentEstimate resident_bytes(const groth16::ParamsLayout& layout, uint64_t pce_bytes,
                                  const FitOptions& fit) const override {
    groth16::CircuitShape shape;
    shape.num_inputs = layout.num_inputs();
    shape.num_aux = layout.num_aux();
    shape.num_constraints = layout.domain_size();  // only the domain size matters to the estimate
    gpu::GpuProverMemory mem = gpu::GpuProver::memory_needed(groth16::KeySizes::of(layout), shape, gpu_options(0, fit));
    mem.pce = pce_bytes;
    return {mem.total(), mem.describe()};
  }

  std::unique_ptr<groth16::FixedBaseMultiplier> setup_multiplier(int device) const override {
    return std::make_unique<gpu::GpuFixedBaseMultiplier>(device);
  }
};

}  // namespace

const DevicePlatform* builtin_device_platform() {
  static const CudaPlatform platform;
  return &platform;
}

}  // namespace cuzk::backend
