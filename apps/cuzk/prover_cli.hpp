#pragma once
// The placement a `cuzk prove` command proves with: --backend, --device and --g2-on-cpu.
#include "backend/placement.hpp"
#include "commands.hpp"

namespace cuzk::cli {

inline backend::PlacementOptions cli_placement(const Groth16Options& o) {
  return {.kind = backend::parse_backend_kind(o.backend), .devices = o.devices, .fit = {.b_g2_on_gpu = !o.g2_on_cpu}};
}

}  // namespace cuzk::cli
