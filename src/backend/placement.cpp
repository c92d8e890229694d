#include "backend/placement.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>

#include "backend/device_platform.hpp"
#include "backend/fit_ladder.hpp"
#include "util/log.hpp"

namespace cuzk::backend {

namespace {

// A KeySource that reports the points read through it: a prover built from a streamed .params
// file (tens of GB at 32 GiB, a minute) shows its upload's progress.
class ProgressKeySource final : public groth16::KeySource {
 public:
  ProgressKeySource(const groth16::KeySource& inner, BuildProgress& progress) : inner_(inner), progress_(progress) {
    const groth16::KeySizes s = inner_.sizes();
    total_ = s.h + s.l + s.a + s.b_g1 + s.b_g2;
    progress_.progress(0, total_);
  }
  const groth16::VerifyingKey& vk() const override { return inner_.vk(); }
  groth16::KeySizes sizes() const override { return inner_.sizes(); }
  const groth16::ProvingKey* in_memory() const override { return inner_.in_memory(); }
  std::string identity() const override { return inner_.identity(); }
  void read_g1(groth16::G1Section section, const groth16::G1Sink& sink) const override {
    inner_.read_g1(section, [&](uint64_t first, std::span<const groth16::G1Affine> points) {
      sink(first, points);
      add(points.size());
    });
  }
  void read_b_g2(const groth16::G2Sink& sink) const override {
    inner_.read_b_g2([&](uint64_t first, std::span<const groth16::G2Affine> points) {
      sink(first, points);
      add(points.size());
    });
  }

 private:
  void add(uint64_t n) const { progress_.progress(done_.fetch_add(n, std::memory_order_relaxed) + n, total_); }

  const groth16::KeySource& inner_;
  BuildProgress& progress_;
  uint64_t total_ = 0;
  mutable std::atomic<uint64_t> done_{0};
};

}  // namespace

// The device whose prover this thread is building (its lock held), for drop_where.
thread_local const Placement::Device* Placement::t_building = nullptr;

struct Placement::Entry {
  std::string circuit;
  std::vector<std::shared_ptr<const void>> holds;
  std::unique_ptr<DeviceProver> prover;
  FitOptions fit;        // the rung it was built at
  bool retired = false;  // ran short mid-proof: no new stages; guarded by Device::mu
  // At most prover->concurrency() calls at once (a GPU prover with two witness slots takes two).
  std::mutex run_mu;
  std::condition_variable run_cv;
  unsigned running = 0;  // guarded by run_mu
  int users = 0;         // guarded by Device::mu
  std::atomic<uint64_t> proofs{0};
  std::chrono::steady_clock::time_point last_used;
};

struct Placement::Device {
  int ordinal = 0;
  mutable std::mutex mu;  // the entries, and building them (one upload at a time per device)
  std::list<std::shared_ptr<Entry>> entries;
  // Per circuit, the rung a prover is built from after one ran short mid-proof (shrink).
  std::map<std::string, FitOptions> start_fit;
};

Placement::Placement(const PlacementOptions& options, PlacementSetup setup, BuildWatcher watcher)
    : options_(options), watcher_(std::move(watcher)) {
  if (setup.factory) {
    if (options_.kind != BackendKind::Cpu) devices_ = setup.devices;
    reason_ = devices_.empty() ? "no devices (test setup)" : "test devices";
    factory_ = std::move(setup.factory);
    if (devices_.empty() && required()) throw std::runtime_error(options_.required_by + ": no GPU to prove on");
  } else {
    const Selection sel = select_backend(options_.kind, available_devices(options_.devices));
    devices_ = sel.devices;
    reason_ = sel.reason;
    factory_ = [](int device, const ProverKey& key, const FitOptions& fit) {
      return device_platform()->build(device, key, fit);  // devices exist only with a platform
    };
  }
  for (int d : devices_) {
    slots_.push_back(std::make_unique<Device>());
    slots_.back()->ordinal = d;
  }
}

Placement::~Placement() = default;

std::unique_ptr<DeviceProver> Placement::build_fitted(int device, const ProverKey& key, BuildProgress* progress,
                                                      const FitOptions* start, FitOptions* used) const {
  FitOptions fit = start ? *start : options_.fit;
  if (auto it = options_.memory_limits.find(device); it != options_.memory_limits.end()) fit.memory_limit = it->second;
  for (;;) {
    try {
      if (used) *used = fit;
      if (const auto* k = std::get_if<PceKey>(&key); k && progress) {
        const ProgressKeySource counted(*k->key, *progress);  // an attempt counts from 0 again
        return factory_(device, PceKey{&counted, k->pce}, fit);
      }
      return factory_(device, key, fit);
    } catch (const DeviceMemoryShort& e) {
      std::string event;
      const auto next = lower_fit(fit, options_.fit, std::holds_alternative<PceKey>(key), &event);
      // (lower_fit keeps fit.memory_limit: the device's cap holds on every rung)
      if (!next) throw;
      fit = *next;
      logging::log_event(logging::Level::info, event, {{"device", std::to_string(device)}, {"reason", e.what()}});
    }
  }
}

std::shared_ptr<Placement::Entry> Placement::acquire(Device& d, const CircuitKey& key, bool may_evict) {
  std::unique_lock lock(d.mu);
  for (auto it = d.entries.begin(); it != d.entries.end(); ++it) {
    if ((*it)->circuit != key.circuit) continue;
    if ((*it)->holds == key.holds && !(*it)->retired) {
      ++(*it)->users;
      return *it;
    }
    // The circuit's keys or PCE were reloaded (or its prover ran short mid-proof): the old prover
    // goes once it is idle.
    if ((*it)->users == 0) {
      d.entries.erase(it);
      break;
    }
  }
  auto entry = std::make_shared<Entry>();
  entry->circuit = key.circuit;
  entry->holds = key.holds;
  const auto t0 = std::chrono::steady_clock::now();
  const std::unique_ptr<BuildProgress> progress = watcher_ ? watcher_(key.circuit) : nullptr;
  struct Building {  // drop_where skips this device while this thread builds on it
    explicit Building(const Device* d) { t_building = d; }
    ~Building() { t_building = nullptr; }
  } building(&d);
  for (;;) {
    try {
      const auto start = d.start_fit.find(key.circuit);
      entry->prover = build_fitted(d.ordinal, key.key, progress.get(),
                                   start == d.start_fit.end() ? nullptr : &start->second, &entry->fit);
      break;
    } catch (const DeviceMemoryShort& e) {
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
                          {"for", key.circuit},
                          {"bytes", std::to_string((*victim)->prover->device_bytes())}});
      d.entries.erase(victim);
    }
  }
  logging::log_event(
      logging::Level::info, "gpu_prover_ready",
      {{"device", std::to_string(d.ordinal)},
       {"circuit", key.circuit},
       {"bytes", std::to_string(entry->prover->device_bytes())},
       {"seconds", std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())}});
  entry->users = 1;
  d.entries.push_back(entry);
  return entry;
}

StageMsms Placement::stage1(size_t slot, const CircuitKey& key, const WitnessRef& w, groth16::ProveTimings* timings,
                            std::string* used) {
  if (slot >= slots_.size()) throw std::logic_error("Placement: no device slot " + std::to_string(slot));
  Device& d = *slots_[slot];
  try {
    return stage1_on(d, key, w, timings, used);
  } catch (const DeviceMemoryShort& e) {
    // The prover was built, but the device ran short while it proved (another process took memory
    // it allocates as it goes): once, a prover one rung lower (fit_ladder.hpp) proves the witness
    // again; a sum of a failed stage is never used. Past the ladder's end, the retry policy's CPU.
    if (!shrink(d, key, e.what())) throw;
    return stage1_on(d, key, w, timings, used);
  }
}

bool Placement::shrink(Device& d, const CircuitKey& key, const std::string& why) {
  std::lock_guard lock(d.mu);
  for (const auto& e : d.entries) {
    if (e->circuit != key.circuit || e->holds != key.holds || e->retired) continue;
    std::string event;
    const auto next = lower_fit(e->fit, options_.fit, std::holds_alternative<PceKey>(key.key), &event);
    if (!next) return false;
    e->retired = true;  // new stages get a prover built from `next`; this one goes once idle
    d.start_fit[key.circuit] = *next;
    ++memory_short_retries_;
    logging::log_event(logging::Level::warn, "gpu_memory_short_mid_proof",
                       {{"device", std::to_string(d.ordinal)},
                        {"circuit", key.circuit},
                        {"next", event},
                        {"error", why},
                        {"action", "proving the partition again with the smaller prover"}});
    return true;
  }
  return false;
}

StageMsms Placement::stage1_on(Device& d, const CircuitKey& key, const WitnessRef& w, groth16::ProveTimings* timings,
                               std::string* used) {
  std::shared_ptr<Entry> e = acquire(d, key, /*may_evict=*/true);
  struct Release {
    Device& d;
    Entry& e;
    ~Release() {
      std::lock_guard lock(d.mu);
      --e.users;
      e.last_used = std::chrono::steady_clock::now();
    }
  } release{d, *e};
  if (used) *used = e->prover->name();
  struct Run {
    Entry& e;
    explicit Run(Entry& entry) : e(entry) {
      std::unique_lock lock(e.run_mu);
      const unsigned most = std::max(1u, e.prover->concurrency());
      e.run_cv.wait(lock, [&] { return e.running < most; });
      ++e.running;
    }
    ~Run() {
      {
        std::lock_guard lock(e.run_mu);
        --e.running;
      }
      e.run_cv.notify_one();
    }
  } run{*e};
  StageMsms out = e->prover->stage1(w, timings);
  ++e->proofs;
  return out;
}

void Placement::warm(const CircuitKey& key) {
  // Each device streams the key from its file on its own: with several GPUs the file is decoded
  // once per device (a shared decode feeding every device is #25's to add).
  for (auto& d : slots_) {
    std::shared_ptr<Entry> e;
    try {
      e = acquire(*d, key, /*may_evict=*/false);
    } catch (const DeviceMemoryShort& ex) {
      // Other circuits' provers stay: the first proof decides (acquire with eviction).
      logging::log_event(logging::Level::info, "gpu_prover_not_warmed",
                         {{"device", std::to_string(d->ordinal)}, {"circuit", key.circuit}, {"reason", ex.what()}});
      continue;
    }
    std::lock_guard lock(d->mu);
    --e->users;
    e->last_used = std::chrono::steady_clock::now();
  }
}

template <class Pred>
size_t Placement::drop_where(Pred&& drop) {
  size_t dropped = 0;
  for (auto& d : slots_) {
    // A device whose lock is held is building a prover: on this thread (its host reservation asked
    // the budget to evict, which asks here) or another. Its provers stay this time; waiting for the
    // lock could take the build's minute, or deadlock on this thread.
    if (t_building == d.get()) continue;
    std::unique_lock lock(d->mu, std::try_to_lock);
    if (!lock.owns_lock()) continue;
    dropped += d->entries.remove_if([&](const std::shared_ptr<Entry>& e) { return e->users == 0 && drop(*e); });
  }
  return dropped;
}

void Placement::drop_unless(const std::function<bool(const std::string&)>& keep) {
  drop_where([&](const Entry& e) { return !keep(e.circuit); });
}

size_t Placement::drop_idle(std::chrono::duration<double> min_idle) {
  const auto now = std::chrono::steady_clock::now();
  return drop_where([&](const Entry& e) { return now - e.last_used >= min_idle; });
}

std::vector<Resident> Placement::residents() const {
  std::vector<Resident> out;
  for (const auto& d : slots_) {
    std::lock_guard lock(d->mu);
    for (const auto& e : d->entries)
      out.push_back({d->ordinal, e->circuit, e->prover->device_bytes(), e->proofs.load()});
  }
  return out;
}

}  // namespace cuzk::backend
