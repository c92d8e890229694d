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

}  // namespace cuzk::backend
