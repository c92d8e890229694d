#pragma once
// The GPUs the engine proves on ([gpus] in cuzk.toml): which devices (backend::select_backend over
// the devices found), and on each device one resident prover per circuit, holding its key's bases
// and its PCE so that a partition sends only its witness over the bus. Device memory is a budget of
// its own: a prover that does not fit (backend::DeviceMemoryShort, checked against the device's
// free memory before anything is uploaded) makes the pool drop idle provers of other circuits on
// that device, least recently used first, and try again.
//
// A prover keeps its key and PCE handles (it reads them on the host: the densities, the G2 bases
// when that MSM runs on the CPU), so the engine drops a circuit's provers when it evicts the
// circuit's keys or PCE (drop_unless). It uploads the key's bases from the key's file window by
// window unless the host holds a copy (SrsEntry): GPUs proving need no host copy of the key.
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backend/prover_backend.hpp"
#include "engine/config.hpp"
#include "engine/operations.hpp"
#include "engine/pce_cache.hpp"
#include "engine/srs_manager.hpp"

namespace cuzk::engine {

// Builds one device's prover for a key and a Pce (default: backend::make_device_backend), reading
// the bases from `key` while it builds (the circuit's .params file, streamed, unless the host holds
// a copy); key.vk() outlives the prover. Tests pass fakes that run on the CPU and fail on demand.
using DeviceProverFactory = std::function<std::unique_ptr<backend::ProverBackend>(
    int device, const groth16::KeySource& key, const pce::Pce& pce)>;

// The same for snarkjs-convention circuits (default: backend::make_zkey_device_prover).
using ZkeyDeviceProverFactory =
    std::function<std::unique_ptr<backend::ZkeyDeviceProver>(int device, const groth16::Zkey& zkey)>;

// Instead of scanning for devices (tests): these ordinals, proven on by `factory` (and
// `zkey_factory`; without one, zkey circuits run on the CPU).
struct GpuPoolSetup {
  std::vector<int> devices;
  DeviceProverFactory factory;
  ZkeyDeviceProverFactory zkey_factory;
};

struct GpuResident {
  int device = 0;
  std::string circuit;
  uint64_t bytes = 0;
  uint64_t proofs = 0;
};

class GpuPool {
 public:
  // gpus.backend: "cpu" (no devices), "gpu" (throws std::runtime_error when there is none) or
  // "auto". `cpu_pool` runs the CPU G2 MSM when gpus.g2_msm = "cpu". `operations`, when given,
  // lists each prover being built (its bases' upload) with its progress.
  GpuPool(const GpusSection& config, ThreadPool* cpu_pool, GpuPoolSetup setup = {}, Operations* operations = nullptr);
  ~GpuPool();

  bool enabled() const { return !devices_.empty(); }
  const std::vector<int>& devices() const { return devices_; }
  const std::string& reason() const { return reason_; }
  bool required() const { return required_; }  // gpus.backend = "gpu"

  // The device stage of one witness on devices()[slot] for `circuit`, whose prover is built on
  // first use (or again when the circuit's key or PCE has changed). `used` receives the prover's
  // name ("gpu:0"). Throws backend::DeviceFailure (a CUDA error: retry elsewhere),
  // backend::DeviceMemoryShort (the circuit does not fit the device even alone, or the device's
  // other provers are busy), std::invalid_argument for a bad witness.
  groth16::ProofMsms stage1(size_t slot, const std::string& circuit, const SrsHandle& srs, const PceHandle& pce,
                            const groth16::Witness& w, std::string* used = nullptr);

  // The same for a zkey circuit (srs->zkey): the sums for groth16::zkey_finalize. Throws
  // std::logic_error when the pool has no zkey prover factory (zkey_capable() is false).
  groth16::ZkeyMsms zkey_stage1(size_t slot, const std::string& circuit, const SrsHandle& srs,
                                std::span<const groth16::Fr> witness, std::string* used = nullptr);
  bool zkey_capable() const { return static_cast<bool>(zkey_factory_); }

  // Builds the circuit's prover on every device now (a preload: ready to prove), as stage1 and
  // zkey_stage1 would on first use, but never evicting another circuit's prover: a device without
  // room is skipped (logged). Throws what building throws otherwise (DeviceFailure, ...).
  void warm(const std::string& circuit, const SrsHandle& srs, const PceHandle& pce);

  // Drops the idle provers whose circuit `keep` rejects (given the circuit id); busy ones stay.
  void drop_unless(const std::function<bool(const std::string&)>& keep);
  // Drops the provers unused for at least `min_idle` (the caches' own eviction rule: a prover used
  // more recently holds keys that the caches would not evict anyway, so dropping it frees nothing
  // and costs a re-upload, ~10 s at 32 GiB). Returns how many went.
  size_t drop_idle(std::chrono::duration<double> min_idle);
  std::vector<GpuResident> residents() const;

 private:
  struct Entry;
  struct Device;
  // may_evict: when the prover does not fit, drop idle provers of other circuits (LRU) and retry.
  std::shared_ptr<Entry> acquire(Device& d, const std::string& circuit, const SrsHandle& srs, const PceHandle& pce,
                                 bool may_evict = true);
  template <class Fn>
  auto run(size_t slot, const std::string& circuit, const SrsHandle& srs, const PceHandle& pce, std::string* used,
           Fn&& fn);

  std::vector<int> devices_;
  std::string reason_;
  bool required_ = false;
  DeviceProverFactory factory_;
  ZkeyDeviceProverFactory zkey_factory_;
  Operations* operations_ = nullptr;
  std::vector<std::unique_ptr<Device>> slots_;
};

}  // namespace cuzk::engine
