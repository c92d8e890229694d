#pragma once
// CUDA runtime errors as exceptions carrying the call site and the runtime's own message.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "util/device_error.hpp"

namespace cuzk::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expr, file, line);
}

}  // namespace cuzk::gpu

#define CUZK_CUDA_CHECK(expr) ::cuzk::gpu::check_cuda((expr), #expr, __FILE__, __LINE__)
