// A build without CUDA: no device platform (the CPU proves everything).
#include "backend/device_platform.hpp"

namespace cuzk::backend {

const DevicePlatform* builtin_device_platform() {
  return nullptr;
}

}  // namespace cuzk::backend
