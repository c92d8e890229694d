// The engine's set-up around its stages: the process's kernel tuning, the test-only keys of
// built-in circuits, and the config keys the chosen backend ignores.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "backend/setup_backend.hpp"
#include "engine/engine.hpp"
#include "groth16/setup_file.hpp"
#include "util/checksum.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;

// ---- tuning: the config's [tuning], the environment's overrides, set once for the process ----

void Engine::apply_tuning() {
  Tuning t = config_.tuning;
  const std::vector<TuningValue> env = apply_env_tuning(t);  // throws on a malformed variable
  set_tuning(t);
  const Tuning defaults;
  const bool from_config[] = {config_.tuning.msm_simd != defaults.msm_simd, config_.tuning.msm_glv != defaults.msm_glv,
                              config_.tuning.matvec_stream != defaults.matvec_stream,
                              config_.tuning.gpu_msm_reduce_threads.has_value(),
                              config_.tuning.gpu_msm_prefetch.has_value()};
  std::vector<TuningValue> all = describe_tuning(t, env, "default");
  tuning_lines_.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    TuningValue& v = all[i];
    if (v.source == "default" && i < std::size(from_config) && from_config[i]) v.source = "config";
    tuning_lines_.push_back(v.key + "=" + v.value + " (" + v.source + ")");
    spdlog::info("tuning {}={} source={}", v.key, v.value, v.source);
  }
}

// ---- keys for built-in circuits (test-only setup) ----

Result<bool> Engine::make_test_keys(const CircuitDef& def) {
  auto pce = pce_.get(def, /*wait=*/true);
  if (!pce.ok()) return make_error(pce.error());
  const uint64_t seed = checksum::xxh3_64(def.id.data(), def.id.size());
  const auto t0 = Clock::now();
  std::error_code ec;
  fs::create_directories(fs::path(def.params_path).parent_path(), ec);
  // The GPU when the daemon may use one (the same bytes as the CPU's, much sooner at 32 GiB).
  const backend::BackendKind kind = backend::parse_backend_kind(config_.gpus.backend) == backend::BackendKind::Cpu
                                        ? backend::BackendKind::Cpu
                                        : backend::BackendKind::Auto;
  std::unique_ptr<groth16::FixedBaseMultiplier> mul;
  try {
    mul = backend::make_setup_multiplier(kind, config_.gpus.devices);
  } catch (const std::exception& e) {
    spdlog::warn("srs_setup circuit={} GPU unusable for the setup ({}); using the CPU", def.id, e.what());
    mul = groth16::cpu_fixed_base_multiplier();
  }
  Operations::Handle op = operations_.start("test_keys", def.id, "points");
  groth16::SetupFileOptions so;
  so.vk_path = def.vk_path;
  so.cancelled = [this] { return abort_setup_.load(); };
  so.progress = [&op](uint64_t done, uint64_t total) { op.progress(done, total); };
  auto made = groth16::setup_to_file(**pce, groth16::ToxicWaste::from_seed(seed), def.params_path, *mul, so);
  if (!made.ok()) {
    op.fail(made.error());
    return make_error(made.error());
  }
  op.end();
  spdlog::info("srs_setup_done circuit={} seconds={:.3f} on={} bytes={} (TEST-ONLY keys from a public seed)", def.id,
               std::chrono::duration<double>(Clock::now() - t0).count(), mul->describe(), made->file_bytes);
  return true;
}

// ---- config keys the backend ignores ----

void Engine::warn_ignored_keys() const {
  // Under gpus.backend = "auto" whether the GPUs prove is known only now: say which knobs idle.
  if (gpus_->enabled() && config_.explicit_keys.count("prover.workers")) {
    spdlog::warn("config_ignored key=prover.workers reason=\"the GPUs prove here: gpus.workers_per_device applies\"");
  }
  if (!gpus_->enabled()) {
    for (const char* k : {"gpus.devices", "gpus.workers_per_device", "gpus.g2_msm", "gpus.msm_table_bits"}) {
      if (config_.explicit_keys.count(k)) {
        spdlog::warn("config_ignored key={} reason=\"no GPU proves here ({})\"", k, gpus_->reason());
      }
    }
  }
}

}  // namespace cuzk::engine
