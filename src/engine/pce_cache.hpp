#pragma once
// Pre-compiled circuits (PCE, src/pce) held by the daemon. At start every .pce file of the PCE
// directory is opened (mmap; header, checksums and structure validated); a bad file is reported
// and skipped, never fatal. A circuit without a Pce is extracted on first use: built-in circuits
// in the background (their requests are served by full synthesis meanwhile), circom .r1cs files
// at once (a conversion, not a synthesis). Extracted files are written atomically (save_pce) so a
// crash never leaves a torn file. Entries count against the memory budget while loaded and are
// evicted, least recently used first, when the budget needs room and nobody uses them.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/circuit_registry.hpp"
#include "engine/engine_api.hpp"
#include "engine/memory_budget.hpp"
#include "pce/pce.hpp"

namespace cuzk::engine {

using PceHandle = std::shared_ptr<const pce::Pce>;

struct PceCacheOptions {
  std::string dir;
  bool verify_checksums = true;
  bool extract_on_first_use = true;
  double eviction_min_idle_s = 300;
  Operations* operations = nullptr;  // lists each extraction while it runs (GetStatus)
  // Called after each load with its source ("file": a cached .pce opened; "extract": extracted,
  // saved and opened), its seconds and whether it succeeded: the engine's metrics.
  std::function<void(const char* source, double seconds, bool ok)> on_load = {};
};

class PceCache {
 public:
  PceCache(MemoryBudget& budget, PceCacheOptions options);
  ~PceCache();  // waits for running extractions

  // Opens every *.pce file in the directory (creating the directory if missing). Returns how many
  // files were loaded; bad files are logged and skipped.
  size_t scan();

  // The circuit's Pce. Built-in circuits: the cached one, or null while it is being extracted
  // (extraction starts in the background when enabled) -- unless `wait` is set, in which case
  // this extracts (or waits for the running extraction) and returns it. Other sources: loaded or
  // converted now. Errors name the file and the failed check.
  Result<PceHandle> get(const CircuitDef& def, bool wait = false);

  // The loaded Pce, or null; never loads or extracts.
  PceHandle peek(const std::string& circuit_id) const;

  uint64_t evict_idle(uint64_t needed);
  std::vector<PceInfoStatus> status() const;
  // Blocks until no extraction runs (tests; shutdown).
  void wait_idle();
  uint64_t extractions_done() const;

 private:
  enum class State { OnDisk, Loading, Loaded, Extracting, Failed };
  struct Slot {
    State state = State::OnDisk;
    std::string path;
    PceHandle handle;
    uint64_t bytes = 0;
    std::string error;
    std::chrono::steady_clock::time_point last_used;
  };
  Result<PceHandle> open_file(const std::string& id, const std::string& path, bool check_id);
  // open_file for a cached file, reported to on_load as a "file" load.
  Result<PceHandle> open_cached(const std::string& id, const std::string& path, bool check_id);
  // Extracts, saves and opens the circuit's Pce, as an operation (started, stepped, ended).
  Result<PceHandle> extract(const CircuitDef& def);
  Result<PceHandle> build_and_save(const CircuitDef& def, Operations::Handle& op);
  void extract_in_background(const CircuitDef& def);
  // The steps of get(), each with mu_ held on entry and on return (released while files are read
  // or a Pce is built). settle: waits out a load or extraction in flight; a result unless the slot
  // is OnDisk. load_existing: opens the circuit's file; a result unless there is none or it was a
  // bad cached one (then extracted again). extract_now: extracts here and records the outcome.
  std::optional<Result<PceHandle>> settle(std::unique_lock<std::mutex>& lock, const CircuitDef& def, bool wait);
  std::optional<Result<PceHandle>> load_existing(std::unique_lock<std::mutex>& lock, const CircuitDef& def);
  Result<PceHandle> extract_now(std::unique_lock<std::mutex>& lock, const CircuitDef& def);

  MemoryBudget& budget_;
  PceCacheOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Slot> slots_;
  std::vector<std::thread> extractors_;
  uint64_t extractions_done_ = 0;
  size_t running_ = 0;
};

}  // namespace cuzk::engine
