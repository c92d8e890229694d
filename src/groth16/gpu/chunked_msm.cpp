// ChunkedMsm (chunked_msm.hpp).
#include "groth16/gpu/chunked_msm.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/cuda_error.hpp"
#include "groth16/gpu/pinned_host_key.hpp"
#include "util/stopwatch.hpp"

namespace cuzk::gpu {

namespace {

uint64_t point_bytes(const StreamedMsm& msm) {
  return msm.g2 ? PinnedHostKey::kG2Bytes : PinnedHostKey::kG1Bytes;
}

}  // namespace

ChunkedMsm::ChunkedMsm(uint64_t chunk_bytes, unsigned buffers, bool with_g2, size_t g1_max_pairs, size_t g2_max_pairs)
    : capacity_(chunk_bytes), g1_max_pairs_(g1_max_pairs), g2_max_pairs_(g2_max_pairs) {
  if (buffers < 2) throw std::invalid_argument("ChunkedMsm: at least two chunk buffers");
  for (unsigned i = 0; i < buffers; ++i) {
    buf_.emplace_back(chunk_bytes);
    copy_.emplace_back();
    copied_.emplace_back();
  }
  if (with_g2) g2_.emplace();
}

ChunkedMsm::~ChunkedMsm() {
  // The buffers may still be the target of prefetched copies.
  for (const Stream& s : copy_) cudaStreamSynchronize(s);  // errors cannot be reported from a destructor
}

void ChunkedMsm::reserve(uint64_t g1_points, uint64_t g2_points, ff::Fr* scratch) {
  const uint64_t most = std::max(g1_points, g2_points);
  if (most == 0) return;
  if (g1_points * PinnedHostKey::kG1Bytes > capacity_ || g2_points * PinnedHostKey::kG2Bytes > capacity_)
    throw std::logic_error("ChunkedMsm::reserve: more points than a chunk buffer holds");
  // Identity bases (all zeros) and scalars of bytes 0x01: below r, neither 0 nor 1 in Montgomery form.
  const cudaStream_t s = copy_[0];
  CUZK_CUDA_CHECK(cudaMemsetAsync(buf_[0].data(), 0, capacity_, s));
  CUZK_CUDA_CHECK(cudaMemsetAsync(scratch, 0x01, most * sizeof(ff::Fr), s));
  if (g1_points > 0) {
    const DeviceBasesView<ec::G1Config> v{buf_[0].data(), g1_points};
    g1_.run_device(v, scratch, g1_points, {.max_pairs_per_pass = g1_max_pairs_}, s);
  }
  if (g2_ && g2_points > 0) {
    const DeviceBasesView<ec::G2Config> v{buf_[0].data(), g2_points};
    g2_->run_device(v, scratch, g2_points, {.max_pairs_per_pass = g2_max_pairs_}, s);
  }
  copy_[0].sync();
}

std::vector<ChunkedMsm::Task> ChunkedMsm::tasks_of(std::span<const StreamedMsm> msms) {
  std::vector<Task> compute, copy;  // in MSM order within each
  for (size_t i = 0; i < msms.size(); ++i)
    for (size_t k = 0; k < msms[i].chunks.size(); ++k) (msms[i].copy_bound ? copy : compute).emplace_back(i, k);
  // Merge in proportion: the next task is from the list that has run the smaller share of its own.
  std::vector<Task> tasks;
  size_t i = 0, j = 0;
  while (i < compute.size() || j < copy.size()) {
    const bool take_compute = j == copy.size() || (i < compute.size() && i * copy.size() <= j * compute.size());
    tasks.push_back(take_compute ? compute[i++] : copy[j++]);
  }
  return tasks;
}

void ChunkedMsm::issue(std::span<const StreamedMsm> msms, const Task& task, size_t u) {
  const StreamedMsm& s = msms[task.first];
  const MsmChunk& c = s.chunks[task.second];
  const uint64_t pb = point_bytes(s), bytes = c.base_count * pb;
  if (bytes > capacity_)
    throw std::logic_error("ChunkedMsm: a chunk of " + std::to_string(c.base_count) +
                           " bases is larger than the chunk buffers");
  const size_t b = u % buf_.size();
  if (last_copy_ >= 0) CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy_[b], copied_[last_copy_].get(), 0));
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(buf_[b].data(), s.host_bases + c.base_first * pb, bytes, cudaMemcpyHostToDevice, copy_[b]));
  copied_[b].record(copy_[b]);
  last_copy_ = static_cast<int>(b);
  bytes_ += bytes;
  bases_ += bytes;
  ++copies_;
}

void ChunkedMsm::prefetch(std::span<const StreamedMsm> msms) {
  for (const Stream& s : copy_) s.sync();  // an earlier prefetch whose run() never came
  const std::vector<Task> tasks = tasks_of(msms);
  const size_t n = std::min(tasks.size(), buf_.size());  // every buffer is free between runs
  for (size_t u = 0; u < n; ++u) issue(msms, tasks[u], u);
  prefetched_ = msms.data();
  prefetched_count_ = n;
}

std::vector<MsmSums> ChunkedMsm::run(std::span<const StreamedMsm> msms, std::span<const WitnessScalars> witnesses,
                                     std::span<double> seconds) {
  std::vector<MsmSums> sums(witnesses.size(), MsmSums{std::vector<ec::G1>(msms.size(), ec::G1::identity()),
                                                      std::vector<ec::G2>(msms.size(), ec::G2::identity())});
  const std::vector<Task> tasks = tasks_of(msms);
  size_t issued = prefetched_ == msms.data() ? prefetched_count_ : 0;
  prefetched_ = nullptr;
  const size_t ring = buf_.size();
  Stopwatch sw;
  for (size_t t = 0; t < tasks.size(); ++t) {
    // Up to R - 1 chunks ahead: buffer (t + R - 1) % R last served task t - 1, whose MSMs have
    // returned (run_device is synchronous).
    for (; issued < tasks.size() && issued < t + ring; ++issued) issue(msms, tasks[issued], issued);
    const auto [i, k] = tasks[t];
    const StreamedMsm& s = msms[i];
    const MsmChunk& c = s.chunks[k];
    const size_t b = t % ring;
    const GpuMsmOptions o{.density = c.density.empty() ? nullptr : &c.density,
                          .max_pairs_per_pass = s.g2 ? g2_max_pairs_ : g1_max_pairs_};
    for (size_t w = 0; w < witnesses.size(); ++w) {
      const ff::Fr* v = (s.source == ScalarSource::h ? witnesses[w].h : witnesses[w].z) + s.scalar_offset;
      if (s.g2) {
        if (!g2_) throw std::logic_error("ChunkedMsm: a G2 MSM without a G2 engine");
        sums[w].g2[i] += g2_->run_device(DeviceBasesView<ec::G2Config>{buf_[b].data(), c.base_count},
                                         v + c.scalar_first, c.scalar_count, o, copy_[b]);
      } else {
        sums[w].g1[i] += g1_.run_device(DeviceBasesView<ec::G1Config>{buf_[b].data(), c.base_count}, v + c.scalar_first,
                                        c.scalar_count, o, copy_[b]);
      }
      bytes_ += c.density.size() * 12;  // the engine uploads the words and their prefixes
    }
    seconds[i] += sw.lap();
  }
  return sums;
}

}  // namespace cuzk::gpu
