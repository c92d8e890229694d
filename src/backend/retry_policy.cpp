#include "backend/retry_policy.hpp"

#include <stdexcept>

#include "util/log.hpp"

namespace cuzk::backend {

StageMsms stage_with_retry(Placement& placement, size_t slot, const CircuitKey& key, const WitnessRef& w,
                           const std::function<StageMsms()>& on_cpu, StageReport* report,
                           groth16::ProveTimings* timings) {
  StageReport local;
  StageReport& rep = report ? *report : local;
  auto cpu = [&] {
    rep.backend = "cpu";
    return on_cpu();
  };
  if (!placement.enabled()) return cpu();
  const bool retry = placement.options().retry;
  const size_t n = placement.devices().size();
  auto does_not_fit = [&](const DeviceMemoryShort& e) {
    if (!retry) throw;
    if (placement.required())
      throw std::runtime_error(std::string(e.what()) + " (" + placement.options().required_by + ")");
    logging::log_event(logging::Level::warn, "gpu_prover_unavailable",
                       {{"circuit", key.circuit}, {"error", e.what()}, {"using", "cpu"}});
  };
  try {
    return placement.stage1(slot, key, w, timings, &rep.backend);
  } catch (const DeviceFailure& e) {
    if (!retry) throw;
    rep.failures.push_back(e.what());
  } catch (const DeviceMemoryShort& e) {
    does_not_fit(e);
    return cpu();
  }
  // One retry: the next device, else the CPU.
  const size_t next = (slot + 1) % n;
  const std::string retry_on = n > 1 ? "gpu:" + std::to_string(placement.devices()[next]) : "cpu";
  logging::log_event(logging::Level::warn, "device_stage_failed",
                     {{"circuit", key.circuit}, {"error", rep.failures.back()}, {"retry", retry_on}});
  if (n == 1) return cpu();
  try {
    return placement.stage1(next, key, w, timings, &rep.backend);
  } catch (const DeviceFailure& e) {
    rep.failures.push_back(e.what());
  } catch (const DeviceMemoryShort& e) {
    does_not_fit(e);
    return cpu();
  }
  throw std::runtime_error("the device stage failed twice: " + rep.failures[0] + "; then " + rep.failures[1]);
}

}  // namespace cuzk::backend
