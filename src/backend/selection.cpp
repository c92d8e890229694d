#include "backend/selection.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "backend/device_platform.hpp"
#include "backend/device_report.hpp"

namespace cuzk::backend {

BackendKind parse_backend_kind(std::string_view text) {
  if (text == "cpu") return BackendKind::Cpu;
  if (text == "gpu") return BackendKind::Gpu;
  if (text == "auto") return BackendKind::Auto;
  throw std::invalid_argument("unknown backend '" + std::string(text) + "': use cpu, gpu or auto");
}

const char* to_string(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::Gpu:
      return "gpu";
    case BackendKind::Auto:
      return "auto";
  }
  return "?";
}

bool built_with_cuda() {
  return device_platform() != nullptr;
}

DeviceList available_devices(const std::vector<unsigned>& only) {
  DeviceList list;
  const DeviceReport report = describe_devices();
  if (report.devices.empty()) {
    list.unavailable_reason = report.unavailable_reason;
    if (!only.empty())
      throw std::invalid_argument("GPU device " + std::to_string(only.front()) + " was asked for, but " +
                                  report.unavailable_reason);
    return list;
  }
  for (const DeviceDetails& d : report.devices) {
    if (!only.empty() && std::find(only.begin(), only.end(), static_cast<unsigned>(d.ordinal)) == only.end()) continue;
    list.ordinals.push_back(d.ordinal);
    list.names.push_back(d.name);
  }
  for (unsigned o : only) {
    if (o >= report.devices.size())
      throw std::invalid_argument("GPU device " + std::to_string(o) + " does not exist (this machine has " +
                                  std::to_string(report.devices.size()) + ")");
  }
  return list;
}

Selection select_backend(BackendKind requested, const DeviceList& devices) {
  Selection s;
  switch (requested) {
    case BackendKind::Cpu:
      s.reason = "the CPU backend was asked for";
      return s;
    case BackendKind::Gpu:
      if (devices.ordinals.empty())
        throw std::runtime_error("--backend gpu: no GPU to prove on: " + devices.unavailable_reason +
                                 " (use --backend cpu or auto)");
      s.kind = BackendKind::Gpu;
      s.devices = devices.ordinals;
      s.reason = "the GPU backend was asked for";
      return s;
    case BackendKind::Auto:
      if (devices.ordinals.empty()) {
        s.reason = "no GPU: " + devices.unavailable_reason;
        return s;
      }
      s.kind = BackendKind::Gpu;
      s.devices = devices.ordinals;
      s.reason = std::to_string(devices.ordinals.size()) + " GPU(s) found";
      return s;
  }
  return s;
}

}  // namespace cuzk::backend
