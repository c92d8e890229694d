#pragma once
// MatVec on the GPU with the PCE kept in pinned host memory and streamed to the device by row
// blocks: for a device-memory cap too small to hold the PCE (4.85 GiB at 32 GiB PoRep) beside the
// witness and two domain vectors. Each matrix is cut once into blocks of whole rows whose row
// pointers, columns and coefficients fit one staging buffer; blocks go through a ring of two, the
// copy of the next on this object's copy stream while the kernel of this one runs on the caller's
// stream. The kernels are GpuPce's (pce_matvec_rows.hpp), so the results are bit-identical to
// pce::matvec. Per MatVec of all three matrices the PCE's sections cross PCIe once (5.2 GB at
// 32 GiB PoRep: ~0.1 s pinned), which the kernels (~15 ms a matrix) do not hide.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ff/bls12_381.hpp"
#include "gpu/device_buffer.hpp"
#include "pce/pce.hpp"

namespace cuzk::gpu {

class GpuPceStream {
 public:
  // Staging buffers of block_bytes each (two) on the current device, the dictionary and the
  // long-row lists there too; the matrices copied once into pinned host memory. Throws
  // std::invalid_argument when one row does not fit a block. The Pce must be structurally sound.
  GpuPceStream(const pce::Pce& pce, uint64_t block_bytes);

  // Device bytes this object holds for a PCE: the staging ring (not the dictionary and long-row
  // lists, a few MiB at most, which the plan's overhead covers).
  static uint64_t ring_bytes(uint64_t block_bytes) { return 2 * block_bytes; }
  uint64_t device_bytes() const;
  uint64_t host_bytes() const { return host_.size(); }  // the pinned copy
  uint64_t num_constraints() const { return rows_; }
  size_t blocks(pce::MatrixId m) const { return mats_[static_cast<size_t>(m)].blocks.size(); }

  // out = M·z for one matrix into len >= num_constraints() elements (the rest zeroed), queued on
  // `stream`: the blocks' copies wait for the kernels that last read their buffer, the kernels for
  // their block's copy. d_z must hold the whole witness. Asynchronous; bytes counted in copied().
  void matvec_one(pce::MatrixId m, const ff::Fr* d_z, ff::Fr* d_out, size_t len, cudaStream_t stream);
  uint64_t copied() const { return copied_; }

 private:
  struct Block {
    uint64_t row0 = 0, rows = 0;              // matrix rows [row0, row0 + rows)
    uint64_t nz0 = 0, nnz = 0;                // non-zeros [nz0, nz0 + nnz)
    uint64_t long_first = 0, long_count = 0;  // its range of the matrix's long-row list
  };
  struct Matrix {
    uint64_t row_ptr_off = 0, col_off = 0, coeff_off = 0;  // sections in host_
    std::vector<Block> blocks;
    DeviceBuffer<uint64_t> long_rows;
  };

  uint64_t rows_ = 0;
  pce::CoeffEncoding encoding_{};
  unsigned ptr_bytes_ = 4, coeff_bytes_ = 1;
  bool row_ptr64_ = false;
  uint64_t block_bytes_ = 0;
  PinnedBuffer<std::byte> host_;
  DeviceBuffer<ff::Fr> dict_;
  std::array<Matrix, 3> mats_;
  std::array<DeviceBuffer<std::byte>, 2> buf_;
  Stream copy_;
  std::array<Event, 2> copied_ev_, used_ev_;  // each buffer's last copy / last kernel
  std::array<bool, 2> used_ = {false, false};
  unsigned next_ = 0;
  uint64_t copied_ = 0;
};

}  // namespace cuzk::gpu
