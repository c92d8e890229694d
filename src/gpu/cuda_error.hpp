#pragma once
// CUDA runtime errors as exceptions carrying the call site and the runtime's own message.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cuzk::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// The device has too little free memory for what a prover would keep resident (raised before any
// upload): the caller may free other residents and try again, or prove elsewhere.
class DeviceMemoryShort : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expr, file, line);
}

}  // namespace cuzk::gpu

#define CUZK_CUDA_CHECK(expr) ::cuzk::gpu::check_cuda((expr), #expr, __FILE__, __LINE__)
