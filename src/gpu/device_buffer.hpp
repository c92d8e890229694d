#pragma once
// RAII owners for device memory, pinned host memory, streams and events.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>

#include "gpu/cuda_error.hpp"

namespace cuzk::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (n > 0) CUZK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  void upload(std::span<const T> src, cudaStream_t s = nullptr) {
    if (src.size() > n_) throw std::length_error("DeviceBuffer::upload: source larger than the buffer");
    CUZK_CUDA_CHECK(cudaMemcpyAsync(p_, src.data(), src.size_bytes(), cudaMemcpyHostToDevice, s));
  }
  void download(std::span<T> dst, cudaStream_t s = nullptr) const {
    if (dst.size() > n_) throw std::length_error("DeviceBuffer::download: destination larger than the buffer");
    CUZK_CUDA_CHECK(cudaMemcpyAsync(dst.data(), p_, dst.size_bytes(), cudaMemcpyDeviceToHost, s));
  }

 private:
  void reset() {
    if (p_) cudaFree(p_);  // errors here cannot be reported from a destructor
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  size_t n_ = 0;
};

// Page-locked host memory: the only kind the copy engines read at full PCIe speed.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t n) : n_(n) {
    if (n > 0) CUZK_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* data() const { return p_; }
  size_t size() const { return n_; }
  std::span<T> span() const { return {p_, n_}; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

class Stream {
 public:
  Stream() { CUZK_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void sync() const { CUZK_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { CUZK_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s = nullptr) { CUZK_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void sync() const { CUZK_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace cuzk::gpu
