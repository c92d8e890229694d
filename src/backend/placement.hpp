#pragma once
// Where a proof's device stage runs, shared by the CLI and the daemon: which devices (selection.hpp
// over the platform's devices), the provers resident on each, and how a prover is fit into its
// device. On each device one resident prover per circuit holds its key's bases and its PCE (or its
// zkey's points), so a proof sends only its witness over the bus.
//
// The fit ladder (fit_ladder.hpp), when a prover does not fit its device's free memory or its
// cap (FitOptions::memory_limit; DeviceMemoryShort, checked before anything is uploaded): one
// witness slot, no MSM window tables, the G2 MSM on the CPU, then the streamed prover (the key's
// bases in pinned host memory, crossing to the device chunk by chunk under the cap; bellperson keys
// only), with the G2 MSM back on the device and then on the CPU; then drop idle provers of other
// circuits on that device, least recently used first, and climb the ladder again; when nothing is
// left to drop the DeviceMemoryShort reaches the retry policy (retry_policy.hpp), whose last rung
// is the CPU.
//
// A resident prover keeps the handles its key came with (CircuitKey::holds): it reads the key on
// the host (the densities, the G2 bases when that MSM runs on the CPU). A circuit whose handles
// change (its keys or PCE were reloaded) gets a new prover; the old one goes once idle.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/device_prover.hpp"
#include "backend/selection.hpp"

namespace cuzk::backend {

struct PlacementOptions {
  BackendKind kind = BackendKind::Auto;
  std::vector<unsigned> devices{};          // empty: every device
  FitOptions fit{};                         // the ladder's first rung (its memory_limit: every device's cap)
  std::map<int, uint64_t> memory_limits{};  // per device ordinal, instead of fit.memory_limit
  bool retry = true;                        // the retry policy may prove elsewhere after a device error
  // Named in errors when kind = Gpu makes the CPU unavailable ("--backend gpu", "gpus.backend = ...").
  std::string required_by = "--backend gpu";
};

// Builds a prover (default: the platform's build()); tests pass fakes that fail on demand.
using DeviceProverFactory =
    std::function<std::unique_ptr<DeviceProver>(int device, const ProverKey& key, const FitOptions& fit)>;

// Instead of the platform's devices (tests): these ordinals, built by `factory` (kind Cpu still
// means no devices).
struct PlacementSetup {
  std::vector<int> devices;
  DeviceProverFactory factory;
};

// Progress of a prover's build (its key's points read so far); ends when destroyed.
class BuildProgress {
 public:
  virtual ~BuildProgress() = default;
  virtual void progress(uint64_t done, uint64_t total) = 0;
};
// Called when a prover starts building for `circuit` (the daemon lists it as an operation).
using BuildWatcher = std::function<std::unique_ptr<BuildProgress>(const std::string& circuit)>;

// A circuit's key as the placement builds and finds its provers.
struct CircuitKey {
  std::string circuit;
  ProverKey key;
  // The handles `key` points into: identity (another set means another prover) and lifetime.
  std::vector<std::shared_ptr<const void>> holds{};
};

struct Resident {
  int device = 0;
  std::string circuit;
  uint64_t bytes = 0;
  uint64_t proofs = 0;
};

class Placement {
 public:
  // Selects the devices now; kind = Gpu without a device throws std::runtime_error (select_backend).
  explicit Placement(const PlacementOptions& options, PlacementSetup setup = {}, BuildWatcher watcher = {});
  ~Placement();
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  bool enabled() const { return !devices_.empty(); }
  const std::vector<int>& devices() const { return devices_; }
  const std::string& reason() const { return reason_; }
  bool required() const { return options_.kind == BackendKind::Gpu; }
  const PlacementOptions& options() const { return options_; }

  // The device stage of one witness on devices()[slot], with the circuit's resident prover (built
  // on first use). `used` receives the prover's name ("gpu:0"). Throws DeviceFailure (retry
  // elsewhere), DeviceMemoryShort (the circuit does not fit the device even alone, or the device's
  // other provers are busy), std::invalid_argument for a bad witness.
  StageMsms stage1(size_t slot, const CircuitKey& key, const WitnessRef& w, groth16::ProveTimings* timings = nullptr,
                   std::string* used = nullptr);

  // Builds the circuit's prover on every device now (a preload), as stage1 would on first use, but
  // never evicting another circuit's prover: a device without room is skipped (logged). Throws what
  // building throws otherwise (DeviceFailure, ...).
  void warm(const CircuitKey& key);

  // Drops the idle provers whose circuit `keep` rejects; busy ones stay.
  void drop_unless(const std::function<bool(const std::string&)>& keep);
  // Drops the provers unused for at least `min_idle` (a prover used more recently holds keys the
  // caches would not evict anyway: dropping it frees nothing and costs a re-upload, ~10 s at
  // 32 GiB). Returns how many went.
  size_t drop_idle(std::chrono::duration<double> min_idle);
  std::vector<Resident> residents() const;
  // Stages proved again by a smaller prover after the device ran short of memory mid-proof.
  uint64_t memory_short_retries() const { return memory_short_retries_.load(); }

 private:
  struct Entry;
  struct Device;
  std::shared_ptr<Entry> acquire(Device& d, const CircuitKey& key, bool may_evict);
  // The prover from `start` (null: the options' first rung) down the ladder; `used`: the rung built.
  std::unique_ptr<DeviceProver> build_fitted(int device, const ProverKey& key, BuildProgress* progress,
                                             const FitOptions* start = nullptr, FitOptions* used = nullptr) const;
  StageMsms stage1_on(Device& d, const CircuitKey& key, const WitnessRef& w, groth16::ProveTimings* timings,
                      std::string* used);
  // The circuit's prover on `d` ran short of device memory mid-proof: retire it and build the next
  // ones a rung lower. False at the ladder's end.
  bool shrink(Device& d, const CircuitKey& key, const std::string& why);
  // Drops the idle provers `drop` selects, skipping devices whose lock is held (a build).
  template <class Pred>
  size_t drop_where(Pred&& drop);
  static thread_local const Device* t_building;

  PlacementOptions options_;
  std::vector<int> devices_;
  std::string reason_;
  DeviceProverFactory factory_;
  BuildWatcher watcher_;
  std::vector<std::unique_ptr<Device>> slots_;
  std::atomic<uint64_t> memory_short_retries_{0};
};

}  // namespace cuzk::backend
