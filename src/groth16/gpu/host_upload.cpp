// HostUploader (host_upload.hpp).
#include "groth16/gpu/host_upload.hpp"

#include <algorithm>

#include "gpu/cuda_error.hpp"

namespace cuzk::gpu {

HostUploader::HostUploader(ThreadPool* pool, uint64_t chunk_elements)
    : pool_(pool ? *pool : ThreadPool::global()),
      chunk_(std::max<uint64_t>(1, chunk_elements)),
      stage_{PinnedBuffer<ff::Fr>(chunk_), PinnedBuffer<ff::Fr>(chunk_)} {}

HostUploader::~HostUploader() {
  for (unsigned i = 0; i < 2; ++i)
    if (used_[i]) cudaEventSynchronize(done_[i].get());  // errors cannot be reported from a destructor
}

void HostUploader::upload(std::span<const ff::Fr> src, ff::Fr* d_dst, cudaStream_t stream) {
  for (uint64_t lo = 0; lo < src.size(); lo += chunk_) {
    const uint64_t n = std::min<uint64_t>(chunk_, src.size() - lo);
    const unsigned b = next_;
    next_ ^= 1;
    if (used_[b]) done_[b].sync();  // its previous DMA has read it
    ff::Fr* stage = stage_[b].data();
    pool_.parallel_chunks(n, size_t{1} << 15, [&](size_t a, size_t e) {
      std::copy(src.begin() + static_cast<std::ptrdiff_t>(lo + a), src.begin() + static_cast<std::ptrdiff_t>(lo + e),
                stage + a);
    });
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_dst + lo, stage, n * sizeof(ff::Fr), cudaMemcpyHostToDevice, stream));
    done_[b].record(stream);
    used_[b] = true;
    bytes_ += n * sizeof(ff::Fr);
  }
}

}  // namespace cuzk::gpu
