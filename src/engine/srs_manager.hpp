#pragma once
// Proving keys ("SRS") held in memory, one entry per circuit: loaded on demand or at start,
// shared by the jobs that use them (reference counts are the shared_ptr's), evicted least
// recently used first when the memory budget needs room, or on request. An entry's bytes are
// reserved in the memory budget for as long as anyone holds it: the reservation lives in the
// shared_ptr's deleter, so evicting an entry that a running job still uses frees the memory when
// that job lets go, never earlier.
//
// A TEST-ONLY key made in memory (srs.test_keys, engine/test_keys.hpp) has no file: its entry holds
// the key itself as its host copy, reserved in the budget like one. It is evicted like any entry;
// the next acquire makes it again (the same seed gives the same key and vk), a minute at 32 GiB on
// a GPU, rather than pinning tens of GiB that the budget could never reclaim.
//
// Loading happens outside the manager's lock (other circuits stay usable meanwhile); concurrent
// requests for one circuit wait for a single load.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/circuit_registry.hpp"
#include "engine/engine_api.hpp"
#include "engine/memory_budget.hpp"
#include "groth16/keys.hpp"
#include "groth16/params_file.hpp"
#include "groth16/verifier.hpp"
#include "groth16/zkey.hpp"

namespace cuzk::engine {

// What one circuit proves with: bellperson keys or a snarkjs zkey.
//
// A bellperson key has two forms: its file (`params`, opened at load: the layout and the vk, read
// window by window by device provers, which upload the bases without the host ever holding the whole
// key) and the host copy (every point decoded in memory: the CPU prover's). The host copy is loaded
// at acquire when the CPU proves (SrsManagerOptions::host_keys); when GPUs prove it is loaded only
// if a CPU needs it (a device fell back), and then kept with the entry. At 32 GiB that copy is
// 47 GiB the daemon does not hold while the GPUs prove. A TEST-ONLY key made in memory has only
// the host copy (`memory_key`), whoever proves.
struct SrsEntry {
  std::string circuit_id;
  std::optional<groth16::ParamsKeySource> params;  // bellperson convention, from a file
  // Bellperson convention, a TEST-ONLY key made in memory: no file; also the host copy.
  std::shared_ptr<const groth16::ProvingKey> memory_key;
  std::shared_ptr<const groth16::Zkey> zkey;  // snarkjs convention
  groth16::VerifyingKey zkey_vk;              // the zkey's vk in bellperson form
  double load_seconds = 0;
  bool test_only = false;  // made (or cached) by the TEST-ONLY setup

  const groth16::VerifyingKey& vk() const;  // the bellperson key's vk, or the zkey's in bellperson form
  groth16::PreparedVerifyingKey pvk;        // vk() prepared once at load: every proof is verified
  uint32_t num_public_inputs() const;       // without ONE
  bool bellperson() const { return params.has_value() || memory_key != nullptr; }
  // Where the keys live: "memory" (a TEST-ONLY key made in memory, never written) or "file".
  const char* storage() const { return memory_key ? "memory" : "file"; }
  groth16::KeySizes key_sizes() const;  // bellperson keys only

  // The bellperson key's host copy, loaded now if it is not (reserving its bytes in the memory
  // budget; an error when they do not fit or the file is bad).
  // priority and cancelled as for MemoryBudget::acquire.
  Result<std::shared_ptr<const groth16::ProvingKey>> host_key(int priority = 0,
                                                              const std::function<bool()>& cancelled = {}) const;
  bool host_key_loaded() const;
  // What a device prover reads the bases from: the host copy when loaded (always, for a key made
  // in memory), else the file.
  const groth16::KeySource& key_source() const;
  // Host memory the entry holds now (the zkey, or the host copy once loaded).
  uint64_t bytes() const;

  // Set by the SrsManager: loads the host copy (with its reservation riding in the deleter).
  std::function<Result<std::shared_ptr<const groth16::ProvingKey>>(int priority,
                                                                   const std::function<bool()>& cancelled)>
      load_host;
  uint64_t zkey_bytes = 0;

 private:
  mutable std::mutex load_mu_;  // held for a host copy's whole load
  mutable std::mutex host_mu_;  // held briefly: host_ and host_source_
  mutable std::shared_ptr<const groth16::ProvingKey> host_;
  mutable std::optional<groth16::MemoryKeySource> host_source_;  // over *host_, once loaded
};

using SrsHandle = std::shared_ptr<const SrsEntry>;

struct SrsManagerOptions {
  bool check_subgroups = false;
  double eviction_min_idle_s = 300;
  // Load bellperson keys' host copies at acquire (the CPU proves). False when GPUs prove: they
  // stream the bases from the file, and a host copy is loaded only when a CPU needs it.
  bool host_keys = true;
  // Called after each load (not for keys already loaded) with its seconds and whether it
  // succeeded: the engine's metrics.
  std::function<void(double seconds, bool ok)> on_load = {};
};

// What the test-only setup made for a circuit.
struct TestKeys {
  // The key, when it was made in memory (with its budget reservation in the deleter); null when it
  // was written to the circuit's params_path and vk_path instead.
  std::shared_ptr<const groth16::ProvingKey> memory;
};

class SrsManager {
 public:
  // Makes the keys of a circuit whose key files do not exist yet (the test-only setup); called
  // outside the manager's lock, with the acquire's priority and cancellation (for the memory
  // budget, when the key is made in memory).
  using KeyMaker =
      std::function<Result<TestKeys>(const CircuitDef&, int priority, const std::function<bool()>& cancelled)>;

  SrsManager(MemoryBudget& budget, SrsManagerOptions options, KeyMaker make_keys);
  ~SrsManager();

  // The circuit's keys, loading them if needed (waiting for budget at `priority`; `cancelled` is
  // polled while waiting). *loaded_ms: the time this call spent loading (0 on a hit).
  Result<SrsHandle> acquire(const CircuitDef& def, int priority, const std::function<bool()>& cancelled,
                            uint64_t* loaded_ms);
  bool is_loaded(const std::string& circuit_id) const;
  // The loaded entry, or null; never loads.
  SrsHandle peek(const std::string& circuit_id) const;
  // Drops the entry (memory returns when the last job holding it finishes). was_loaded=false when
  // absent.
  EvictResult evict(const std::string& circuit_id);
  // The evictor for the memory budget: drops idle entries (nobody holds them, unused for at least
  // eviction_min_idle_s), least recently used first, until `needed` bytes were freed. Returns the
  // bytes freed.
  uint64_t evict_idle(uint64_t needed);
  std::vector<SrsInfo> status() const;
  // SrsManagerOptions::host_keys, for entries loaded from now on (the engine knows whether GPUs
  // prove only once it has looked for them).
  void set_host_keys(bool host_keys);

 private:
  struct Slot {
    SrsHandle entry;  // null while loading or after a failed load
    bool loading = false;
    std::chrono::steady_clock::time_point last_used;
  };
  Result<SrsHandle> load(const CircuitDef& def, int priority, const std::function<bool()>& cancelled);

  MemoryBudget& budget_;
  SrsManagerOptions options_;
  KeyMaker make_keys_;
  mutable std::mutex mu_;
  std::condition_variable loaded_cv_;
  std::map<std::string, Slot> slots_;
  std::atomic<bool> host_keys_;
};

}  // namespace cuzk::engine
