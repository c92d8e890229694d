#include "backend/prover_backend.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "util/log.hpp"

#ifdef CUZK_HAVE_CUDA
#include "backend/gpu_backend.hpp"
#include "gpu/device.hpp"
#endif

namespace cuzk::backend {

namespace {

class CpuBackend final : public ProverBackend {
 public:
  CpuBackend(const groth16::ProvingKey& pk, const pce::Pce& pce, ThreadPool* pool)
      : ProverBackend(pk.vk), pk_(pk), pce_(pce), shape_(groth16::CircuitShape::of(pce)), pool_(pool) {
    groth16::validate_key(pk_, shape_);
  }
  std::string name() const override { return "cpu"; }
  groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* t) override {
    const groth16::ProverOptions opt{.pool = pool_};
    groth16::ProverInput in = groth16::make_prover_input(pce_, w.inputs, w.aux, t, opt);
    return groth16::prove_stage1(pk_, shape_, std::move(in), t, opt);
  }

 private:
  const groth16::ProvingKey& pk_;
  const pce::Pce& pce_;
  groth16::CircuitShape shape_;
  ThreadPool* pool_;
};

class FallbackBackend final : public ProverBackend {
 public:
  FallbackBackend(std::unique_ptr<ProverBackend> primary, std::shared_ptr<ProverBackend> fallback)
      : ProverBackend(primary->vk()), primary_(std::move(primary)), fallback_(std::move(fallback)) {}
  std::string name() const override { return primary_->name(); }
  groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* t) override {
    try {
      return primary_->stage1(w, t);
    } catch (const DeviceFailure& e) {
      logging::log_event(logging::Level::warn, "device_stage_failed",
                         {{"backend", primary_->name()}, {"error", e.what()}, {"retry", fallback_->name()}});
      ++failures_;
      const std::lock_guard lock(fallback_mutex());
      return fallback_->stage1(w, t);
    }
  }
  unsigned failures() const { return failures_; }

 private:
  // One lock for every wrapper sharing a fallback (the CPU prover uses the whole pool).
  static std::mutex& fallback_mutex() {
    static std::mutex m;
    return m;
  }
  std::unique_ptr<ProverBackend> primary_;
  std::shared_ptr<ProverBackend> fallback_;
  unsigned failures_ = 0;
};

class RoundRobinBackend final : public ProverBackend {
 public:
  explicit RoundRobinBackend(std::vector<std::unique_ptr<ProverBackend>> parts)
      : ProverBackend(parts.at(0)->vk()), parts_(std::move(parts)) {}
  std::string name() const override {
    std::string n;
    for (const auto& p : parts_) {
      if (!n.empty()) n += '+';
      n += p->name();
    }
    return n;
  }
  groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* t) override {
    return parts_[next_++ % parts_.size()]->stage1(w, t);
  }
  std::vector<groth16::ProofMsms> stage1_many(std::span<const groth16::Witness> ws, groth16::ProveTimings* t) override {
    const size_t k = parts_.size();
    if (k == 1 || ws.size() <= 1) return ProverBackend::stage1_many(ws, t);
    std::vector<groth16::ProofMsms> out(ws.size());
    std::vector<groth16::ProveTimings> times(k);
    std::vector<std::exception_ptr> errors(k);
    {
      std::vector<std::jthread> threads;
      for (size_t p = 0; p < k; ++p) {
        threads.emplace_back([&, p] {
          try {
            for (size_t i = p; i < ws.size(); i += k) out[i] = parts_[p]->stage1(ws[i], &times[p]);
          } catch (...) {
            errors[p] = std::current_exception();
          }
        });
      }
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    if (t) {
      // Wall-clock per stage is not additive across devices: report the slowest part's times.
      const auto slowest = std::max_element(times.begin(), times.end(),
                                            [](const auto& a, const auto& b) { return a.total_s() < b.total_s(); });
      for (double groth16::ProveTimings::*f :
           {&groth16::ProveTimings::matvec_s, &groth16::ProveTimings::h_poly_s, &groth16::ProveTimings::msm_h_s,
            &groth16::ProveTimings::msm_l_s, &groth16::ProveTimings::msm_a_s, &groth16::ProveTimings::msm_b_g1_s,
            &groth16::ProveTimings::msm_b_g2_s})
        t->*f += (*slowest).*f;
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<ProverBackend>> parts_;
  size_t next_ = 0;
};

}  // namespace

BackendKind parse_backend_kind(std::string_view text) {
  if (text == "cpu") return BackendKind::Cpu;
  if (text == "gpu") return BackendKind::Gpu;
  if (text == "auto") return BackendKind::Auto;
  throw std::invalid_argument("unknown backend '" + std::string(text) + "': use cpu, gpu or auto");
}

const char* to_string(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::Gpu:
      return "gpu";
    case BackendKind::Auto:
      return "auto";
  }
  return "?";
}

bool built_with_cuda() {
#ifdef CUZK_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

DeviceList available_devices(const std::vector<unsigned>& only) {
  DeviceList list;
#ifdef CUZK_HAVE_CUDA
  const gpu::DeviceScan scan = gpu::scan_devices();
  if (scan.devices.empty()) {
    list.unavailable_reason = scan.unavailable_reason;
    if (!only.empty())
      throw std::invalid_argument("GPU device " + std::to_string(only.front()) + " was asked for, but " +
                                  scan.unavailable_reason);
    return list;
  }
  for (const gpu::DeviceInfo& d : scan.devices) {
    if (!only.empty() && std::find(only.begin(), only.end(), static_cast<unsigned>(d.ordinal)) == only.end()) continue;
    list.ordinals.push_back(d.ordinal);
    list.names.push_back(d.name);
  }
  for (unsigned o : only) {
    if (o >= scan.devices.size())
      throw std::invalid_argument("GPU device " + std::to_string(o) + " does not exist (this machine has " +
                                  std::to_string(scan.devices.size()) + ")");
  }
#else
  list.unavailable_reason = "this cuzk was built without CUDA (CUZK_CUDA=OFF or no nvcc at build time)";
  if (!only.empty())
    throw std::invalid_argument("GPU device " + std::to_string(only.front()) + " was asked for, but " +
                                list.unavailable_reason);
#endif
  return list;
}

Selection select_backend(BackendKind requested, const DeviceList& devices) {
  Selection s;
  switch (requested) {
    case BackendKind::Cpu:
      s.reason = "the CPU backend was asked for";
      return s;
    case BackendKind::Gpu:
      if (devices.ordinals.empty())
        throw std::runtime_error("--backend gpu: no GPU to prove on: " + devices.unavailable_reason +
                                 " (use --backend cpu or auto)");
      s.kind = BackendKind::Gpu;
      s.devices = devices.ordinals;
      s.reason = "the GPU backend was asked for";
      return s;
    case BackendKind::Auto:
      if (devices.ordinals.empty()) {
        s.reason = "no GPU: " + devices.unavailable_reason;
        return s;
      }
      s.kind = BackendKind::Gpu;
      s.devices = devices.ordinals;
      s.reason = std::to_string(devices.ordinals.size()) + " GPU(s) found";
      return s;
  }
  return s;
}

std::vector<groth16::ProofMsms> ProverBackend::stage1_many(std::span<const groth16::Witness> ws,
                                                           groth16::ProveTimings* timings) {
  std::vector<groth16::ProofMsms> out;
  out.reserve(ws.size());
  for (const groth16::Witness& w : ws) out.push_back(stage1(w, timings));
  return out;
}

std::vector<groth16::Proof> ProverBackend::prove_many(std::span<const groth16::Witness> ws, std::span<const Fr> r,
                                                      std::span<const Fr> s, groth16::ProveTimings* timings) {
  if (r.size() != ws.size() || s.size() != ws.size()) {
    throw std::invalid_argument("prove_many: " + std::to_string(ws.size()) + " witnesses but " +
                                std::to_string(r.size()) + " r and " + std::to_string(s.size()) + " s values");
  }
  const std::vector<groth16::ProofMsms> msms = stage1_many(ws, timings);
  std::vector<groth16::Proof> proofs;
  proofs.reserve(ws.size());
  for (size_t i = 0; i < ws.size(); ++i) proofs.push_back(groth16::prove_finalize(vk(), msms[i], r[i], s[i], timings));
  return proofs;
}

std::unique_ptr<ProverBackend> make_cpu_backend(const groth16::ProvingKey& pk, const pce::Pce& pce, ThreadPool* pool) {
  return std::make_unique<CpuBackend>(pk, pce, pool);
}

std::unique_ptr<ProverBackend> with_cpu_fallback(std::unique_ptr<ProverBackend> primary,
                                                 std::shared_ptr<ProverBackend> fallback) {
  return std::make_unique<FallbackBackend>(std::move(primary), std::move(fallback));
}

std::unique_ptr<ProverBackend> spread_round_robin(std::vector<std::unique_ptr<ProverBackend>> parts) {
  if (parts.empty()) throw std::invalid_argument("spread_round_robin: no backends");
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<RoundRobinBackend>(std::move(parts));
}

std::unique_ptr<ProverBackend> make_backend(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                            const BackendOptions& options) {
  groth16::validate_key(pk, pce);  // a key that does not fit is an error on every backend, not a GPU problem
  const Selection sel = select_backend(options.kind, available_devices(options.devices));
  if (sel.kind == BackendKind::Cpu) {
    logging::log_event(logging::Level::debug, "backend_selected", {{"backend", "cpu"}, {"reason", sel.reason}});
    return make_cpu_backend(pk, pce, options.pool);
  }
#ifdef CUZK_HAVE_CUDA
  try {
    std::shared_ptr<ProverBackend> cpu = make_cpu_backend(pk, pce, options.pool);
    std::vector<std::unique_ptr<ProverBackend>> parts;
    for (int d : sel.devices) {
      std::unique_ptr<GpuBackend> g = make_gpu_backend(groth16::MemoryKeySource(pk), pce,
                                                       {.device = d,
                                                        .b_g2_on_gpu = options.b_g2_on_gpu,
                                                        .pool = options.pool,
                                                        .msm_table_bits = options.msm_table_bits});
      g->prover().inject_failures(options.test_inject_failures);
      parts.push_back(options.cpu_fallback ? with_cpu_fallback(std::move(g), cpu) : std::move(g));
    }
    logging::log_event(logging::Level::debug, "backend_selected",
                       {{"backend", parts.size() == 1 ? parts[0]->name() : "gpu x" + std::to_string(parts.size())},
                        {"reason", sel.reason}});
    return spread_round_robin(std::move(parts));
  } catch (const std::exception& e) {
    if (options.kind != BackendKind::Auto) throw;
    logging::log_event(logging::Level::warn, "gpu_backend_unavailable", {{"error", e.what()}, {"using", "cpu"}});
    return make_cpu_backend(pk, pce, options.pool);
  }
#else
  throw std::logic_error("select_backend chose a GPU in a build without CUDA");
#endif
}

namespace {

#ifdef CUZK_HAVE_CUDA
// Builds a device prover with build(gpu options); when it does not fit, first without MSM window
// tables (an optional speed-up), then with the G2 MSM on the CPU: the G2 bases and their MSM's
// scratch are the part the CPU can take (a 32 GiB PoRep partition fits an H200 only this way).
template <class Build>
auto build_with_g2_fallback(int device, const BackendOptions& options, Build&& build) {
  gpu::GpuProverOptions o{.device = device,
                          .b_g2_on_gpu = options.b_g2_on_gpu,
                          .pool = options.pool,
                          .msm_table_bits = options.msm_table_bits};
  while (true) {
    try {
      return build(o);
    } catch (const DeviceMemoryShort& e) {
      if (o.msm_table_bits != 0) {
        o.msm_table_bits = 0;
        logging::log_event(logging::Level::info, "gpu_msm_tables_dropped",
                           {{"device", std::to_string(device)}, {"reason", e.what()}});
      } else if (o.b_g2_on_gpu) {
        o.b_g2_on_gpu = false;
        logging::log_event(logging::Level::info, "gpu_g2_msm_on_cpu",
                           {{"device", std::to_string(device)}, {"reason", e.what()}});
      } else {
        throw;
      }
    }
  }
}
#else
[[noreturn]] void no_cuda(int device) {
  throw std::runtime_error("GPU device " + std::to_string(device) +
                           ": this cuzk was built without CUDA (CUZK_CUDA=OFF or no nvcc at build time)");
}
#endif

}  // namespace

std::unique_ptr<ProverBackend> make_device_backend(const groth16::KeySource& key, const pce::Pce& pce, int device,
                                                   const BackendOptions& options) {
#ifdef CUZK_HAVE_CUDA
  std::unique_ptr<GpuBackend> g = build_with_g2_fallback(
      device, options, [&](const gpu::GpuProverOptions& o) { return make_gpu_backend(key, pce, o); });
  g->prover().inject_failures(options.test_inject_failures);
  return g;
#else
  (void)key, (void)pce, (void)options;
  no_cuda(device);
#endif
}

std::unique_ptr<ProverBackend> make_device_backend(const groth16::ProvingKey& pk, const pce::Pce& pce, int device,
                                                   const BackendOptions& options) {
  return make_device_backend(groth16::MemoryKeySource(pk), pce, device, options);
}

std::unique_ptr<ZkeyDeviceProver> make_zkey_device_prover(const groth16::Zkey& zkey, int device,
                                                          const BackendOptions& options) {
#ifdef CUZK_HAVE_CUDA
  return build_with_g2_fallback(device, options,
                                [&](const gpu::GpuProverOptions& o) { return make_gpu_zkey_prover(zkey, o); });
#else
  (void)zkey, (void)options;
  no_cuda(device);
#endif
}

groth16::Proof prove_zkey(const groth16::Zkey& zkey, std::span<const Fr> witness, const Fr& r, const Fr& s,
                          const BackendOptions& options, groth16::ProveTimings* timings, std::string* used) {
  const Selection sel = select_backend(options.kind, available_devices(options.devices));
  auto on_cpu = [&] {
    if (used) *used = "cpu";
    return groth16::prove_zkey(zkey, witness, r, s, timings);
  };
  if (sel.kind == BackendKind::Cpu) return on_cpu();
#ifdef CUZK_HAVE_CUDA
  const int dev = sel.devices.front();
  groth16::ZkeyMsms msms;
  try {
    msms = zkey_stage1_gpu(zkey, witness, {.device = dev, .b_g2_on_gpu = options.b_g2_on_gpu, .pool = options.pool},
                           options.test_inject_failures, timings);
  } catch (const DeviceFailure& e) {
    if (!options.cpu_fallback) throw;
    logging::log_event(logging::Level::warn, "device_stage_failed",
                       {{"backend", "gpu:" + std::to_string(dev)}, {"error", e.what()}, {"retry", "cpu"}});
    return on_cpu();
  } catch (const std::invalid_argument&) {
    throw;  // a bad witness or key: the CPU would reject it too
  } catch (const std::exception& e) {
    if (options.kind != BackendKind::Auto) throw;
    logging::log_event(logging::Level::warn, "gpu_backend_unavailable", {{"error", e.what()}, {"using", "cpu"}});
    return on_cpu();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const groth16::Proof proof = groth16::zkey_finalize(zkey, msms, r, s);
  if (timings) timings->finalize_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (used) *used = "gpu:" + std::to_string(dev);
  return proof;
#else
  throw std::logic_error("select_backend chose a GPU in a build without CUDA");
#endif
}

}  // namespace cuzk::backend
