#include "engine/pce_cache.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <filesystem>

#include "circuits/builtin.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/post_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "pce/build.hpp"
#include "pce/from_circom.hpp"
#include "pce/pce_file.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A SnapDeals partition's constraints, rounded up from the exact counts of docs/snap.md (asserted
// by test_snap_circuit): what the extraction reserves without counting the circuit first.
uint64_t snap_constraints(uint64_t sector_size) {
  constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;
  if (sector_size <= 32 * 1024) return 7'000'000;
  if (sector_size <= 16 * kMiB) return 10'100'000;
  if (sector_size <= 512 * kMiB) return 57'500'000;
  return sector_size <= 32 * kGiB ? 81'100'000 : 85'100'000;
}

}  // namespace

PceCache::PceCache(MemoryBudget& budget, PceCacheOptions options) : budget_(budget), options_(std::move(options)) {}

PceCache::~PceCache() {
  for (std::thread& t : extractors_) t.join();
}

Result<PceHandle> PceCache::open_file(const std::string& id, const std::string& path, bool check_id) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) return make_error("cannot open PCE file '" + path + "': " + ec.message());
  auto reservation = budget_.try_acquire(size);
  if (!reservation.ok()) {
    // No room even after eviction: wait like any other user of memory.
    reservation = budget_.acquire(size);
    if (!reservation.ok()) return make_error("PCE '" + path + "': " + reservation.error());
  }
  pce::LoadOptions lo;
  lo.mode = pce::LoadOptions::Mode::Mmap;
  lo.verify_checksums = options_.verify_checksums;
  if (check_id) lo.expected_circuit_id = id;
  auto loaded = pce::load_pce(path, lo);
  if (!loaded.ok()) return make_error(loaded.error());
  auto pce = std::make_shared<pce::LoadedPce>(std::move(loaded).value());
  auto res = std::make_shared<Reservation>(std::move(reservation).value());
  pce::LoadedPce* raw = pce.get();
  return PceHandle(raw, [pce = std::move(pce), res](const pce::Pce*) mutable {
    pce.reset();
    res->release_all();
  });
}

Result<PceHandle> PceCache::open_cached(const std::string& id, const std::string& path, bool check_id) {
  const auto t0 = Clock::now();
  Result<PceHandle> r = open_file(id, path, check_id);
  if (options_.on_load) options_.on_load("file", std::chrono::duration<double>(Clock::now() - t0).count(), r.ok());
  return r;
}

size_t PceCache::scan() {
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  if (ec) {
    spdlog::warn("pce_scan dir={} error=\"{}\"", options_.dir, ec.message());
    return 0;
  }
  size_t loaded = 0;
  for (const auto& de : fs::directory_iterator(options_.dir, ec)) {
    if (!de.is_regular_file() || de.path().extension() != ".pce") continue;
    const std::string path = de.path().string();
    auto header = pce::read_pce_header(path);
    if (!header.ok()) {
      spdlog::warn("pce_skip path={} error=\"{}\"", path, header.error());
      continue;
    }
    const std::string id = header->info.circuit_id;
    auto handle = open_cached(id, path, true);
    if (!handle.ok()) {
      spdlog::warn("pce_skip path={} error=\"{}\"", path, handle.error());
      continue;
    }
    std::lock_guard lock(mu_);
    Slot& slot = slots_[id];
    slot.state = State::Loaded;
    slot.path = path;
    slot.bytes = header->file_bytes;
    slot.handle = std::move(handle).value();
    slot.last_used = Clock::now();
    ++loaded;
    spdlog::info("pce_loaded circuit={} path={} bytes={}", id, path, slot.bytes);
  }
  return loaded;
}

Result<PceHandle> PceCache::extract(const CircuitDef& def) {
  Operations::Handle op;
  if (options_.operations) op = options_.operations->start("pce_extract", def.id, "steps");
  const auto t0 = Clock::now();
  const auto report = [&](bool ok) {
    if (options_.on_load) options_.on_load("extract", std::chrono::duration<double>(Clock::now() - t0).count(), ok);
  };
  try {
    Result<PceHandle> r = build_and_save(def, op);
    if (!r.ok()) op.fail(r.error());
    report(r.ok());
    return r;
  } catch (const std::exception& e) {
    op.fail(e.what());
    report(false);
    throw;
  }
}

// Three steps as the operation's progress: record and build the Pce, save it, open it (no finer
// measure: recording has no common progress hook across the circuit sources).
Result<PceHandle> PceCache::build_and_save(const CircuitDef& def, Operations::Handle& op) {
  const auto t0 = Clock::now();
  op.progress(0, 3);
  pce::Pce built;
  if (def.source == CircuitSource::Builtin) {
    // RecordingCS peaks near 100 bytes per constraint for these circuits; reserve it.
    auto transient = budget_.acquire(def.builtin.constraints * 128);
    if (!transient.ok()) return make_error("extracting '" + def.id + "': " + transient.error());
    pce::BuildOptions bo;
    bo.circuit_id = def.id;
    built = pce::build_pce(circuits::record_builtin(def.builtin), bo);
  } else if (def.source == CircuitSource::Porep) {
    const filecoin::PorepCircuitShape shape =
        filecoin::PorepCircuitShape::of(filecoin::default_seal_proof(def.porep_sector_size));
    // RecordingCS holds ~8 bytes per non-zero plus row pointers, ~60 bytes per constraint; a
    // challenge is ~0.54 M constraints per layer plus ~45 k per tree-D level.
    const uint64_t levels = static_cast<uint64_t>(std::countr_zero(shape.nodes));
    const uint64_t est = shape.challenges * (shape.layers * 540'000ull + levels * 45'400ull + 150'000ull);
    auto transient = budget_.acquire(est * 64);
    if (!transient.ok()) return make_error("extracting '" + def.id + "': " + transient.error());
    pce::BuildOptions bo;
    bo.circuit_id = def.id;
    built = pce::build_pce(filecoin::record_porep_circuit_replicated(shape, ThreadPool::global()), bo);
  } else if (def.source == CircuitSource::Post) {
    // A challenge's PoR in tree R is ~177 constraints per bit of the leaf index (Poseidon arity
    // 8: ~530 per level), a sector's commitments 313. Poseidon's dense A rows (6.9 non-zeros per
    // row) make the recorded matrices and the Pce together ~160 bytes per constraint: the 32 GiB
    // WindowPoSt extraction peaks at 20.2 GB (BENCHMARKS.md).
    const filecoin::PostCircuitShape shape = filecoin::PostCircuitShape::of(*def.post_proof);
    const uint64_t bits = static_cast<uint64_t>(std::countr_zero(shape.nodes));
    const uint64_t est = uint64_t{shape.sectors} * (313 + uint64_t{shape.challenges} * (bits * 180 + 16));
    auto transient = budget_.acquire(est * 160);
    if (!transient.ok()) return make_error("extracting '" + def.id + "': " + transient.error());
    pce::BuildOptions bo;
    bo.circuit_id = def.id;
    built = pce::build_pce(filecoin::record_post_circuit_replicated(*def.post_proof, ThreadPool::global()), bo);
  } else if (def.source == CircuitSource::Snap) {
    // Mostly SHA-256 (sparse boolean rows) with Poseidon: RecordingCS and the Pce ~128 bytes per
    // constraint, as the built-ins.
    auto transient = budget_.acquire(snap_constraints(def.update_proof->sector_size) * 128);
    if (!transient.ok()) return make_error("extracting '" + def.id + "': " + transient.error());
    pce::BuildOptions bo;
    bo.circuit_id = def.id;
    built = pce::build_pce(filecoin::record_snap_circuit_parallel(
                               filecoin::SnapCircuitShape::of(def.update_proof->sector_size), ThreadPool::global()),
                           bo);
  } else if (def.source == CircuitSource::R1cs) {
    pce::BuildOptions bo;
    bo.circuit_id = def.id;
    auto p = pce::pce_from_circom_file(def.r1cs_path, bo);
    if (!p.ok()) return make_error(p.error());
    built = std::move(p).value();
  } else {
    return make_error("circuit '" + def.id + "' has no source to extract a PCE from");
  }
  op.progress(1, 3);
  std::error_code ec;
  fs::create_directories(fs::path(def.pce_path).parent_path(), ec);
  auto saved = pce::save_pce(built, def.pce_path);
  if (!saved.ok()) return make_error("saving the PCE of '" + def.id + "': " + saved.error());
  built = {};
  op.progress(2, 3);
  auto handle = open_file(def.id, def.pce_path, true);
  if (handle.ok()) op.progress(3, 3);
  if (handle.ok()) {
    spdlog::info("pce_extracted circuit={} path={} bytes={} seconds={:.3f}", def.id, def.pce_path, saved->file_bytes,
                 std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return handle;
}

void PceCache::extract_in_background(const CircuitDef& def) {
  // Called with mu_ held and the slot marked Extracting.
  ++running_;
  extractors_.emplace_back([this, def] {
    Result<PceHandle> r = make_error("not run");
    try {
      r = extract(def);
    } catch (const std::exception& e) {
      r = make_error(std::string("extraction failed: ") + e.what());
    }
    std::lock_guard lock(mu_);
    Slot& slot = slots_[def.id];
    if (r.ok()) {
      slot.state = State::Loaded;
      slot.handle = *r;
      slot.path = def.pce_path;
      slot.bytes = fs::file_size(def.pce_path);
      slot.last_used = Clock::now();
      ++extractions_done_;
    } else {
      slot.state = State::Failed;
      slot.error = r.error();
      spdlog::warn("pce_extract_failed circuit={} error=\"{}\"", def.id, r.error());
    }
    --running_;
    cv_.notify_all();
  });
}

Result<PceHandle> PceCache::get(const CircuitDef& def, bool wait) {
  if (def.uses_zkey()) return make_error("circuit '" + def.id + "' proves from a zkey and has no PCE");
  std::unique_lock lock(mu_);
  if (auto r = settle(lock, def, wait)) return std::move(*r);
  if (auto r = load_existing(lock, def)) return std::move(*r);
  if (def.synthesizable() && !wait) {
    Slot& s = slots_[def.id];
    if (options_.extract_on_first_use && s.state != State::Extracting) {
      s.state = State::Extracting;
      spdlog::info("pce_extract_start circuit={} (background; full synthesis meanwhile)", def.id);
      extract_in_background(def);
    }
    return PceHandle{};
  }
  return extract_now(lock, def);  // r1cs conversion, or a caller that needs the Pce now
}

std::optional<Result<PceHandle>> PceCache::settle(std::unique_lock<std::mutex>& lock, const CircuitDef& def,
                                                  bool wait) {
  for (;;) {
    Slot& slot = slots_[def.id];
    switch (slot.state) {
      case State::Loaded:
        slot.last_used = Clock::now();
        return slot.handle;
      case State::Loading:
        cv_.wait(lock);
        continue;
      case State::Extracting:
        if (!wait) return PceHandle{};
        cv_.wait(lock);
        continue;
      case State::Failed:
        if (!wait && def.synthesizable()) return PceHandle{};
        if (!def.synthesizable()) return make_error(slot.error);
        slot.state = State::OnDisk;  // waiting caller: try once more
        continue;
      case State::OnDisk:
        return std::nullopt;
    }
  }
}

std::optional<Result<PceHandle>> PceCache::load_existing(std::unique_lock<std::mutex>& lock, const CircuitDef& def) {
  const std::string path = def.pce_path;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (def.source == CircuitSource::Pce) {
      return make_error("PCE file '" + path + "' of circuit '" + def.id + "' does not exist");
    }
    return std::nullopt;
  }
  slots_[def.id].state = State::Loading;
  lock.unlock();
  auto handle = open_cached(def.id, path, def.source != CircuitSource::Pce);
  lock.lock();
  Slot& s = slots_[def.id];
  if (handle.ok()) {
    s.state = State::Loaded;
    s.handle = *handle;
    s.path = path;
    s.bytes = fs::file_size(path, ec);
    s.last_used = Clock::now();
  } else if (def.source == CircuitSource::Pce) {
    s.state = State::Failed;
    s.error = handle.error();
  } else {
    // A bad cached file: report it and extract again (save_pce replaces it atomically).
    spdlog::warn("pce_cache_bad path={} error=\"{}\"", path, handle.error());
    s.state = State::OnDisk;
  }
  cv_.notify_all();
  if (handle.ok() || def.source == CircuitSource::Pce) return handle;
  return std::nullopt;
}

Result<PceHandle> PceCache::extract_now(std::unique_lock<std::mutex>& lock, const CircuitDef& def) {
  slots_[def.id].state = State::Extracting;
  ++running_;
  lock.unlock();
  Result<PceHandle> r = make_error("not run");
  try {
    r = extract(def);
  } catch (const std::exception& e) {
    r = make_error(std::string("extraction failed: ") + e.what());
  }
  lock.lock();
  Slot& done = slots_[def.id];
  --running_;
  if (r.ok()) {
    std::error_code ec;
    done.state = State::Loaded;
    done.handle = *r;
    done.path = def.pce_path;
    done.bytes = fs::file_size(def.pce_path, ec);
    done.last_used = Clock::now();
    ++extractions_done_;
  } else {
    done.state = State::Failed;
    done.error = r.error();
  }
  cv_.notify_all();
  return r;
}

PceHandle PceCache::peek(const std::string& circuit_id) const {
  std::lock_guard lock(mu_);
  auto it = slots_.find(circuit_id);
  return it != slots_.end() && it->second.state == State::Loaded ? it->second.handle : nullptr;
}

uint64_t PceCache::evict_idle(uint64_t needed) {
  std::vector<PceHandle> victims;
  uint64_t freed = 0;
  {
    std::lock_guard lock(mu_);
    std::vector<std::pair<Clock::time_point, std::string>> idle;
    const auto now = Clock::now();
    for (const auto& [id, slot] : slots_) {
      if (slot.state != State::Loaded || slot.handle.use_count() > 1) continue;
      if (std::chrono::duration<double>(now - slot.last_used).count() < options_.eviction_min_idle_s) continue;
      idle.emplace_back(slot.last_used, id);
    }
    std::sort(idle.begin(), idle.end());
    for (const auto& [t, id] : idle) {
      if (freed >= needed) break;
      Slot& slot = slots_[id];
      freed += slot.bytes;
      spdlog::info("pce_evict_idle circuit={} bytes={}", id, slot.bytes);
      victims.push_back(std::move(slot.handle));
      slot.state = State::OnDisk;  // the file stays; the next use maps it again
    }
  }
  victims.clear();
  return freed;
}

std::vector<PceInfoStatus> PceCache::status() const {
  std::lock_guard lock(mu_);
  std::vector<PceInfoStatus> out;
  for (const auto& [id, slot] : slots_) {
    const char* state = slot.state == State::Loaded       ? "loaded"
                        : slot.state == State::Extracting ? "extracting"
                        : slot.state == State::Loading    ? "loading"
                        : slot.state == State::Failed     ? "failed"
                                                          : "on_disk";
    out.push_back(PceInfoStatus{id, slot.bytes, state, slot.path});
  }
  return out;
}

void PceCache::wait_idle() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return running_ == 0; });
}

uint64_t PceCache::extractions_done() const {
  std::lock_guard lock(mu_);
  return extractions_done_;
}

}  // namespace cuzk::engine
