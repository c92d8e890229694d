#include "backend/setup_backend.hpp"

#include <spdlog/spdlog.h>

#ifdef CUZK_HAVE_CUDA
#include "gpu/fixed_base.hpp"
#endif

namespace cuzk::backend {

std::unique_ptr<groth16::FixedBaseMultiplier> make_setup_multiplier(BackendKind kind,
                                                                    const std::vector<unsigned>& devices,
                                                                    ThreadPool* pool) {
  const Selection sel = select_backend(kind, available_devices(devices));
  spdlog::debug("setup multiplier: {} ({})", to_string(sel.kind), sel.reason);
#ifdef CUZK_HAVE_CUDA
  if (sel.kind == BackendKind::Gpu) return std::make_unique<gpu::GpuFixedBaseMultiplier>(sel.devices.at(0));
#endif
  return groth16::cpu_fixed_base_multiplier(pool);
}

}  // namespace cuzk::backend
