#pragma once
// Fixed-base scalar multiplication k_i * G (G the generator of G1 or G2) on one GPU, for the
// TEST-ONLY setup writer (groth16/setup_file.hpp): one thread a scalar, a windowed table of G in
// device memory (L2-resident: G1 12-bit windows, 8.6 MB; G2 10-bit, 5.2 MB), XYZZ mixed additions,
// one field inversion per warp for the affine conversion (warp_inverse.cuh), and the result encoded
// on the device in the zcash uncompressed form the .params file stores, so the host only copies
// bytes to disk. Equal, byte for byte, to the CPU multiplier (tests/gpu/test_gpu_setup.cpp).
#include <memory>
#include <string>

#include "groth16/setup_file.hpp"

namespace cuzk::gpu {

class GpuFixedBaseMultiplier final : public groth16::FixedBaseMultiplier {
 public:
  // Throws gpu::CudaError when the device cannot be used.
  explicit GpuFixedBaseMultiplier(int device = 0);
  ~GpuFixedBaseMultiplier() override;

  std::string describe() const override;
  void prepare(uint64_t g1_count, uint64_t g2_count) override;
  void g1(std::span<const groth16::Fr> scalars, std::span<uint8_t> out) override;
  void g2(std::span<const groth16::Fr> scalars, std::span<uint8_t> out) override;
  size_t chunk_points() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::gpu
