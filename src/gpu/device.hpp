#pragma once
// Which CUDA devices this process can use, and what they are. Never throws when there is no
// driver or no device: callers fall back to the CPU backend with the reason in hand.
#include <cstddef>
#include <string>
#include <vector>

namespace cuzk::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  size_t total_memory = 0, free_memory = 0;
  size_t l2_bytes = 0;
  size_t shared_per_block_optin = 0;
};

struct DeviceScan {
  std::vector<DeviceInfo> devices;
  std::string unavailable_reason;  // set when devices is empty
  int driver_version = 0;          // cudaDriverGetVersion: 12040 = 12.4; 0 without a driver
};

// Enumerates the devices once per call (cheap after the first CUDA initialization).
DeviceScan scan_devices();

}  // namespace cuzk::gpu
