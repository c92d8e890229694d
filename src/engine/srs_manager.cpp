#include "engine/srs_manager.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <thread>

#include "groth16/params_file.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const groth16::VerifyingKey& SrsEntry::vk() const {
  if (params) return params->vk();
  return memory_key ? memory_key->vk : zkey_vk;
}

uint32_t SrsEntry::num_public_inputs() const {
  const size_t n = vk().ic.size();
  return n == 0 ? 0 : static_cast<uint32_t>(n - 1);
}

groth16::KeySizes SrsEntry::key_sizes() const {
  if (params) return params->sizes();
  if (memory_key) return groth16::KeySizes::of(*memory_key);
  throw std::logic_error("SrsEntry::key_sizes: '" + circuit_id + "' has no bellperson key");
}

Result<std::shared_ptr<const groth16::ProvingKey>> SrsEntry::host_key(int priority,
                                                                      const std::function<bool()>& cancelled) const {
  // One load at a time; later callers get the same copy. The state lock is not held while the
  // copy loads (47 GiB at 32 GiB: minutes), so bytes() and key_source(), which GetStatus and the
  // provers call, answer meanwhile.
  std::lock_guard load(load_mu_);
  {
    std::lock_guard lock(host_mu_);
    if (host_) return host_;
  }
  if (!bellperson() || !load_host) return make_error("'" + circuit_id + "' has no bellperson key");
  auto loaded = load_host(priority, cancelled);
  if (!loaded.ok()) return make_error(loaded.error());
  std::lock_guard lock(host_mu_);
  host_ = *loaded;
  host_source_.emplace(*host_);
  return host_;
}

bool SrsEntry::host_key_loaded() const {
  std::lock_guard lock(host_mu_);
  return host_ != nullptr;
}

const groth16::KeySource& SrsEntry::key_source() const {
  std::lock_guard lock(host_mu_);
  if (host_source_) return *host_source_;  // never unset once loaded: the reference stays valid
  if (!params) throw std::logic_error("SrsEntry::key_source: '" + circuit_id + "' has no bellperson key");
  return *params;
}

uint64_t SrsEntry::bytes() const {
  std::lock_guard lock(host_mu_);
  return zkey_bytes + (host_ ? groth16::KeySizes::of(*host_).host_bytes() : 0);
}

namespace {

uint64_t key_bytes(const groth16::Zkey& z) {
  return (z.a.size() + z.b1.size() + z.c.size() + z.h.size() + z.ic.size()) * sizeof(ec::G1Affine) +
         z.b2.size() * sizeof(ec::G2Affine) + z.coefs.size() * sizeof(groth16::ZkeyCoef);
}

// What loading a zkey will hold in memory, from the file's size alone.
Result<uint64_t> zkey_estimate(const CircuitDef& def) {
  std::error_code ec;
  const uint64_t size = fs::file_size(def.zkey_path, ec);
  if (ec) return make_error("cannot read zkey '" + def.zkey_path + "': " + ec.message());
  return size + size / 4;
}

// A bellperson key's host copy, its bytes reserved in the budget for as long as the copy lives.
Result<std::shared_ptr<const groth16::ProvingKey>> load_host_copy(MemoryBudget& budget, const std::string& path,
                                                                  const groth16::KeySizes& sizes, bool check_subgroups,
                                                                  const std::string& circuit, int priority,
                                                                  const std::function<bool()>& cancelled) {
  // A worker that needs the copy holds its own partition's reservation: wait a bounded time for
  // the others to finish rather than forever.
  auto reservation = budget.acquire(sizes.host_bytes(), priority, cancelled,
                                    std::chrono::steady_clock::now() + std::chrono::minutes(10));
  if (!reservation.ok()) return make_error("the host copy of the keys of '" + circuit + "': " + reservation.error());
  const auto t0 = Clock::now();
  groth16::ParamsReadOptions ro;
  ro.subgroup_checks = check_subgroups;
  auto pk = groth16::read_params(path, ro);
  if (!pk.ok()) return make_error(pk.error());
  if (groth16::KeySizes::of(*pk) != sizes) return make_error(path + ": the file changed since its keys were loaded");
  spdlog::info("srs_host_copy circuit={} bytes={} seconds={:.3f}", circuit, sizes.host_bytes(),
               std::chrono::duration<double>(Clock::now() - t0).count());
  auto held = std::make_shared<Reservation>(std::move(reservation).value());
  auto* raw = new groth16::ProvingKey(std::move(pk).value());
  return std::shared_ptr<const groth16::ProvingKey>(raw, [held](const groth16::ProvingKey* p) {
    delete p;
    held->release_all();
  });
}

}  // namespace

SrsManager::SrsManager(MemoryBudget& budget, SrsManagerOptions options, KeyMaker make_keys)
    : budget_(budget), options_(options), make_keys_(std::move(make_keys)), host_keys_(options.host_keys) {}

SrsManager::~SrsManager() = default;

bool SrsManager::is_loaded(const std::string& circuit_id) const {
  std::lock_guard lock(mu_);
  auto it = slots_.find(circuit_id);
  return it != slots_.end() && it->second.entry != nullptr;
}

SrsHandle SrsManager::peek(const std::string& circuit_id) const {
  std::lock_guard lock(mu_);
  auto it = slots_.find(circuit_id);
  return it == slots_.end() ? nullptr : it->second.entry;
}

Result<SrsHandle> SrsManager::acquire(const CircuitDef& def, int priority, const std::function<bool()>& cancelled,
                                      uint64_t* loaded_ms) {
  if (loaded_ms) *loaded_ms = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    Slot& slot = slots_[def.id];
    if (slot.entry) {
      slot.last_used = Clock::now();
      return slot.entry;
    }
    if (!slot.loading) break;
    // Someone else loads it: wait (and notice cancellation).
    loaded_cv_.wait_for(lock, std::chrono::milliseconds(50));
    if (cancelled && cancelled()) return make_error("cancelled while waiting for the keys of '" + def.id + "'");
  }
  slots_[def.id].loading = true;
  lock.unlock();

  const auto t0 = Clock::now();
  Result<SrsHandle> loaded = make_error("not loaded");
  try {
    loaded = load(def, priority, cancelled);
  } catch (const std::exception& e) {
    loaded = make_error("loading the keys of '" + def.id + "' failed: " + e.what());
  }
  const auto took = Clock::now() - t0;
  const uint64_t ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  if (options_.on_load) options_.on_load(std::chrono::duration<double>(took).count(), loaded.ok());

  lock.lock();
  Slot& slot = slots_[def.id];
  slot.loading = false;
  if (loaded.ok()) {
    slot.entry = *loaded;
    slot.last_used = Clock::now();
    if (loaded_ms) *loaded_ms = ms;
  } else {
    slots_.erase(def.id);
  }
  loaded_cv_.notify_all();
  return loaded;
}

Result<SrsHandle> SrsManager::load(const CircuitDef& def, int priority, const std::function<bool()>& cancelled) {
  const auto t0 = Clock::now();
  std::shared_ptr<const groth16::ProvingKey> memory_key;  // a TEST-ONLY key made in memory
  if (!def.uses_zkey() && !fs::exists(def.params_path)) {
    if (!def.test_setup) {
      return make_error("parameter file '" + def.params_path + "' of circuit '" + def.id + "' does not exist");
    }
    spdlog::info("srs_setup circuit={} params={} (test-only keys)", def.id, def.params_path);
    auto made = make_keys_(def, priority, cancelled);
    if (!made.ok()) return make_error(made.error());
    memory_key = std::move(made->memory);
  }
  auto entry = std::make_shared<SrsEntry>();
  entry->circuit_id = def.id;
  entry->test_only = def.test_setup;
  std::shared_ptr<Reservation> zkey_res;
  if (def.uses_zkey()) {
    auto estimate = zkey_estimate(def);
    if (!estimate.ok()) return make_error(estimate.error());
    auto reservation = budget_.acquire(*estimate, priority, cancelled);
    if (!reservation.ok()) return make_error("keys of '" + def.id + "': " + reservation.error());
    groth16::ZkeyOptions zo;
    zo.check_all_subgroups = options_.check_subgroups;
    auto z = groth16::load_zkey(def.zkey_path, zo);
    if (!z.ok()) return make_error(z.error());
    entry->zkey_vk = groth16::vk_from_zkey(*z);
    entry->zkey_bytes = key_bytes(*z);
    entry->zkey = std::make_shared<const groth16::Zkey>(std::move(z).value());
    // Hold exactly what the zkey takes (the estimate is close; never more than asked for).
    Reservation held = std::move(reservation).value();
    if (held.bytes() > entry->zkey_bytes) held.release(held.bytes() - entry->zkey_bytes);
    zkey_res = std::make_shared<Reservation>(std::move(held));
  } else if (memory_key) {
    // The key is its own host copy (its reservation rides in its deleter), whoever proves.
    entry->memory_key = memory_key;
    entry->load_host = [memory_key](int, const std::function<bool()>&) {
      return Result<std::shared_ptr<const groth16::ProvingKey>>(memory_key);
    };
    if (auto host = entry->host_key(priority, cancelled); !host.ok()) return make_error(host.error());
  } else {
    groth16::ParamsReadOptions ro;
    ro.subgroup_checks = options_.check_subgroups;
    auto src = groth16::ParamsKeySource::open(def.params_path, ro);
    if (!src.ok()) return make_error(src.error());
    if (!def.vk_path.empty() && fs::exists(def.vk_path)) {
      auto vk = groth16::read_vk(def.vk_path);
      if (!vk.ok()) return make_error(vk.error());
      if (groth16::vk_bytes(*vk) != groth16::vk_bytes(src->vk())) {
        return make_error("verifying key '" + def.vk_path + "' does not match the one in '" + def.params_path + "'");
      }
    }
    entry->params.emplace(std::move(src).value());
    MemoryBudget* budget = &budget_;
    entry->load_host = [budget, path = def.params_path, sizes = entry->params->sizes(),
                        check = options_.check_subgroups, id = def.id](int prio, const std::function<bool()>& cancel) {
      return load_host_copy(*budget, path, sizes, check, id, prio, cancel);
    };
    if (host_keys_.load()) {
      auto host = entry->host_key(priority, cancelled);
      if (!host.ok()) return make_error(host.error());
    }
  }
  entry->pvk = groth16::prepare(entry->vk());
  entry->load_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (entry->memory_key) {
    spdlog::warn(
        "srs_loaded circuit={} bytes={} storage=memory seconds={:.3f} (TEST-ONLY keys from a public seed, held in "
        "memory only: no file; made again on the next use after an eviction)",
        def.id, entry->bytes(), entry->load_seconds);
  } else {
    spdlog::info("srs_loaded circuit={} bytes={} storage=file host_copy={} seconds={:.3f}{}", def.id, entry->bytes(),
                 entry->bellperson() && !entry->host_key_loaded() ? "no (the GPUs read the file)" : "yes",
                 entry->load_seconds, entry->test_only ? " (TEST-ONLY keys)" : "");
  }
  // The zkey's reservation rides in the deleter: released when the last holder lets go (the host
  // copy's rides in its own).
  SrsEntry* raw = entry.get();
  return SrsHandle(raw, [entry = std::move(entry), zkey_res](const SrsEntry*) mutable {
    entry.reset();
    if (zkey_res) zkey_res->release_all();
  });
}

void SrsManager::set_host_keys(bool host_keys) {
  host_keys_.store(host_keys);
}

EvictResult SrsManager::evict(const std::string& circuit_id) {
  SrsHandle victim;
  {
    std::lock_guard lock(mu_);
    auto it = slots_.find(circuit_id);
    if (it == slots_.end() || !it->second.entry) return {};
    victim = std::move(it->second.entry);
    slots_.erase(it);
  }
  EvictResult r{true, victim->bytes()};
  const std::string note = victim->memory_key ? " (TEST-ONLY key held in memory only: made again on its next use)" : "";
  if (victim.use_count() > 1) {
    spdlog::info("srs_evict circuit={} bytes={} storage={} (freed when {} running job(s) finish){}", circuit_id,
                 r.freed_bytes, victim->storage(), victim.use_count() - 1, note);
  } else {
    spdlog::info("srs_evict circuit={} bytes={} storage={}{}", circuit_id, r.freed_bytes, victim->storage(), note);
  }
  return r;
}

uint64_t SrsManager::evict_idle(uint64_t needed) {
  std::vector<SrsHandle> victims;  // released outside the lock
  uint64_t freed = 0;
  {
    std::lock_guard lock(mu_);
    std::vector<std::pair<Clock::time_point, std::string>> idle;
    const auto now = Clock::now();
    for (const auto& [id, slot] : slots_) {
      if (!slot.entry || slot.entry.use_count() > 1) continue;
      if (std::chrono::duration<double>(now - slot.last_used).count() < options_.eviction_min_idle_s) continue;
      idle.emplace_back(slot.last_used, id);
    }
    std::sort(idle.begin(), idle.end());
    for (const auto& [t, id] : idle) {
      if (freed >= needed) break;
      auto it = slots_.find(id);
      freed += it->second.entry->bytes();
      spdlog::info(
          "srs_evict_idle circuit={} bytes={} storage={}{}", id, it->second.entry->bytes(), it->second.entry->storage(),
          it->second.entry->memory_key ? " (TEST-ONLY key held in memory only: made again on its next use)" : "");
      victims.push_back(std::move(it->second.entry));
      slots_.erase(it);
    }
  }
  victims.clear();
  return freed;
}

std::vector<SrsInfo> SrsManager::status() const {
  std::lock_guard lock(mu_);
  std::vector<SrsInfo> out;
  for (const auto& [id, slot] : slots_) {
    if (!slot.entry) continue;
    out.push_back(SrsInfo{id, 0, slot.entry->bytes(), static_cast<uint32_t>(slot.entry.use_count() - 1),
                          slot.entry->test_only, slot.entry->storage()});
  }
  return out;
}

}  // namespace cuzk::engine
