// GpuPceStream (pce_stream.hpp): the PCE's matrices in pinned host memory, streamed by row blocks.
#include "groth16/gpu/pce_stream.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gpu/cuda_error.hpp"
#include "groth16/gpu/pce_matvec_rows.hpp"

namespace cuzk::gpu {

namespace {

constexpr uint64_t kAlign = 256;

uint64_t align_up(uint64_t b) {
  return (b + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

GpuPceStream::GpuPceStream(const pce::Pce& pce, uint64_t block_bytes)
    : rows_(pce.num_constraints()), encoding_(pce.encoding()), block_bytes_(block_bytes) {
  coeff_bytes_ = encoding_ == pce::CoeffEncoding::Dict8 ? 1 : encoding_ == pce::CoeffEncoding::Dict16 ? 2 : 32;
  const pce::MatrixView& first = pce.matrix(pce::MatrixId::A);
  row_ptr64_ = first.row_ptr32.empty() && !first.row_ptr64.empty();
  ptr_bytes_ = row_ptr64_ ? 8 : 4;
  // Bytes a block of `rows` rows and `nnz` non-zeros takes in a staging buffer.
  auto staged = [&](uint64_t rows, uint64_t nnz) {
    return align_up((rows + 1) * ptr_bytes_) + align_up(nnz * 4) + nnz * coeff_bytes_;
  };

  uint64_t total = 0;
  for (size_t i = 0; i < 3; ++i) {
    const pce::MatrixView& mv = pce.matrix(static_cast<pce::MatrixId>(i));
    Matrix& m = mats_[i];
    m.row_ptr_off = total;
    total = align_up(total + (mv.rows + 1) * ptr_bytes_);
    m.col_off = total;
    total = align_up(total + mv.nnz * 4);
    m.coeff_off = total;
    total = align_up(total + mv.nnz * coeff_bytes_);
  }
  host_ = PinnedBuffer<std::byte>(total);
  for (size_t i = 0; i < 3; ++i) {
    const pce::MatrixView& mv = pce.matrix(static_cast<pce::MatrixId>(i));
    Matrix& m = mats_[i];
    if ((row_ptr64_ ? mv.row_ptr64.size() : mv.row_ptr32.size()) != rows_ + 1)
      throw std::invalid_argument("gpu::GpuPceStream: matrix " + std::to_string(i) + " has " + std::to_string(mv.rows) +
                                  " rows' pointers of another width or count");
    const void* rp = row_ptr64_ ? static_cast<const void*>(mv.row_ptr64.data()) : mv.row_ptr32.data();
    std::memcpy(host_.data() + m.row_ptr_off, rp, (rows_ + 1) * ptr_bytes_);
    std::memcpy(host_.data() + m.col_off, mv.col.data(), mv.nnz * 4);
    const void* coeff = encoding_ == pce::CoeffEncoding::Dict8    ? static_cast<const void*>(mv.idx8.data())
                        : encoding_ == pce::CoeffEncoding::Dict16 ? static_cast<const void*>(mv.idx16.data())
                                                                  : static_cast<const void*>(mv.values.data());
    std::memcpy(host_.data() + m.coeff_off, coeff, mv.nnz * coeff_bytes_);

    // Blocks: from each first row, the most rows that fit (row pointers are monotone, so the
    // staged size is too: a binary search).
    const std::vector<uint64_t> long_rows = matvec_detail::long_rows_of(mv);
    m.long_rows = DeviceBuffer<uint64_t>(long_rows.size());
    if (!long_rows.empty())
      CUZK_CUDA_CHECK(cudaMemcpy(m.long_rows.data(), long_rows.data(), long_rows.size() * 8, cudaMemcpyHostToDevice));
    uint64_t long_at = 0;
    for (uint64_t r0 = 0; r0 < rows_;) {
      const uint64_t nz0 = mv.row_begin(r0);
      if (staged(1, mv.row_end(r0) - nz0) > block_bytes_)
        throw std::invalid_argument("gpu::GpuPceStream: row " + std::to_string(r0) + " of matrix " + std::to_string(i) +
                                    " (" + std::to_string(mv.row_end(r0) - nz0) +
                                    " non-zeros) does not fit a staging block of " + std::to_string(block_bytes_) +
                                    " bytes");
      uint64_t lo = 1, hi = rows_ - r0;  // lo fits
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (staged(mid, mv.row_begin(r0 + mid) - nz0) <= block_bytes_) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      Block b{r0, lo, nz0, mv.row_begin(r0 + lo) - nz0, long_at, 0};
      while (long_at < long_rows.size() && long_rows[long_at] < r0 + lo) ++long_at;
      b.long_count = long_at - b.long_first;
      m.blocks.push_back(b);
      r0 += lo;
    }
  }
  dict_ = DeviceBuffer<ff::Fr>(pce.dictionary().size());
  if (!pce.dictionary().empty())
    CUZK_CUDA_CHECK(
        cudaMemcpy(dict_.data(), pce.dictionary().data(), pce.dictionary().size_bytes(), cudaMemcpyHostToDevice));
  for (auto& b : buf_) b = DeviceBuffer<std::byte>(block_bytes_);
}

uint64_t GpuPceStream::device_bytes() const {
  uint64_t b = dict_.bytes() + buf_[0].bytes() + buf_[1].bytes();
  for (const Matrix& m : mats_) b += m.long_rows.bytes();
  return b;
}

void GpuPceStream::matvec_one(pce::MatrixId id, const ff::Fr* d_z, ff::Fr* d_out, size_t len, cudaStream_t stream) {
  if (len < rows_)
    throw std::invalid_argument("gpu::GpuPceStream::matvec_one: outputs of " + std::to_string(len) +
                                " elements cannot hold " + std::to_string(rows_) + " rows");
  const Matrix& m = mats_[static_cast<size_t>(id)];
  for (const Block& b : m.blocks) {
    const unsigned k = next_;
    next_ ^= 1u;
    std::byte* buf = buf_[k].data();
    const uint64_t rp_bytes = (b.rows + 1) * ptr_bytes_, col_at = align_up(rp_bytes),
                   coeff_at = col_at + align_up(b.nnz * 4);
    // The buffer is free once the kernels that read it last have run.
    if (used_[k]) CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy_, used_ev_[k].get(), 0));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(buf, host_.data() + m.row_ptr_off + b.row0 * ptr_bytes_, rp_bytes,
                                    cudaMemcpyHostToDevice, copy_));
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(buf + col_at, host_.data() + m.col_off + b.nz0 * 4, b.nnz * 4, cudaMemcpyHostToDevice, copy_));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(buf + coeff_at, host_.data() + m.coeff_off + b.nz0 * coeff_bytes_,
                                    b.nnz * coeff_bytes_, cudaMemcpyHostToDevice, copy_));
    copied_ += rp_bytes + b.nnz * (4 + coeff_bytes_);
    copied_ev_[k].record(copy_);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(stream, copied_ev_[k].get(), 0));
    matvec_detail::launch_matvec_rows({.encoding = encoding_,
                                       .row_ptr = buf,
                                       .row_ptr64 = row_ptr64_,
                                       .nz_base = b.nz0,
                                       .col = reinterpret_cast<const uint32_t*>(buf + col_at),
                                       .coeff = buf + coeff_at,
                                       .dict = dict_.data(),
                                       .z = d_z,
                                       .out = d_out + b.row0,
                                       .rows = b.rows,
                                       .long_rows = m.long_rows.data() + b.long_first,
                                       .long_count = b.long_count,
                                       .row_offset = b.row0},
                                      stream);
    used_ev_[k].record(stream);
    used_[k] = true;
  }
  if (len > rows_) CUZK_CUDA_CHECK(cudaMemsetAsync(d_out + rows_, 0, (len - rows_) * sizeof(ff::Fr), stream));
}

}  // namespace cuzk::gpu
