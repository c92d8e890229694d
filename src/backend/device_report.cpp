#include "backend/device_report.hpp"

#ifdef CUZK_HAVE_CUDA
#include "gpu/device.hpp"
#include "gpu/gpu_prover.hpp"
#endif

namespace cuzk::backend {

DeviceReport describe_devices() {
  DeviceReport report;
#ifdef CUZK_HAVE_CUDA
  const gpu::DeviceScan scan = gpu::scan_devices();
  report.unavailable_reason = scan.unavailable_reason;
  if (scan.driver_version > 0) {
    report.driver_version =
        std::to_string(scan.driver_version / 1000) + "." + std::to_string(scan.driver_version % 1000 / 10);
  }
  for (const gpu::DeviceInfo& d : scan.devices) {
    report.devices.push_back({d.ordinal, d.name, d.total_memory, d.free_memory, d.cc_major, d.cc_minor});
  }
#else
  report.unavailable_reason = "this cuzk was built without CUDA (CUZK_CUDA=OFF or no nvcc at build time)";
#endif
  return report;
}

std::optional<ResidentEstimate> resident_prover_bytes(const groth16::ParamsLayout& layout, uint64_t pce_bytes,
                                                      bool b_g2_on_gpu, unsigned msm_table_bits) {
#ifdef CUZK_HAVE_CUDA
  groth16::CircuitShape shape;
  shape.num_inputs = layout.num_inputs();
  shape.num_aux = layout.num_aux();
  shape.num_constraints = layout.domain_size();  // only the domain size matters to the estimate
  gpu::GpuProverOptions options;
  options.b_g2_on_gpu = b_g2_on_gpu;
  options.msm_table_bits = msm_table_bits;
  const groth16::KeySizes counts = groth16::KeySizes::of(layout);
  gpu::GpuProverMemory mem = gpu::GpuProver::memory_needed(counts, shape, options);
  mem.pce = pce_bytes;
  return ResidentEstimate{mem.total(), mem.describe()};
#else
  (void)layout, (void)pce_bytes, (void)b_g2_on_gpu, (void)msm_table_bits;
  return std::nullopt;
#endif
}

}  // namespace cuzk::backend
