// GPU NTT, H and MatVec timings (plain main: one row per case, median of several runs timed with
// CUDA events). Every row states the bytes the kernels move through device memory and the time
// that traffic would take at the device-to-device copy bandwidth measured here first (the real
// ceiling; the H200's HBM3e peak is ~4.8 TB/s).
//
//   bench_gpu_ntt [--min-log 20] [--max-log 27] [--reps 5] [--matvec filecoin-like:2^20]
//                 [--twiddles table|compact|both]
//   (--min-log 27 runs only the largest transforms: what a profiler run wants)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "circuits/builtin.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/ntt.hpp"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/pce_matvec.hpp"
#include "pce/build.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using ff::Fr;
using gpu::NttOrder;
using poly::RootConvention;

namespace {

int g_reps = 5;
double g_copy_bw = 0;  // bytes/s, read + write counted

template <class F>
double median_ms(F&& f, int reps = g_reps) {
  gpu::Event start, stop;
  std::vector<float> t;
  f();  // warm-up (twiddle and power tables, first-launch costs)
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    start.record();
    f();
    stop.record();
    stop.sync();
    t.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void row(const std::string& name, double ms, double bytes) {
  const double floor_ms = g_copy_bw > 0 ? bytes / g_copy_bw * 1e3 : 0;
  std::printf("%-44s %10.3f ms  %8.2f GB moved  %7.1f GB/s  floor %8.3f ms  (%.0f%% of copy bw)\n", name.c_str(), ms,
              bytes / 1e9, bytes / (ms * 1e-3) / 1e9, floor_ms, 100.0 * floor_ms / ms);
  std::fflush(stdout);
}

// Random-looking data without a CPU pass over gigabytes: fill a small random block and replicate.
void fill(gpu::DeviceBuffer<Fr>& d) {
  const size_t block = std::min<size_t>(d.size(), size_t{1} << 16);
  std::vector<Fr> h(block);
  Xoshiro256 rng(42);
  for (auto& v : h) v = Fr::random(rng);
  for (size_t off = 0; off < d.size(); off += block) {
    const size_t cnt = std::min(block, d.size() - off);
    CUZK_CUDA_CHECK(cudaMemcpy(d.data() + off, h.data(), cnt * sizeof(Fr), cudaMemcpyHostToDevice));
  }
}

// Passes over memory a transform of 2^log_n makes: the stage groups (see ntt.cu plan_groups) plus
// a bit-reversal pass when the orders need one.
unsigned ntt_passes(unsigned log_n) {
  return log_n <= 11 ? 1 : 1 + (log_n - 11 + 7) / 8;
}

void bench_copy(size_t bytes) {
  gpu::DeviceBuffer<std::byte> a(bytes), b(bytes);
  CUZK_CUDA_CHECK(cudaMemset(a.data(), 1, bytes));
  const double ms =
      median_ms([&] { CUZK_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice)); });
  g_copy_bw = 2.0 * static_cast<double>(bytes) / (ms * 1e-3);
  row("d2d copy " + std::to_string(bytes >> 20) + " MiB (read+write)", ms, 2.0 * static_cast<double>(bytes));
}

gpu::TwiddleLayout g_tw = gpu::TwiddleLayout::table;
std::string tw_suffix() {
  return g_tw == gpu::TwiddleLayout::compact ? " (compact twiddles)" : "";
}

void bench_ntt(unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  gpu::DeviceBuffer<Fr> d(n);
  fill(d);
  const double vec = static_cast<double>(n) * 32;
  const double pass = 2 * vec;  // read + write
  const unsigned p = ntt_passes(log_n);
  for (RootConvention conv : {RootConvention::Zcash}) {
    const auto dom = gpu::GpuDomain::get(log_n, conv, g_tw);
    const std::string sz = " 2^" + std::to_string(log_n) + tw_suffix();
    row("ntt fwd nat->bitrev" + sz,
        median_ms([&] { dom->forward(d.data(), 1, NttOrder::Natural, NttOrder::BitReversed); }), p * pass);
    row("ntt fwd bitrev->nat" + sz,
        median_ms([&] { dom->forward(d.data(), 1, NttOrder::BitReversed, NttOrder::Natural); }), p * pass);
    row("ntt fwd nat->nat" + sz, median_ms([&] { dom->forward(d.data(), 1, NttOrder::Natural, NttOrder::Natural); }),
        (p + 1) * pass);
    row("ntt inv nat->nat" + sz, median_ms([&] { dom->inverse(d.data(), 1, NttOrder::Natural, NttOrder::Natural); }),
        (p + 1) * pass);
    const Fr shift = Fr::from_u64(7);
    row("ntt coset fwd nat->nat" + sz,
        median_ms([&] { dom->coset_forward(d.data(), 1, shift, NttOrder::Natural, NttOrder::Natural); }),
        (p + 1) * pass);
    row("ntt coset inv nat->nat" + sz,
        median_ms([&] { dom->coset_inverse(d.data(), 1, shift, NttOrder::Natural, NttOrder::Natural); }),
        (p + 1) * pass);
  }
}

void bench_h(unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  gpu::DeviceBuffer<Fr> abc(3 * n);
  fill(abc);
  const double pass = 2.0 * static_cast<double>(n) * 32;
  const unsigned p = ntt_passes(log_n);
  // 3 vectors x (inverse + forward transform), a*b - c (3 reads, 1 write), for Zcash one more
  // transform (bit-reversed -> natural, no permutation pass).
  const double snark_bytes = 3 * 2 * p * pass + 2 * pass;
  const double zcash_bytes = snark_bytes + p * pass;
  for (RootConvention conv : {RootConvention::Zcash, RootConvention::Snarkjs}) {
    gpu::GpuDomain::get(log_n, conv, g_tw);
    const double ms =
        median_ms([&] { gpu::compute_h(abc.data(), abc.data() + n, abc.data() + 2 * n, log_n, conv, nullptr, g_tw); });
    row(std::string("H ") + poly::to_string(conv) + " 2^" + std::to_string(log_n) + tw_suffix(), ms,
        conv == RootConvention::Zcash ? zcash_bytes : snark_bytes);
  }
}

void bench_matvec(const std::string& spec_text) {
  const circuits::BuiltinSpec spec = circuits::parse_builtin(spec_text).value();
  const pce::Pce p = pce::build_pce(circuits::record_builtin(spec));
  const circuits::BuiltinWitness w = circuits::witness_builtin(spec, 7);
  const gpu::GpuPce g(p);
  const size_t len = poly::Domain::size_for(p.num_constraints());
  gpu::PinnedBuffer<Fr> zin(w.inputs.size()), zaux(w.aux.size());
  std::memcpy(static_cast<void*>(zin.data()), w.inputs.data(), w.inputs.size() * sizeof(Fr));
  std::memcpy(static_cast<void*>(zaux.data()), w.aux.data(), w.aux.size() * sizeof(Fr));
  gpu::DeviceBuffer<Fr> z(g.num_columns()), abc(3 * len);
  const std::span<const Fr> in(zin.data(), zin.size()), aux(zaux.data(), zaux.size());
  const double nnz = static_cast<double>(p.info().nnz_total());
  // Matrices once, a 32-byte z gather per non-zero (upper bound: many hit L2), 3 outputs of len.
  const double dev_bytes = static_cast<double>(g.device_bytes()) + nnz * 32 + 3.0 * len * 32;
  const double up_bytes = static_cast<double>(g.num_columns()) * 32;
  std::printf("matvec %s: %llu rows, %llu columns, nnz %.0f, PCE on device %.1f MiB, encoding %s\n",
              spec.name().c_str(), static_cast<unsigned long long>(p.num_constraints()),
              static_cast<unsigned long long>(g.num_columns()), nnz, g.device_bytes() / 1048576.0,
              pce::to_string(p.encoding()));
  const double up_ms = median_ms([&] { g.upload_witness(in, aux, z.data()); });
  std::printf("%-44s %10.3f ms  %8.3f GB over PCIe  %7.1f GB/s\n", "witness upload (pinned)", up_ms, up_bytes / 1e9,
              up_bytes / (up_ms * 1e-3) / 1e9);
  row("matvec kernels " + spec.name(),
      median_ms([&] { g.matvec(z.data(), abc.data(), abc.data() + len, abc.data() + 2 * len, len); }), dev_bytes);
  const double both = median_ms([&] {
    g.upload_witness(in, aux, z.data());
    g.matvec(z.data(), abc.data(), abc.data() + len, abc.data() + 2 * len, len);
  });
  std::printf("%-44s %10.3f ms\n", ("upload + matvec " + spec.name()).c_str(), both);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned min_log = 20, max_log = 27;
  std::string matvec_spec = "filecoin-like:2^20";
  std::string twiddles = "table";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--min-log" && i + 1 < argc) {
      min_log = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--max-log" && i + 1 < argc) {
      max_log = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--reps" && i + 1 < argc) {
      g_reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--matvec" && i + 1 < argc) {
      matvec_spec = argv[++i];
    } else if (a == "--twiddles" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "table" || std::string(argv[i + 1]) == "compact" ||
                std::string(argv[i + 1]) == "both")) {
      twiddles = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--min-log 20] [--max-log 27] [--reps 5] [--matvec <builtin spec>|none]\n"
                   "          [--twiddles table|compact|both]\n",
                   argv[0]);
      return 2;
    }
  }
  const gpu::DeviceScan scan = gpu::scan_devices();
  if (scan.devices.empty()) {
    std::fprintf(stderr, "bench_gpu_ntt: no device: %s\n", scan.unavailable_reason.c_str());
    return 1;
  }
  cudaDeviceProp prop{};
  CUZK_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB; median of %d runs\n", prop.name, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / (1u << 30), g_reps);
  try {
    bench_copy(size_t{1} << 32);
    if (twiddles != "table") {
      // The compact layout beside the table at the sizes asked, then the rest with `twiddles`.
      for (gpu::TwiddleLayout tw : {gpu::TwiddleLayout::table, gpu::TwiddleLayout::compact}) {
        g_tw = tw;
        for (unsigned lg = std::max(min_log, 24u); lg <= max_log; ++lg) bench_ntt(lg);
        if (max_log >= 27) bench_h(27);
      }
      g_tw = twiddles == "compact" ? gpu::TwiddleLayout::compact : gpu::TwiddleLayout::table;
      if (twiddles == "both") return 0;
    }
    for (unsigned lg = min_log; lg <= max_log; ++lg) bench_ntt(lg);
    // Block-size sensitivity of the largest transform (the default is 256 threads per block).
    for (unsigned t : {128u}) {
      gpu::set_ntt_pass_threads(t);
      std::printf("-- %u threads per block:\n", t);
      bench_ntt(max_log);
    }
    gpu::set_ntt_pass_threads(256);
    if (min_log <= 20) bench_h(20);
    if (max_log >= 27) bench_h(27);
    if (matvec_spec != "none") bench_matvec(matvec_spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_ntt: %s\n", e.what());
    return 1;
  }
  return 0;
}
