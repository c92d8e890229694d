// The engine's set-up around its stages: the process's kernel tuning, the test-only keys of
// built-in circuits (to files or in memory: srs.test_keys), and the config keys the chosen backend
// ignores.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "backend/setup_backend.hpp"
#include "engine/engine.hpp"
#include "engine/test_keys.hpp"
#include "groth16/setup_file.hpp"
#include "util/checksum.hpp"
#include "util/log.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;

// ---- tuning: the config's [tuning], the environment's overrides, set once for the process ----

void Engine::apply_tuning() {
  Tuning t = config_.tuning;
  const std::vector<TuningValue> env = apply_env_tuning(t);  // throws on a malformed variable
  set_tuning(t);
  const Tuning defaults;
  const bool from_config[] = {config_.tuning.msm_simd != defaults.msm_simd,
                              config_.tuning.msm_glv != defaults.msm_glv,
                              config_.tuning.matvec_stream != defaults.matvec_stream,
                              config_.tuning.gpu_msm_reduce_threads.has_value(),
                              config_.tuning.gpu_msm_prefetch.has_value(),
                              config_.tuning.gpu_msm_affine.has_value()};
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

namespace {

// A key made in memory with its budget reservation: the reservation goes back when the last holder
// of the key (the SRS entry, a running job, a device prover's upload) lets go, right after the
// points are freed (members are destroyed in reverse order).
struct HeldKey {
  Reservation reservation;
  groth16::ProvingKey key;
};

}  // namespace

Result<TestKeys> Engine::make_test_keys(const CircuitDef& def, int priority, const std::function<bool()>& cancelled) {
  auto pce = pce_.get(def, /*wait=*/true);
  if (!pce.ok()) return make_error(pce.error());
  const uint64_t seed = checksum::xxh3_64(def.id.data(), def.id.size());
  groth16::KeySizes sizes;
  try {
    sizes = groth16::setup_key_sizes(**pce);
  } catch (const std::exception& e) {
    return make_error("test-only keys of '" + def.id + "': " + e.what());
  }
  const std::string dir = fs::path(def.params_path).parent_path().string();
  const TestKeyChoice choice =
      choose_test_key_store(config_.srs.test_keys, sizes.params_file_bytes(),
                            config_.srs.test_keys == "auto" ? free_disk_bytes(dir) : std::nullopt);
  const bool in_memory = choice.store == TestKeyStore::Memory;
  // Structured (log_event quotes and escapes the reason, which quotes the config value).
  logging::log_event(logging::Level::warn, "srs_test_keys",
                     {{"circuit", def.id},
                      {"storage", test_key_store_name(choice.store)},
                      {"file_bytes", std::to_string(sizes.params_file_bytes())},
                      {"host_bytes", std::to_string(sizes.host_bytes())},
                      {"reason", choice.reason},
                      {"note", "TEST-ONLY keys from a public seed: proofs no chain accepts"}});
  const auto t0 = Clock::now();
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
  const auto interrupted = [this] { return abort_setup_.load(); };

  if (!in_memory) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    Operations::Handle op = operations_.start("test_keys", def.id, "points");
    groth16::SetupFileOptions so;
    so.vk_path = def.vk_path;
    so.cancelled = interrupted;
    so.progress = [&op](uint64_t done, uint64_t total) { op.progress(done, total); };
    auto made = groth16::setup_to_file(**pce, groth16::ToxicWaste::from_seed(seed), def.params_path, *mul, so);
    if (!made.ok()) {
      op.fail(made.error());
      return make_error(made.error());
    }
    op.end();
    spdlog::info(
        "srs_setup_done circuit={} storage=file seconds={:.3f} on={} bytes={} (TEST-ONLY keys from a public "
        "seed)",
        def.id, std::chrono::duration<double>(Clock::now() - t0).count(), mul->describe(), made->file_bytes);
    return TestKeys{};
  }

  // In memory: the key and the setup's working set (the QAP values, chunks) reserved before any
  // work, so that the budget sees what the process is about to hold (tens of GiB at 32 GiB); the
  // working set goes back once the key is made.
  const uint64_t working = groth16::setup_working_bytes(**pce, mul->chunk_points());
  auto reservation = budget_.acquire(sizes.host_bytes() + working, priority, cancelled);
  if (!reservation.ok()) {
    return make_error("the TEST-ONLY key of '" + def.id + "' in memory (" + choice.reason +
                      "): " + reservation.error() + "; it needs " + format_bytes(sizes.host_bytes()) + ", and " +
                      format_bytes(working) +
                      " more while it is made; or keep it in a file: give srs.param_dir's filesystem room for " +
                      format_bytes(sizes.params_file_bytes()) + " and set srs.test_keys = \"file\"");
  }
  Operations::Handle op = operations_.start("test_keys", def.id, "points");
  groth16::SetupMemoryOptions so;
  so.cancelled = interrupted;
  so.progress = [&op](uint64_t done, uint64_t total) { op.progress(done, total); };
  so.subgroup_checks = config_.srs.check_subgroups;  // as loading its file would check it
  auto held = std::make_shared<HeldKey>();
  auto made = groth16::setup_to_memory(**pce, groth16::ToxicWaste::from_seed(seed), *mul, so);
  if (!made.ok()) {
    op.fail(made.error());
    return make_error("'" + def.id + "': " + made.error());
  }
  op.end();
  held->key = std::move(made).value();
  held->reservation = std::move(reservation).value();
  held->reservation.release(working);
  spdlog::info(
      "srs_setup_done circuit={} storage=memory seconds={:.3f} on={} bytes={} (TEST-ONLY keys from a public "
      "seed, held in memory only: no file)",
      def.id, std::chrono::duration<double>(Clock::now() - t0).count(), mul->describe(),
      groth16::KeySizes::of(held->key).host_bytes());
  TestKeys out;
  out.memory = std::shared_ptr<const groth16::ProvingKey>(held, &held->key);
  return out;
}

// ---- config keys the backend ignores ----

void Engine::warn_ignored_keys() const {
  // Under gpus.backend = "auto" whether the GPUs prove is known only now: say which knobs idle.
  if (gpus_->enabled() && config_.explicit_keys.count("prover.workers")) {
    spdlog::warn("config_ignored key=prover.workers reason=\"the GPUs prove here: gpus.workers_per_device applies\"");
  }
  if (!gpus_->enabled()) {
    for (const char* k :
         {"gpus.devices", "gpus.workers_per_device", "gpus.g2_msm", "gpus.msm_table_bits", "gpus.overlap_h"}) {
      if (config_.explicit_keys.count(k)) {
        spdlog::warn("config_ignored key={} reason=\"no GPU proves here ({})\"", k, gpus_->reason());
      }
    }
  }
}

}  // namespace cuzk::engine
