#pragma once
// What happens when a device stage fails, the same for the CLI and the daemon:
//   a device error (DeviceFailure) is retried once: on the next device when the placement has
//     several, else on the CPU; a second device error fails the proof with both messages;
//   a prover that does not fit its device even after the placement's fit ladder
//     (DeviceMemoryShort) runs on the CPU, unless the GPU is required (kind = gpu): then that is
//     the error, naming the setting;
//   other errors (a bad witness, a key that does not fit its circuit) are not retried.
// With PlacementOptions::retry false, device errors and memory shortages reach the caller.
#include <functional>
#include <string>
#include <vector>

#include "backend/placement.hpp"

namespace cuzk::backend {

// Where the stage ran, and the device errors met on the way.
struct StageReport {
  std::string backend;                // "gpu:0", "cpu"
  std::vector<std::string> failures;  // device errors, in order (at most two)
};

// The device stage of `w` on placement slot `slot` under the policy above; `on_cpu` makes it on
// the CPU (the caller's CPU path; it may throw to fail the proof). Without devices, `on_cpu` alone.
StageMsms stage_with_retry(Placement& placement, size_t slot, const CircuitKey& key, const WitnessRef& w,
                           const std::function<StageMsms()>& on_cpu, StageReport* report = nullptr,
                           groth16::ProveTimings* timings = nullptr);

}  // namespace cuzk::backend
