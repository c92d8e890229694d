// The CUDA platform (linked in CUDA builds only, see device_platform.hpp): gpu::GpuProver and
// gpu::GpuZkeyProver behind the DeviceProver interface, their CUDA errors surfaced as DeviceFailure
// so that the retry policy proves elsewhere.
#include <string>

#include "backend/device_platform.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device.hpp"
#include "groth16/gpu/fixed_base.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/streamed_prover.hpp"

namespace cuzk::backend {

namespace {

gpu::GpuProverOptions gpu_options(int device, const FitOptions& fit) {
  return {.device = device,
          .b_g2_on_gpu = fit.b_g2_on_gpu,
          .pool = fit.pool,
          .msm_table_bits = fit.msm_table_bits,
          .witness_slots = fit.witness_slots,
          .overlap_h = fit.overlap_h,
          .memory_limit = fit.memory_limit};
}

// Runs `fn`, a CUDA error becoming DeviceFailure named after the device, or DeviceMemoryShort when
// the device ran out of memory (another process took it): the placement then tries a smaller
// prover instead of another device.
template <class Fn>
auto on_device(int device, const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const gpu::CudaError& e) {
    const std::string message = "gpu:" + std::to_string(device) + ": " + what + e.what();
    if (e.code() == cudaErrorMemoryAllocation) throw DeviceMemoryShort(message + " (out of device memory)");
    throw DeviceFailure(message);
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

// The streamed prover: the key's bases in pinned host memory (one copy per key, shared by every
// device's prover and reserved once in the host's budget through FitOptions::reserve_host), sent
// to the device chunk by chunk under the cap.
class GpuStreamedPceProver final : public DeviceProver {
 public:
  GpuStreamedPceProver(const PceKey& key, int device, const FitOptions& fit)
      : host_(reserve(*key.key, fit)), prover_(*key.key, *key.pce, options(device, fit)) {
    prover_.inject_failures(fit.test_inject_failures);
    // The prover's own pinned host memory besides the key: a, b, c with MatVec on the host
    // (host2), the PCE's copy when it is streamed to the device (stream2).
    if (fit.reserve_host && prover_.plan().host_pinned_bytes > 0) {
      pinned_ = fit.reserve_host(name() + "#host-pinned#" + gpu::PinnedHostKey::identity_of(*key.key),
                                 prover_.plan().host_pinned_bytes);
    }
  }
  std::string name() const override { return "gpu:" + std::to_string(prover_.device()); }
  uint64_t device_bytes() const override { return prover_.plan().memory.total(); }
  StageMsms stage1(const WitnessRef& wr, groth16::ProveTimings* t) override {
    const auto* w = std::get_if<groth16::Witness>(&wr);
    if (!w) throw std::invalid_argument(name() + ": a bellperson prover was given a snarkjs witness");
    return on_device(prover_.device(), "", [&] { return prover_.stage1(w->inputs, w->aux, t); });
  }

 private:
  static gpu::GpuStreamedProverOptions options(int device, const FitOptions& fit) {
    return {.device = device, .memory_limit = fit.memory_limit, .b_g2_on_gpu = fit.b_g2_on_gpu, .pool = fit.pool};
  }
  static HostReservation reserve(const groth16::KeySource& key, const FitOptions& fit) {
    if (!fit.reserve_host) return nullptr;
    const groth16::KeySizes k = key.sizes();
    const uint64_t bytes = (k.h + k.l + k.a + k.b_g1) * gpu::PinnedHostKey::kG1Bytes +
                           (fit.b_g2_on_gpu ? k.b_g2 * gpu::PinnedHostKey::kG2Bytes : 0);
    return fit.reserve_host(gpu::PinnedHostKey::identity_of(key) + (fit.b_g2_on_gpu ? "" : "#g1"), bytes);
  }
  HostReservation host_;  // before the prover: the reservation outlives its pinned copy
  gpu::GpuStreamedProver prover_;
  HostReservation pinned_;  // host2's a, b, c or stream2's PCE
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
      if (const auto* k = std::get_if<PceKey>(&key)) {
        if (fit.streamed) return std::make_unique<GpuStreamedPceProver>(*k, device, fit);
        return std::make_unique<GpuPceProver>(*k, device, fit);
      }
      return std::make_unique<GpuZkeyProver>(std::get<ZkeyKey>(key), device, fit);
    });
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
