#pragma once
// The placement a `cuzk prove` command proves with: --backend, --device, --g2-cpu and
// --gpu-memory-limit (the daemon's placement, fit ladder and streamed rung included).
#include <stdexcept>

#include "backend/placement.hpp"
#include "commands.hpp"
#include "engine/config.hpp"

namespace cuzk::cli {

// Throws std::invalid_argument for a malformed --gpu-memory-limit (a usage error).
inline backend::PlacementOptions cli_placement(const Groth16Options& o) {
  uint64_t limit = 0;
  if (!o.gpu_memory_limit.empty()) {
    auto v = engine::parse_size(o.gpu_memory_limit);
    if (!v || *v == 0) {
      throw std::invalid_argument("--gpu-memory-limit: " +
                                  (v ? std::string("a cap of 0 bytes leaves no room") : v.error()));
    }
    limit = *v;
  }
  backend::PlacementOptions p;  // field by field: see engine.cpp's make_placement
  p.kind = backend::parse_backend_kind(o.backend);
  p.devices = o.devices;
  p.fit.b_g2_on_gpu = !o.g2_on_cpu;
  p.fit.memory_limit = limit;
  return p;
}

}  // namespace cuzk::cli
