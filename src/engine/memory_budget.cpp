#include "engine/memory_budget.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <utility>

namespace cuzk::engine {

namespace {

// The longest a waiter sleeps before it polls its cancel predicate and deadline again.
constexpr std::chrono::milliseconds kPollInterval{50};
// How often the waiter at the head of the queue asks the evictor again: cache entries become
// evictable over time (in use -> idle), so one attempt on arrival is not enough.
constexpr std::chrono::milliseconds kEvictRetry{1000};

}  // namespace

uint64_t effective_budget(uint64_t total_budget, uint64_t safety_margin, uint64_t mem_total) {
  if (total_budget != 0) return total_budget;
  if (mem_total > safety_margin + (1ull << 30)) return mem_total - safety_margin;
  return mem_total != 0 ? mem_total / 2 : 16ull << 30;
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (v >= 1024.0 && unit + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Reservation

Reservation::Reservation(Reservation&& o) noexcept
    : budget_(std::exchange(o.budget_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release_all();
    budget_ = std::exchange(o.budget_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

Reservation::~Reservation() {
  release_all();
}

void Reservation::release(uint64_t n) {
  n = std::min(n, bytes_);
  if (n == 0 || budget_ == nullptr) return;
  bytes_ -= n;
  budget_->give_back(n);
}

Reservation Reservation::split(uint64_t n) {
  n = std::min(n, bytes_);
  bytes_ -= n;
  return Reservation(budget_, n);
}

// ---------------------------------------------------------------------------------------------
// MemoryBudget

MemoryBudget::MemoryBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}

MemoryBudget::~MemoryBudget() {
  // Outstanding reservations would give bytes back to freed memory: a lifetime bug in the caller.
  assert(used_ == 0 && "MemoryBudget destroyed while reservations are outstanding");
  assert(queue_.empty() && "MemoryBudget destroyed while threads wait in acquire()");
}

uint64_t MemoryBudget::used() const {
  std::lock_guard lk(mu_);
  return used_;
}

uint64_t MemoryBudget::peak_used() const {
  std::lock_guard lk(mu_);
  return peak_;
}

size_t MemoryBudget::waiters() const {
  std::lock_guard lk(mu_);
  return queue_.size();
}

uint64_t MemoryBudget::waits() const {
  std::lock_guard lk(mu_);
  return waits_;
}

void MemoryBudget::set_evictor(Evictor evictor) {
  auto p = evictor ? std::make_shared<const Evictor>(std::move(evictor)) : nullptr;
  std::lock_guard lk(mu_);
  evictor_ = std::move(p);
}

void MemoryBudget::poke() {
  std::lock_guard lk(mu_);
  for (auto& [key, w] : queue_) w->cv.notify_one();
}

Result<Reservation> MemoryBudget::acquire(uint64_t bytes, int priority, const std::function<bool()>& cancelled,
                                          std::chrono::steady_clock::time_point deadline) {
  return acquire_impl(bytes, priority, cancelled, deadline, /*wait=*/true);
}

Result<Reservation> MemoryBudget::try_acquire(uint64_t bytes) {
  return acquire_impl(bytes, 0, {}, std::chrono::steady_clock::time_point::max(), /*wait=*/false);
}

Result<Reservation> MemoryBudget::acquire_impl(uint64_t bytes, int priority, const std::function<bool()>& cancelled,
                                               std::chrono::steady_clock::time_point deadline, bool wait) {
  using Clock = std::chrono::steady_clock;
  if (bytes > limit_) {
    return make_error("cannot reserve " + format_bytes(bytes) + ": more than the whole memory budget of " +
                      format_bytes(limit_) + " (raise memory.total_budget or lower the work's size)");
  }
  if (bytes == 0) return Reservation(this, 0);

  std::unique_lock lk(mu_);
  // Every request queues, even when it would fit, so that it cannot overtake earlier or
  // higher-priority waiters; grant_locked() then serves the queue strictly in order.
  Waiter w;
  w.bytes = bytes;
  const auto it = queue_.emplace(WaitKey{priority, next_seq_++}, &w).first;
  grant_locked();

  // Leaves the queue without the bytes; whoever was behind us may now be at the head and fit.
  bool queued = true;
  auto leave_queue = [&] {
    if (!queued || w.granted) return;
    queued = false;
    queue_.erase(it);
    grant_locked();
  };
  // If the evictor or the cancel predicate throws, the exception propagates, but the queue must not
  // keep a pointer to `w`.
  struct Guard {
    std::unique_lock<std::mutex>& lk;
    decltype(leave_queue)& leave;
    ~Guard() {
      if (!lk.owns_lock()) lk.lock();
      leave();
    }
  } guard{lk, leave_queue};
  auto give_up = [&](const std::string& why) -> Result<Reservation> {
    leave_queue();
    return make_error(why + " " + format_bytes(bytes) + " of memory (" + state_locked() + ")");
  };

  // Before blocking: ask the caches to free enough for everyone up to and including us.
  if (!w.granted) evict_unlocked(lk, shortfall_locked(it));
  if (w.granted) return Reservation(this, bytes);
  if (!wait) return give_up("not enough room now for");

  ++waits_;
  auto last_evict = Clock::now();
  for (;;) {
    // The predicate is user code: call it without our lock so that it may take its own locks.
    if (cancelled) {
      lk.unlock();
      const bool stop = cancelled();
      lk.lock();
      if (w.granted) break;
      if (stop) return give_up("cancelled while waiting for");
    }
    const auto now = Clock::now();
    if (now >= deadline) return give_up("timed out waiting for");
    if (queue_.begin() == it && evictor_ && !evicting_ && now - last_evict >= kEvictRetry) {
      last_evict = now;
      evict_unlocked(lk, shortfall_locked(it));
      if (w.granted) break;
      continue;
    }
    // Grants happen under mu_ and set w.granted, so checking it before each wait loses no wake-up.
    const auto until = (deadline - now > kPollInterval) ? now + kPollInterval : deadline;
    w.cv.wait_until(lk, until);
    if (w.granted) break;
  }
  return Reservation(this, bytes);
}

void MemoryBudget::give_back(uint64_t bytes) {
  std::lock_guard lk(mu_);
  assert(bytes <= used_);
  used_ -= std::min(bytes, used_);
  grant_locked();
  // Every release also wakes the remaining waiters so that they poll their cancel predicates.
  // Notifying under the lock matters: a waiter's cv lives on its stack and is gone once it returns.
  for (auto& [key, w] : queue_) w->cv.notify_one();
}

void MemoryBudget::grant_locked() {
  while (!queue_.empty()) {
    Waiter* head = queue_.begin()->second;
    if (head->bytes > limit_ - used_) break;  // strict order: nobody behind the head may overtake it
    used_ += head->bytes;
    peak_ = std::max(peak_, used_);
    head->granted = true;
    queue_.erase(queue_.begin());
    head->cv.notify_one();
  }
}

uint64_t MemoryBudget::shortfall_locked(WaitQueue::const_iterator upto) const {
  uint64_t want = used_;
  for (auto i = queue_.begin();; ++i) {
    want += i->second->bytes;
    if (i == upto) break;
  }
  return want > limit_ ? want - limit_ : 0;
}

uint64_t MemoryBudget::evict_unlocked(std::unique_lock<std::mutex>& lk, uint64_t needed) {
  if (needed == 0 || !evictor_ || evicting_) return 0;
  evicting_ = true;
  const auto evictor = evictor_;  // keeps the function alive even if set_evictor() replaces it meanwhile
  lk.unlock();
  uint64_t freed = 0;
  try {
    // The evictor drops cache entries; their Reservations give the bytes back (give_back takes mu_),
    // which is why it runs without the lock. The return value is informational only.
    freed = (*evictor)(needed);
  } catch (...) {
    lk.lock();
    evicting_ = false;
    throw;
  }
  lk.lock();
  evicting_ = false;
  return freed;
}

std::string MemoryBudget::state_locked() const {
  return format_bytes(used_) + " of " + format_bytes(limit_) + " in use, " + std::to_string(queue_.size()) +
         " other request(s) waiting";
}

}  // namespace cuzk::engine
