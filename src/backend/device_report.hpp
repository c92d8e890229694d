#pragma once
// What the preflight (`cuzk doctor`, the daemon's start-up checks) asks of the GPU side without
// loading anything: the devices with their memory and compute capability (how much device memory a
// circuit's provers take is plan_placement's, fit_ladder.hpp). A build without CUDA answers "no
// devices".
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::backend {

struct DeviceDetails {
  int ordinal = 0;
  std::string name;
  uint64_t total_memory = 0, free_memory = 0;
  int cc_major = 0, cc_minor = 0;
};

struct DeviceReport {
  std::vector<DeviceDetails> devices;
  std::string unavailable_reason;  // why there is none
  std::string driver_version;      // "12.4"; empty without a driver
};

DeviceReport describe_devices();

}  // namespace cuzk::backend
