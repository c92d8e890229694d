// GPU MatVec: one thread per row (Filecoin rows hold a handful of non-zeros, so rows balance well
// across a warp), the PCE's own CSR layout on the device. Dictionary entries 0 and 1 (+1 and -1,
// guaranteed by the format) cost an addition or a subtraction; other coefficients are looked up in
// the dictionary (small: it stays in L1/L2) and multiplied.
//
// The few long rows (more than kLongRow non-zeros: packings of many bits, sums over a whole
// challenge) go to a second kernel, one warp per row: with a thread per row, each warp waited for
// its longest row and the grid for its slowest warp (Nsight Compute, 32 GiB PoRep matrix A:
// 96.8 ms at 25 % achieved of 50 % theoretical occupancy, DRAM 2.6 % busy).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda_error.hpp"
#include "gpu/fr_io.cuh"
#include "groth16/gpu/pce_matvec.hpp"
#include "groth16/gpu/pce_matvec_rows.hpp"

namespace cuzk::gpu {

namespace {

using matvec_detail::MatvecRows;

// Rows with more non-zeros than this are summed by long_rows_kernel (a warp each).
constexpr uint64_t kLongRow = 64;

// acc += coefficient k * z[col[k]].
template <pce::CoeffEncoding kEnc>
__device__ __forceinline__ void add_term(Fr& acc, uint64_t k, const uint32_t* col, const void* coeff, const Fr* dict,
                                         const Fr* z) {
  const Fr v = load_fr(z + col[k]);
  if constexpr (kEnc == pce::CoeffEncoding::Full) {
    acc += load_fr(static_cast<const Fr*>(coeff) + k) * v;
  } else {
    uint32_t idx;
    if constexpr (kEnc == pce::CoeffEncoding::Dict8) {
      idx = static_cast<const uint8_t*>(coeff)[k];
    } else {
      idx = static_cast<const uint16_t*>(coeff)[k];
    }
    if (idx == pce::kCoeffPlusOne) {
      acc += v;
    } else if (idx == pce::kCoeffMinusOne) {
      acc -= v;
    } else {
      acc += load_fr(dict + idx) * v;
    }
  }
}

// One thread per row; long rows are left to long_rows_kernel. Rows [0, rows) of a block whose
// row pointers hold absolute non-zero indices: term k of the block is at k - nz_base in col and
// coeff (0 for a whole matrix; a streamed block's first non-zero otherwise).
template <class RowPtr, pce::CoeffEncoding kEnc>
__global__ void matvec_kernel(const RowPtr* row_ptr, uint64_t nz_base, const uint32_t* col, const void* coeff,
                              const Fr* dict, const Fr* z, Fr* out, uint64_t rows) {
  const uint64_t r = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
  if (r >= rows) return;
  const uint64_t beg = row_ptr[r] - nz_base, end = row_ptr[r + 1] - nz_base;
  if (end - beg > kLongRow) return;
  Fr acc = Fr::zero();
  for (uint64_t k = beg; k < end; ++k) add_term<kEnc>(acc, k, col, coeff, dict, z);
  store_fr(out + r, acc);
}

// One warp per listed long row (matrix row numbers; the block's rows start at row_offset): lanes
// take every 32nd term, then a shuffle tree sums the lanes (field addition is exact, so the order
// does not change the result).
template <class RowPtr, pce::CoeffEncoding kEnc>
__global__ void long_rows_kernel(const uint64_t* long_rows, uint64_t count, uint64_t row_offset, const RowPtr* row_ptr,
                                 uint64_t nz_base, const uint32_t* col, const void* coeff, const Fr* dict, const Fr* z,
                                 Fr* out) {
  const uint64_t w = (blockIdx.x * uint64_t{blockDim.x} + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (w >= count) return;  // whole warps: blockDim is a multiple of 32
  const uint64_t r = long_rows[w] - row_offset;
  const uint64_t beg = row_ptr[r] - nz_base, end = row_ptr[r + 1] - nz_base;
  Fr acc = Fr::zero();
  for (uint64_t k = beg + lane; k < end; k += 32) add_term<kEnc>(acc, k, col, coeff, dict, z);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1) {
    Fr other;
#pragma unroll
    for (int j = 0; j < 8; ++j) other.w[j] = __shfl_down_sync(0xffffffffu, acc.w[j], d);
    acc += other;
  }
  if (lane == 0) store_fr(out + r, acc);
}

template <class RowPtr, pce::CoeffEncoding kEnc>
void launch_both(const MatvecRows& b, cudaStream_t s) {
  const auto* rp = static_cast<const RowPtr*>(b.row_ptr);
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((b.rows + threads - 1) / threads);
  matvec_kernel<RowPtr, kEnc>
      <<<blocks, threads, 0, s>>>(rp, b.nz_base, b.col, b.coeff, dev(b.dict), dev(b.z), dev(b.out), b.rows);
  if (b.long_count > 0) {
    const auto warp_blocks = static_cast<unsigned>((b.long_count * 32 + threads - 1) / threads);
    long_rows_kernel<RowPtr, kEnc><<<warp_blocks, threads, 0, s>>>(
        b.long_rows, b.long_count, b.row_offset, rp, b.nz_base, b.col, b.coeff, dev(b.dict), dev(b.z), dev(b.out));
  }
}

template <class RowPtr>
void launch_for_encoding(const MatvecRows& b, cudaStream_t s) {
  switch (b.encoding) {
    case pce::CoeffEncoding::Dict8:
      return launch_both<RowPtr, pce::CoeffEncoding::Dict8>(b, s);
    case pce::CoeffEncoding::Dict16:
      return launch_both<RowPtr, pce::CoeffEncoding::Dict16>(b, s);
    case pce::CoeffEncoding::Full:
      return launch_both<RowPtr, pce::CoeffEncoding::Full>(b, s);
  }
}

template <class T>
DeviceBuffer<T> upload_now(std::span<const T> src) {
  DeviceBuffer<T> d(src.size());
  if (!src.empty()) CUZK_CUDA_CHECK(cudaMemcpy(d.data(), src.data(), src.size_bytes(), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

namespace matvec_detail {

void launch_matvec_rows(const MatvecRows& b, cudaStream_t stream) {
  if (b.rows == 0) return;
  if (b.row_ptr64) {
    launch_for_encoding<uint64_t>(b, stream);
  } else {
    launch_for_encoding<uint32_t>(b, stream);
  }
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throw_cuda_error(rc, "matvec_kernel", __FILE__, __LINE__);
}

std::vector<uint64_t> long_rows_of(const pce::MatrixView& mv) {
  std::vector<uint64_t> out;
  for (uint64_t r = 0; r < mv.rows; ++r) {
    if (mv.row_end(r) - mv.row_begin(r) > kLongRow) out.push_back(r);
  }
  return out;
}

}  // namespace matvec_detail

GpuPce::GpuPce(const pce::Pce& pce)
    : num_inputs_(pce.num_inputs()), num_aux_(pce.num_aux()), rows_(pce.num_constraints()), encoding_(pce.encoding()) {
  dict_ = upload_now(pce.dictionary());
  for (size_t i = 0; i < 3; ++i) {
    const pce::MatrixView& mv = pce.matrix(static_cast<pce::MatrixId>(i));
    Matrix& m = m_[i];
    m.nnz = mv.nnz;
    m.row_ptr64 = mv.row_ptr32.empty() && !mv.row_ptr64.empty();
    m.row_ptr = m.row_ptr64 ? upload_now(std::as_bytes(mv.row_ptr64)) : upload_now(std::as_bytes(mv.row_ptr32));
    if (rows_ > 0 && m.row_ptr.size() == 0) {
      throw std::invalid_argument("gpu::GpuPce: matrix " + std::to_string(i) + " has rows but no row pointers");
    }
    m.col = upload_now(mv.col);
    const std::vector<uint64_t> long_rows = matvec_detail::long_rows_of(mv);
    m.long_rows = upload_now(std::span<const uint64_t>(long_rows));
    switch (encoding_) {
      case pce::CoeffEncoding::Dict8:
        m.coeff = upload_now(std::as_bytes(mv.idx8));
        break;
      case pce::CoeffEncoding::Dict16:
        m.coeff = upload_now(std::as_bytes(mv.idx16));
        break;
      case pce::CoeffEncoding::Full:
        m.coeff = upload_now(std::as_bytes(mv.values));
        break;
    }
  }
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
}

uint64_t GpuPce::device_bytes() const {
  uint64_t b = dict_.bytes();
  for (const Matrix& m : m_) b += m.row_ptr.bytes() + m.col.bytes() + m.coeff.bytes() + m.long_rows.bytes();
  return b;
}

void GpuPce::upload_witness(std::span<const ff::Fr> inputs, std::span<const ff::Fr> aux, ff::Fr* d_z,
                            cudaStream_t stream) const {
  if (inputs.size() != num_inputs_ || aux.size() != num_aux_) {
    throw std::invalid_argument("gpu::GpuPce::upload_witness: expected " + std::to_string(num_inputs_) +
                                " inputs and " + std::to_string(num_aux_) + " aux values, got " +
                                std::to_string(inputs.size()) + " and " + std::to_string(aux.size()));
  }
  if (!inputs.empty())
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_z, inputs.data(), inputs.size_bytes(), cudaMemcpyHostToDevice, stream));
  if (!aux.empty())
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_z + inputs.size(), aux.data(), aux.size_bytes(), cudaMemcpyHostToDevice, stream));
}

void GpuPce::matvec(const ff::Fr* d_z, ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, size_t len, cudaStream_t stream) const {
  matvec_one(pce::MatrixId::A, d_z, d_a, len, stream);
  matvec_one(pce::MatrixId::B, d_z, d_b, len, stream);
  matvec_one(pce::MatrixId::C, d_z, d_c, len, stream);
}

void GpuPce::matvec_one(pce::MatrixId id, const ff::Fr* d_z, ff::Fr* d_out, size_t len, cudaStream_t stream) const {
  if (len < rows_) {
    throw std::invalid_argument("gpu::GpuPce::matvec: outputs of " + std::to_string(len) + " elements cannot hold " +
                                std::to_string(rows_) + " rows");
  }
  const Matrix& m = m_[static_cast<size_t>(id)];
  matvec_detail::launch_matvec_rows({.encoding = encoding_,
                                     .row_ptr = m.row_ptr.data(),
                                     .row_ptr64 = m.row_ptr64,
                                     .nz_base = 0,
                                     .col = m.col.data(),
                                     .coeff = m.coeff.data(),
                                     .dict = dict_.data(),
                                     .z = d_z,
                                     .out = d_out,
                                     .rows = rows_,
                                     .long_rows = m.long_rows.data(),
                                     .long_count = m.long_rows.size(),
                                     .row_offset = 0},
                                    stream);
  if (len > rows_) CUZK_CUDA_CHECK(cudaMemsetAsync(d_out + rows_, 0, (len - rows_) * sizeof(ff::Fr), stream));
}

}  // namespace cuzk::gpu
