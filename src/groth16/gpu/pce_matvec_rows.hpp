#pragma once
// The MatVec kernels' launch, shared by the device-resident PCE (GpuPce) and the one streamed
// from the host by row blocks (GpuPceStream): rows [0, rows) of one matrix block, on the device.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "ff/bls12_381.hpp"
#include "pce/pce.hpp"

namespace cuzk::gpu::matvec_detail {

struct MatvecRows {
  pce::CoeffEncoding encoding{};
  const void* row_ptr = nullptr;  // rows + 1 entries (u32 or u64): absolute non-zero indices
  bool row_ptr64 = false;
  uint64_t nz_base = 0;  // the non-zero index of col[0] and coeff[0]
  const uint32_t* col = nullptr;
  const void* coeff = nullptr;  // dictionary indices (u8 / u16) or Fr values, as the encoding
  const ff::Fr* dict = nullptr;
  const ff::Fr* z = nullptr;  // the whole witness
  ff::Fr* out = nullptr;      // the block's first row
  uint64_t rows = 0;
  const uint64_t* long_rows = nullptr;  // device: matrix row numbers of the block's long rows
  uint64_t long_count = 0;
  uint64_t row_offset = 0;  // the matrix row number of the block's row 0
};

void launch_matvec_rows(const MatvecRows& block, cudaStream_t stream);

// Rows with more non-zeros than the one-thread-per-row kernel takes (summed a warp each), ascending.
std::vector<uint64_t> long_rows_of(const pce::MatrixView& mv);

}  // namespace cuzk::gpu::matvec_detail
