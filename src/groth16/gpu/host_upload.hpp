#pragma once
// Host vectors (pageable: a witness, a, b, c from the CPU's MatVec) to device memory through two
// small pinned staging buffers: the host's parallel copy of chunk k+1 into one overlaps the DMA of
// chunk k from the other, so the transfer runs near pinned speed (54 GB/s on the device machine,
// against 6.7 GB/s from pageable memory) without a pinned buffer the size of the vector.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "ff/bls12_381.hpp"
#include "gpu/device_buffer.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::gpu {

class HostUploader {
 public:
  // 64 MiB chunks: large enough for full-speed DMA and parallel copies, small enough that the
  // first DMA starts early. pool: the copies' threads (null: ThreadPool::global()).
  explicit HostUploader(ThreadPool* pool = nullptr, uint64_t chunk_elements = uint64_t{1} << 21);
  ~HostUploader();  // waits for the DMAs still reading the staging buffers
  HostUploader(const HostUploader&) = delete;
  HostUploader& operator=(const HostUploader&) = delete;

  // Queues src -> d_dst on `stream` and returns once every chunk is staged: src may change
  // afterwards; d_dst is complete when `stream` reaches this point. Counts the bytes.
  void upload(std::span<const ff::Fr> src, ff::Fr* d_dst, cudaStream_t stream);
  uint64_t bytes() const { return bytes_; }  // sent since construction

 private:
  ThreadPool& pool_;
  uint64_t chunk_;
  PinnedBuffer<ff::Fr> stage_[2];
  Event done_[2];  // the last DMA out of each staging buffer
  bool used_[2] = {false, false};
  unsigned next_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace cuzk::gpu
