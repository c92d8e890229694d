#include "backend/device_report.hpp"

#include "backend/device_platform.hpp"

namespace cuzk::backend {

const DevicePlatform* device_platform() {
  static const DevicePlatform* const platform = builtin_device_platform();
  return platform;
}

DeviceReport describe_devices() {
  if (const DevicePlatform* p = device_platform()) return p->describe();
  DeviceReport report;
  report.unavailable_reason = kNoPlatformReason;
  return report;
}

std::optional<ResidentEstimate> resident_prover_bytes(const groth16::ParamsLayout& layout, uint64_t pce_bytes,
                                                      bool b_g2_on_gpu, unsigned msm_table_bits) {
  const DevicePlatform* p = device_platform();
  if (!p) return std::nullopt;
  return p->resident_bytes(layout, pce_bytes, {.b_g2_on_gpu = b_g2_on_gpu, .msm_table_bits = msm_table_bits});
}

}  // namespace cuzk::backend
