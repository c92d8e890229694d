#pragma once
// Which devices a prover may use: `cpu`, `gpu` or `auto` (the CLI's --backend, the daemon's
// gpus.backend) against the devices the platform finds (pure logic, tested without a device):
//   cpu   always the CPU;
//   gpu   every usable device (or the listed ones); an error when there is none;
//   auto  the GPUs when there is one, else the CPU.
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::backend {

enum class BackendKind { Cpu, Gpu, Auto };

// "cpu", "gpu" or "auto"; anything else throws std::invalid_argument naming the three.
BackendKind parse_backend_kind(std::string_view text);
const char* to_string(BackendKind kind);

// True when this build has a device platform (CUDA found nvcc).
bool built_with_cuda();

// The devices a backend may use, as the platform reports them (or as a test states them).
struct DeviceList {
  std::vector<int> ordinals;
  std::vector<std::string> names;  // one per ordinal
  std::string unavailable_reason;  // why there is none (no driver, no device, built without CUDA)
};

// The platform's devices restricted to `only` (empty: all); never throws for a missing driver or
// device. Listed ordinals that do not exist throw std::invalid_argument.
DeviceList available_devices(const std::vector<unsigned>& only = {});

struct Selection {
  BackendKind kind = BackendKind::Cpu;  // Cpu or Gpu
  std::vector<int> devices;             // Gpu: the ordinals to use
  std::string reason;                   // why (for logs and `--verbose`)
};

// The decision for `requested` given `devices`. requested = Gpu without devices throws
// std::runtime_error carrying devices.unavailable_reason.
Selection select_backend(BackendKind requested, const DeviceList& devices);

}  // namespace cuzk::backend
