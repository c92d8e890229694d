#pragma once
// The daemon's one memory budget: resident SRS and PCE entries and every partition's working set
// draw from it. Work waits for room instead of exceeding it (backpressure). Waiters are served in
// priority order (then arrival), so a CRITICAL partition is not starved by a queue of NORMAL ones;
// an evictor (the SRS/PCE caches) is asked to free idle entries before anyone waits.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "util/result.hpp"

namespace cuzk::engine {

class MemoryBudget;

// Bytes held from a budget; returned when released or destroyed (RAII). Movable, not copyable.
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&& o) noexcept;
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation();

  uint64_t bytes() const { return bytes_; }
  // Returns min(n, bytes()) bytes to the budget now (a stage freed its buffers).
  void release(uint64_t n);
  void release_all() { release(bytes_); }
  // Moves min(n, bytes()) of this reservation into a new one (a part that is freed elsewhere).
  Reservation split(uint64_t n);

 private:
  friend class MemoryBudget;
  Reservation(MemoryBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
  MemoryBudget* budget_ = nullptr;
  uint64_t bytes_ = 0;
};

class MemoryBudget {
 public:
  // Asked for at least `needed` bytes; frees what it can (idle cache entries) and returns the
  // number of bytes it released back to this budget. Called without the budget's lock held, by
  // one thread at a time. The bytes come back through the evicted entries' Reservations; the
  // return value is only informational.
  using Evictor = std::function<uint64_t(uint64_t needed)>;

  explicit MemoryBudget(uint64_t limit_bytes);
  ~MemoryBudget();  // all reservations must be gone (asserts in debug builds)

  uint64_t limit() const { return limit_; }
  uint64_t used() const;
  uint64_t peak_used() const;
  size_t waiters() const;
  // Reservations that had to wait for room since start (blocked behind others or for eviction):
  // how often the budget held work back.
  uint64_t waits() const;

  void set_evictor(Evictor evictor);

  // Waits until `bytes` fit (evicting first), in order of `priority` (higher first), then arrival.
  // Fails at once, with a message naming both sizes, when bytes > limit. Fails when `cancelled`
  // returns true (polled at least every 50 ms and on every release) or when the deadline passes.
  Result<Reservation> acquire(
      uint64_t bytes, int priority = 0, const std::function<bool()>& cancelled = {},
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());
  // One attempt (with eviction), no waiting, at priority 0: it does not overtake queued waiters
  // of priority >= 0.
  Result<Reservation> try_acquire(uint64_t bytes);

  // Wakes waiters so that they re-check their cancel predicates.
  void poke();

 private:
  friend class Reservation;
  // One blocked acquire(); lives on the waiting thread's stack while it is queued.
  struct Waiter {
    uint64_t bytes = 0;
    bool granted = false;
    std::condition_variable cv;
  };
  // Queue order: higher priority first, then earlier arrival.
  struct WaitKey {
    int priority;
    uint64_t seq;
    bool operator<(const WaitKey& o) const { return priority != o.priority ? priority > o.priority : seq < o.seq; }
  };
  using WaitQueue = std::map<WaitKey, Waiter*>;

  Result<Reservation> acquire_impl(uint64_t bytes, int priority, const std::function<bool()>& cancelled,
                                   std::chrono::steady_clock::time_point deadline, bool wait);
  void give_back(uint64_t bytes);
  // Grants queued waiters strictly in order while the head fits; the caller holds mu_.
  void grant_locked();
  // Bytes the evictor must free so that every waiter up to and including `upto` fits (mu_ held).
  uint64_t shortfall_locked(WaitQueue::const_iterator upto) const;
  // Runs the evictor unless another thread is; returns what it reported freeing. Takes the lock
  // `lk` (holding mu_), releases it around the call and holds it again on return.
  uint64_t evict_unlocked(std::unique_lock<std::mutex>& lk, uint64_t needed);
  std::string state_locked() const;

  const uint64_t limit_;
  mutable std::mutex mu_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t waits_ = 0;
  WaitQueue queue_;
  std::shared_ptr<const Evictor> evictor_;  // copied out under mu_ so set_evictor may race with calls
  bool evicting_ = false;
};

// The budget the engine runs with: memory.total_budget, or for "auto" (0) MemTotal minus
// memory.safety_margin (half of MemTotal when that leaves less than 1 GiB; 16 GiB when MemTotal
// cannot be read). `mem_total` is /proc/meminfo's MemTotal in bytes, 0 when unknown.
uint64_t effective_budget(uint64_t total_budget, uint64_t safety_margin, uint64_t mem_total);

// "1.5 GiB", "512.0 MiB", "4.0 KiB", "100 B": for messages.
std::string format_bytes(uint64_t bytes);

}  // namespace cuzk::engine
