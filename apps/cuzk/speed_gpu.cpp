#include "speed_gpu.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "circuits/builtin.hpp"
#include "ec/msm.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "gpu/ntt.hpp"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/pce_matvec.hpp"
#include "pce/build.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {

namespace {

using ff::Fr;

// Median of `reps` CUDA-event timings of fn (after one warm-up run: tables, scratch).
double median_event_ms(const std::function<void()>& fn, int reps = 5) {
  fn();
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  gpu::Event start, stop;
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    start.record();
    fn();
    stop.record();
    stop.sync();
    t.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Random field elements on the device without a host pass over gigabytes: one random block,
// repeated (the kernels' speed does not depend on the values).
gpu::DeviceBuffer<Fr> random_device(size_t n) {
  gpu::DeviceBuffer<Fr> d(n);
  const size_t block = std::min<size_t>(n, size_t{1} << 16);
  std::vector<Fr> h(block);
  Xoshiro256 rng(42);
  for (auto& v : h) v = Fr::random(rng);
  for (size_t off = 0; off < n; off += block)
    CUZK_CUDA_CHECK(
        cudaMemcpy(d.data() + off, h.data(), std::min(block, n - off) * sizeof(Fr), cudaMemcpyHostToDevice));
  return d;
}

// Independent random scalars (host threads, then one copy): a repeated block would repeat
// (scalar, base) strides inside the buckets and measure DRAM channel conflicts, not the MSM.
gpu::DeviceBuffer<Fr> random_scalars_device(size_t n) {
  std::vector<Fr> h(n);
  const size_t chunk = size_t{1} << 16;
  ThreadPool::global().parallel_for((n + chunk - 1) / chunk, [&](size_t c) {
    Xoshiro256 rng(1000 + c);
    for (size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) h[i] = Fr::random(rng);
  });
  gpu::DeviceBuffer<Fr> d(n);
  CUZK_CUDA_CHECK(cudaMemcpy(d.data(), h.data(), n * sizeof(Fr), cudaMemcpyHostToDevice));
  return d;
}

template <class C>
double msm_ms(unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  std::vector<ec::Affine<C>> host;
  if constexpr (std::is_same_v<C, ec::G1Config>)
    host = ec::g1_test_bases(n, 5);
  else
    host = ec::g2_test_bases(n, 5);
  const gpu::DeviceBases<C> bases(host);
  host = {};
  const gpu::DeviceBuffer<Fr> k = random_scalars_device(n);
  gpu::Msm<C> engine;
  std::vector<float> t;
  for (int r = 0; r < 6; ++r) {  // run 0 is the warm-up (scratch allocation)
    engine.run_device(bases.view(), k.data(), n);
    if (r > 0) t.push_back(engine.stats().compute_ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

double gpu_msm_ms(bool g2, unsigned log_n) {
  return g2 ? msm_ms<ec::G2Config>(log_n) : msm_ms<ec::G1Config>(log_n);
}

double gpu_ntt_ms(unsigned log_n) {
  gpu::DeviceBuffer<Fr> v = random_device(size_t{1} << log_n);
  const auto dom = gpu::GpuDomain::get(log_n, poly::RootConvention::Zcash);
  return median_event_ms([&] { dom->forward(v.data(), 1, gpu::NttOrder::Natural, gpu::NttOrder::BitReversed); });
}

double gpu_h_ms(unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  gpu::DeviceBuffer<Fr> abc = random_device(3 * n);
  return median_event_ms(
      [&] { gpu::compute_h(abc.data(), abc.data() + n, abc.data() + 2 * n, log_n, poly::RootConvention::Zcash); });
}

double gpu_matvec_ms(const std::string& circuit) {
  auto spec = circuits::parse_builtin(circuit);
  if (!spec) throw std::invalid_argument(spec.error());
  const pce::Pce p = pce::build_pce(circuits::record_builtin(*spec));
  const circuits::BuiltinWitness w = circuits::witness_builtin(*spec);
  const gpu::GpuPce dp(p);
  gpu::PinnedBuffer<Fr> z(w.inputs.size() + w.aux.size());
  std::copy(w.inputs.begin(), w.inputs.end(), z.data());
  std::copy(w.aux.begin(), w.aux.end(), z.data() + w.inputs.size());
  const size_t rows = dp.num_constraints();
  gpu::DeviceBuffer<Fr> dz(dp.num_columns()), abc(3 * rows);
  const std::span<const Fr> zs(z.data(), z.size());
  return median_event_ms([&] {
    dp.upload_witness(zs.first(w.inputs.size()), zs.subspan(w.inputs.size()), dz.data());
    dp.matvec(dz.data(), abc.data(), abc.data() + rows, abc.data() + 2 * rows, rows);
  });
}

}  // namespace cuzk::cli
