#pragma once
// MatVec on the GPU: a PCE uploaded once (device-resident, coefficients kept dictionary-coded as in
// the CPU format), then per proof a = A·z, b = B·z, c = C·z computed on the device from a witness z
// uploaded from (preferably pinned) host memory, so that a, b, c never cross PCIe. The results are
// bit-identical to pce::matvec.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "ff/bls12_381.hpp"
#include "gpu/device_buffer.hpp"
#include "pce/pce.hpp"

namespace cuzk::gpu {

class GpuPce {
 public:
  // Copies the matrices and the dictionary to the current device (synchronously). The Pce must be
  // structurally sound (built by build_pce or validated), as for pce::matvec.
  explicit GpuPce(const pce::Pce& pce);

  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_aux() const { return num_aux_; }
  uint64_t num_constraints() const { return rows_; }
  uint64_t num_columns() const { return num_inputs_ + num_aux_; }
  uint64_t device_bytes() const;  // memory the matrices and dictionary hold on the device

  // z = inputs ‖ aux into d_z (num_columns() elements of device memory), asynchronously on
  // `stream`: the host spans must stay valid until the stream reaches this point (pinned memory
  // gives full PCIe speed; pageable memory works but is staged). Sizes are checked.
  void upload_witness(std::span<const ff::Fr> inputs, std::span<const ff::Fr> aux, ff::Fr* d_z,
                      cudaStream_t stream = nullptr) const;

  // a = A·z, b = B·z, c = C·z into device buffers of `len` >= num_constraints() elements each; the
  // entries past num_constraints() are zeroed (len = the domain size gives compute_h's input).
  void matvec(const ff::Fr* d_z, ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, size_t len,
              cudaStream_t stream = nullptr) const;
  // One of the three (the streamed prover's H in two vectors takes them one at a time).
  void matvec_one(pce::MatrixId m, const ff::Fr* d_z, ff::Fr* d_out, size_t len, cudaStream_t stream = nullptr) const;

 private:
  struct Matrix {
    DeviceBuffer<std::byte> row_ptr;  // u32 or u64 per row + 1
    DeviceBuffer<uint32_t> col;
    DeviceBuffer<std::byte> coeff;     // u8 / u16 dictionary indices or full Fr values
    DeviceBuffer<uint64_t> long_rows;  // rows with many non-zeros, summed a warp each
    bool row_ptr64 = false;
    uint64_t nnz = 0;
  };
  uint64_t num_inputs_ = 0, num_aux_ = 0, rows_ = 0;
  pce::CoeffEncoding encoding_{};
  DeviceBuffer<ff::Fr> dict_;
  std::array<Matrix, 3> m_;
};

}  // namespace cuzk::gpu
