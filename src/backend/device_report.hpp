#pragma once
// What the preflight (`cuzk doctor`, the daemon's start-up checks) asks of the GPU side without
// loading anything: the devices with their memory and compute capability, and how much device
// memory a circuit's resident prover would take, from its .params layout alone. A build without
// CUDA answers "no devices" and "no estimate".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "groth16/params_file.hpp"

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

struct ResidentEstimate {
  uint64_t bytes = 0;
  std::string breakdown;  // "12.3 GiB (bases ..., PCE ..., ...)"
};

// Device bytes of a resident GPU prover (gpu::GpuProver) for a key of this layout and a PCE of
// `pce_bytes` (its sections; 0 when not extracted yet), with the daemon's gpus.* choices. nullopt
// in a build without CUDA.
std::optional<ResidentEstimate> resident_prover_bytes(const groth16::ParamsLayout& layout, uint64_t pce_bytes,
                                                      bool b_g2_on_gpu, unsigned msm_table_bits);

}  // namespace cuzk::backend
