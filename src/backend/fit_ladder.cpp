#include "backend/fit_ladder.hpp"

namespace cuzk::backend {

std::optional<FitOptions> lower_fit(const FitOptions& fit, const FitOptions& first, bool can_stream,
                                    std::string* event) {
  FitOptions next = fit;
  auto step = [&](const char* name) {
    if (event) *event = name;
    return next;
  };
  if (!fit.streamed) {
    if (fit.witness_slots > 1) {
      next.witness_slots = 1;
      return step("gpu_witness_slots_reduced");
    }
    if (fit.msm_table_bits != 0) {
      next.msm_table_bits = 0;
      return step("gpu_msm_tables_dropped");
    }
    if (fit.b_g2_on_gpu) {
      next.b_g2_on_gpu = false;
      return step("gpu_g2_msm_on_cpu");
    }
    if (!can_stream) return std::nullopt;
    next.streamed = true;
    next.b_g2_on_gpu = first.b_g2_on_gpu;
    return step("gpu_prover_streamed");
  }
  if (fit.b_g2_on_gpu) {
    next.b_g2_on_gpu = false;
    return step("gpu_g2_msm_on_cpu");
  }
  return std::nullopt;
}

const char* where_name(Where w) {
  switch (w) {
    case Where::Resident:
      return "resident";
    case Where::Streamed:
      return "streamed";
    case Where::Cpu:
      break;
  }
  return "cpu";
}

namespace {

gpu::ResidentMemory resident_of(const groth16::KeySizes& key, const gpu::StreamedShape& shape, const FitOptions& f) {
  return gpu::resident_memory(
      key, {shape.num_inputs, shape.num_aux, shape.num_constraints, shape.pce_bytes},
      {.b_g2_on_gpu = f.b_g2_on_gpu, .msm_table_bits = f.msm_table_bits, .witness_slots = f.witness_slots});
}

gpu::StreamedPlan streamed_of(uint64_t room, const groth16::KeySizes& key, const gpu::StreamedShape& shape,
                              const FitOptions& f) {
  return gpu::plan_streamed(key, shape, room, {.b_g2_on_gpu = f.b_g2_on_gpu});
}

}  // namespace

std::string PlacementChoice::describe() const {
  switch (where) {
    case Where::Resident:
      return std::string("resident") + (fit.b_g2_on_gpu ? "" : " (G2 MSM on the CPU)") + ", " +
             gpu::format_gib(device_bytes);
    case Where::Streamed:
      return "streamed: " + streamed.arrangement() + ", " + gpu::format_gib(device_bytes) + " of the device, " +
             gpu::format_gib(streamed.h2d_bytes_per_partition) + " over PCIe a partition";
    case Where::Cpu:
      break;
  }
  return "CPU: the resident prover needs " + gpu::format_gib(resident.total()) + ", the streamed one at least " +
         gpu::format_gib(streamed.smallest_cap);
}

PlacementChoice plan_placement(uint64_t room, const groth16::KeySizes& key, const gpu::StreamedShape& shape,
                               const FitOptions& first) {
  PlacementChoice c;
  std::optional<FitOptions> fit = first;
  for (; fit; fit = lower_fit(*fit, first, true)) {
    if (!fit->streamed) {
      const gpu::ResidentMemory mem = resident_of(key, shape, *fit);
      c.resident = mem;  // the CPU's message names the smallest resident rung
      if (mem.total() <= room) {
        c.where = Where::Resident;
        c.fit = *fit;
        c.device_bytes = mem.total();
        c.streamed = streamed_of(room, key, shape, first);
        return c;
      }
      continue;
    }
    c.streamed = streamed_of(room, key, shape, *fit);
    if (c.streamed.fits) {
      c.where = Where::Streamed;
      c.fit = *fit;
      c.device_bytes = c.streamed.memory.total();
      return c;
    }
  }
  return c;  // the CPU; streamed holds the last rung's plan, with its smallest cap
}

}  // namespace cuzk::backend
