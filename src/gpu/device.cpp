#include "gpu/device.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "gpu/cuda_error.hpp"

namespace cuzk::gpu {

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw CudaError(code, std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                            ") in " + expr + " at " + file + ":" + std::to_string(line));
}

DeviceScan scan_devices() {
  DeviceScan scan;
  if (cudaDriverGetVersion(&scan.driver_version) != cudaSuccess) scan.driver_version = 0;
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    scan.unavailable_reason = std::string("no usable CUDA driver or device: ") + cudaGetErrorString(rc);
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return scan;
  }
  if (count == 0) {
    scan.unavailable_reason = "the CUDA driver reports no devices";
    return scan;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    CUZK_CUDA_CHECK(cudaGetDeviceProperties(&prop, i));
    DeviceInfo d;
    d.ordinal = i;
    d.name = prop.name;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    d.total_memory = prop.totalGlobalMem;
    d.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
    d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    CUZK_CUDA_CHECK(cudaSetDevice(i));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    d.free_memory = free_b;
    scan.devices.push_back(d);
  }
  return scan;
}

}  // namespace cuzk::gpu
