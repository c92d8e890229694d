#include "backend/setup_backend.hpp"

#include <spdlog/spdlog.h>

#include "backend/device_platform.hpp"

namespace cuzk::backend {

std::unique_ptr<groth16::FixedBaseMultiplier> make_setup_multiplier(BackendKind kind,
                                                                    const std::vector<unsigned>& devices,
                                                                    ThreadPool* pool) {
  const Selection sel = select_backend(kind, available_devices(devices));
  spdlog::debug("setup multiplier: {} ({})", to_string(sel.kind), sel.reason);
  if (sel.kind == BackendKind::Gpu) return device_platform()->setup_multiplier(sel.devices.at(0));
  return groth16::cpu_fixed_base_multiplier(pool);
}

}  // namespace cuzk::backend
