#include "engine/gpu_pool.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "engine/progress_key_source.hpp"
#include "util/log.hpp"

namespace cuzk::engine {

struct GpuPool::Entry {
  std::string circuit;
  SrsHandle srs;
  PceHandle pce;
  std::unique_ptr<backend::ProverBackend> prover;   // bellperson circuits
  std::unique_ptr<backend::ZkeyDeviceProver> zkey;  // snarkjs circuits
  std::mutex run_mu;                                // a prover serves one witness at a time
  int users = 0;                                    // guarded by Device::mu
  std::atomic<uint64_t> proofs{0};
  std::chrono::steady_clock::time_point last_used;

  uint64_t device_bytes() const { return prover ? prover->device_bytes() : zkey ? zkey->device_bytes() : 0; }
  std::string name() const { return prover ? prover->name() : zkey ? zkey->name() : "?"; }
};

struct GpuPool::Device {
  int ordinal = 0;
  mutable std::mutex mu;  // the entries, and building them (one upload at a time per device)
  std::list<std::shared_ptr<Entry>> entries;
};

GpuPool::GpuPool(const GpusSection& config, ThreadPool* cpu_pool, GpuPoolSetup setup, Operations* operations)
    : operations_(operations) {
  const backend::BackendKind kind = backend::parse_backend_kind(config.backend);
  required_ = kind == backend::BackendKind::Gpu;
  if (setup.factory) {
    if (kind != backend::BackendKind::Cpu) devices_ = setup.devices;
    reason_ = devices_.empty() ? "no devices (test setup)" : "test devices";
    factory_ = std::move(setup.factory);
    zkey_factory_ = std::move(setup.zkey_factory);
    if (devices_.empty() && required_) throw std::runtime_error("gpus.backend = \"gpu\": no GPU to prove on");
  } else {
    backend::DeviceList found = backend::available_devices(config.devices);
    backend::Selection sel;
    try {
      sel = backend::select_backend(kind, found);
    } catch (const std::runtime_error&) {
      throw std::runtime_error("gpus.backend = \"gpu\" but there is no GPU to prove on: " + found.unavailable_reason +
                               " (set gpus.backend = \"auto\" or \"cpu\")");
    }
    devices_ = sel.devices;
    reason_ = sel.reason;
    const backend::BackendOptions opts{
        .b_g2_on_gpu = config.g2_msm != "cpu", .pool = cpu_pool, .msm_table_bits = config.msm_table_bits};
    factory_ = [opts](int device, const groth16::KeySource& key, const pce::Pce& pce) {
      return backend::make_device_backend(key, pce, device, opts);
    };
    zkey_factory_ = [opts](int device, const groth16::Zkey& zkey) {
      return backend::make_zkey_device_prover(zkey, device, opts);
    };
  }
  for (int d : devices_) {
    slots_.push_back(std::make_unique<Device>());
    slots_.back()->ordinal = d;
  }
}

GpuPool::~GpuPool() = default;

std::shared_ptr<GpuPool::Entry> GpuPool::acquire(Device& d, const std::string& circuit, const SrsHandle& srs,
                                                 const PceHandle& pce, bool may_evict) {
  std::unique_lock lock(d.mu);
  for (auto it = d.entries.begin(); it != d.entries.end(); ++it) {
    if ((*it)->circuit != circuit) continue;
    if ((*it)->srs == srs && (*it)->pce == pce) {
      ++(*it)->users;
      return *it;
    }
    // The circuit's keys or PCE were reloaded: the old prover goes once it is idle.
    if ((*it)->users == 0) {
      d.entries.erase(it);
      break;
    }
  }
  auto entry = std::make_shared<Entry>();
  entry->circuit = circuit;
  entry->srs = srs;
  entry->pce = pce;
  const auto t0 = std::chrono::steady_clock::now();
  Operations::Handle op;
  if (operations_) op = operations_->start("gpu_prover", circuit, "points");
  for (;;) {
    try {
      if (srs->zkey) {
        entry->zkey = zkey_factory_(d.ordinal, *srs->zkey);
      } else {
        const ProgressKeySource key(srs->key_source(), op);  // an attempt after an eviction counts again
        entry->prover = factory_(d.ordinal, key, *pce);
      }
      break;
    } catch (const backend::DeviceMemoryShort& e) {
      if (!may_evict) throw;
      // Drop the least recently used idle prover and try again; none left: it does not fit.
      auto victim = d.entries.end();
      for (auto it = d.entries.begin(); it != d.entries.end(); ++it) {
        if ((*it)->users == 0 && (victim == d.entries.end() || (*it)->last_used < (*victim)->last_used)) victim = it;
      }
      if (victim == d.entries.end()) throw;
      logging::log_event(logging::Level::info, "gpu_prover_evicted",
                         {{"device", std::to_string(d.ordinal)},
                          {"circuit", (*victim)->circuit},
                          {"for", circuit},
                          {"bytes", std::to_string((*victim)->device_bytes())}});
      d.entries.erase(victim);
    }
  }
  logging::log_event(
      logging::Level::info, "gpu_prover_ready",
      {{"device", std::to_string(d.ordinal)},
       {"circuit", circuit},
       {"bytes", std::to_string(entry->device_bytes())},
       {"seconds", std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())}});
  entry->users = 1;
  d.entries.push_back(entry);
  return entry;
}

template <class Fn>
auto GpuPool::run(size_t slot, const std::string& circuit, const SrsHandle& srs, const PceHandle& pce,
                  std::string* used, Fn&& fn) {
  if (slot >= slots_.size()) throw std::logic_error("GpuPool: no device slot " + std::to_string(slot));
  Device& d = *slots_[slot];
  std::shared_ptr<Entry> e = acquire(d, circuit, srs, pce);
  struct Release {
    Device& d;
    Entry& e;
    ~Release() {
      std::lock_guard lock(d.mu);
      --e.users;
      e.last_used = std::chrono::steady_clock::now();
    }
  } release{d, *e};
  if (used) *used = e->name();
  std::lock_guard run(e->run_mu);
  auto out = fn(*e);
  ++e->proofs;
  return out;
}

groth16::ProofMsms GpuPool::stage1(size_t slot, const std::string& circuit, const SrsHandle& srs, const PceHandle& pce,
                                   const groth16::Witness& w, std::string* used) {
  if (!srs || !srs->bellperson() || !pce)
    throw std::logic_error("GpuPool::stage1: circuit '" + circuit + "' has no key or PCE");
  return run(slot, circuit, srs, pce, used, [&](Entry& e) { return e.prover->stage1(w); });
}

groth16::ZkeyMsms GpuPool::zkey_stage1(size_t slot, const std::string& circuit, const SrsHandle& srs,
                                       std::span<const groth16::Fr> witness, std::string* used) {
  if (!srs || !srs->zkey) throw std::logic_error("GpuPool::zkey_stage1: circuit '" + circuit + "' has no zkey");
  if (!zkey_factory_) throw std::logic_error("GpuPool::zkey_stage1: no zkey prover factory");
  return run(slot, circuit, srs, nullptr, used, [&](Entry& e) { return e.zkey->stage1(witness); });
}

void GpuPool::warm(const std::string& circuit, const SrsHandle& srs, const PceHandle& pce) {
  if (!srs || (!srs->zkey && !(srs->bellperson() && pce))) {
    throw std::logic_error("GpuPool::warm: circuit '" + circuit + "' has no key or PCE");
  }
  if (srs->zkey && !zkey_factory_) return;  // zkey circuits prove on the CPU here
  // Each device streams the key from its file on its own: with several GPUs the file is decoded
  // once per device (a shared decode feeding every device is #25's to add).
  for (auto& d : slots_) {
    std::shared_ptr<Entry> e;
    try {
      e = acquire(*d, circuit, srs, srs->zkey ? nullptr : pce, /*may_evict=*/false);
    } catch (const backend::DeviceMemoryShort& ex) {
      // Other circuits' provers stay: the first partition decides (acquire with eviction).
      logging::log_event(logging::Level::info, "gpu_prover_not_warmed",
                         {{"device", std::to_string(d->ordinal)}, {"circuit", circuit}, {"reason", ex.what()}});
      continue;
    }
    std::lock_guard lock(d->mu);
    --e->users;
    e->last_used = std::chrono::steady_clock::now();
  }
}

void GpuPool::drop_unless(const std::function<bool(const std::string&)>& keep) {
  for (auto& d : slots_) {
    std::lock_guard lock(d->mu);
    d->entries.remove_if([&](const std::shared_ptr<Entry>& e) { return e->users == 0 && !keep(e->circuit); });
  }
}

size_t GpuPool::drop_idle(std::chrono::duration<double> min_idle) {
  const auto now = std::chrono::steady_clock::now();
  size_t dropped = 0;
  for (auto& d : slots_) {
    std::lock_guard lock(d->mu);
    dropped += d->entries.remove_if(
        [&](const std::shared_ptr<Entry>& e) { return e->users == 0 && now - e->last_used >= min_idle; });
  }
  return dropped;
}

std::vector<GpuResident> GpuPool::residents() const {
  std::vector<GpuResident> out;
  for (const auto& d : slots_) {
    std::lock_guard lock(d->mu);
    for (const auto& e : d->entries) out.push_back({d->ordinal, e->circuit, e->device_bytes(), e->proofs.load()});
  }
  return out;
}

}  // namespace cuzk::engine
