#pragma once
// The devices provers can run on besides the CPU: in a CUDA build the GPUs (cuda_platform.cpp),
// otherwise none (no_device_platform.cpp). The build links exactly one of the two files, which
// defines builtin_device_platform(): that is how the CUDA backend registers itself, and why no code
// outside those files depends on CUZK_HAVE_CUDA.
#include <cstdint>
#include <memory>
#include <string>

#include "backend/device_prover.hpp"
#include "backend/device_report.hpp"
#include "groth16/setup_file.hpp"

namespace cuzk::backend {

class DevicePlatform {
 public:
  virtual ~DevicePlatform() = default;
  virtual DeviceReport describe() const = 0;
  // The prover of `device` for `key`, everything uploaded now. Throws DeviceMemoryShort when the
  // device's free memory is too small for it with these options (nothing uploaded), DeviceFailure
  // on a device error while building it, std::invalid_argument for a key that does not fit its Pce.
  virtual std::unique_ptr<DeviceProver> build(int device, const ProverKey& key, const FitOptions& fit) const = 0;
  // The TEST-ONLY setup's fixed-base multiplications on `device`.
  virtual std::unique_ptr<groth16::FixedBaseMultiplier> setup_multiplier(int device) const = 0;
};

// This build's platform; null in a build without one (then kNoPlatformReason says why).
const DevicePlatform* device_platform();
inline constexpr const char* kNoPlatformReason =
    "this cuzk was built without CUDA (CUZK_CUDA=OFF or no nvcc at build time)";

// Defined by the one platform file the build links (see above); device_platform() returns it.
const DevicePlatform* builtin_device_platform();

}  // namespace cuzk::backend
