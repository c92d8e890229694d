#pragma once
// A blocking multi-producer multi-consumer priority queue for the engine's stages (synthesis,
// proving, finalize). Items are ordered by WorkKey: higher priority first, then the older job,
// then the lower partition; items with equal keys keep their push order (the seed system keyed a
// map by these fields and silently dropped jobs whose keys collided).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk::engine {

struct WorkKey {
  int priority = 0;        // higher first
  uint64_t job_seq = 0;    // then lower (earlier job)
  uint32_t partition = 0;  // then lower

  // True when *this pops before `o`.
  bool before(const WorkKey& o) const {
    if (priority != o.priority) return priority > o.priority;
    if (job_seq != o.job_seq) return job_seq < o.job_seq;
    return partition < o.partition;
  }
  bool operator==(const WorkKey&) const = default;
};

template <class T>
class WorkQueue {
 public:
  WorkQueue() = default;
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `item`. Returns false, and drops the item, once the queue is closed.
  bool push(WorkKey key, T item) {
    {
      std::lock_guard lk(mu_);
      if (closed_) return false;
      // multimap inserts equal keys after the existing ones: FIFO among equals.
      items_.emplace(key, std::move(item));
    }
    // All: workers wait on different predicates (pop, pop_at_least), one woken could be the
    // wrong kind.
    cv_.notify_all();
    return true;
  }

  // Blocks until an item is available. After close() it still returns the remaining items, then
  // std::nullopt.
  std::optional<T> pop() {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return !items_.empty() || closed_; });
    return take_locked();
  }

  // As pop(), but gives up with std::nullopt after `timeout`.
  std::optional<T> pop_for(std::chrono::milliseconds timeout) {
    std::unique_lock lk(mu_);
    cv_.wait_for(lk, timeout, [&] { return !items_.empty() || closed_; });
    return take_locked();
  }

  // Blocks until the next item has at least `priority` (a worker kept for deadline work); after
  // close() std::nullopt.
  std::optional<T> pop_at_least(int priority) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return closed_ || (!items_.empty() && items_.begin()->first.priority >= priority); });
    if (closed_) return std::nullopt;
    return take_locked();
  }

  // The next item if it has at least `priority`; never blocks.
  std::optional<T> try_pop_at_least(int priority) {
    std::lock_guard lk(mu_);
    if (items_.empty() || items_.begin()->first.priority < priority) return std::nullopt;
    return take_locked();
  }

  // Never blocks.
  std::optional<T> try_pop() {
    std::lock_guard lk(mu_);
    return take_locked();
  }

  // The key of the item pop() would return next.
  std::optional<WorkKey> peek_key() const {
    std::lock_guard lk(mu_);
    if (items_.empty()) return std::nullopt;
    return items_.begin()->first;
  }

  // Removes and returns, in pop order, every item for which pred(const T&) is true (a cancelled
  // job's partitions).
  template <class Pred>
  std::vector<T> remove_if(Pred pred) {
    std::vector<T> out;
    std::lock_guard lk(mu_);
    for (auto it = items_.begin(); it != items_.end();) {
      if (pred(static_cast<const T&>(it->second))) {
        out.push_back(std::move(it->second));
        it = items_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

  size_t size() const {
    std::lock_guard lk(mu_);
    return items_.size();
  }
  bool empty() const { return size() == 0; }

  // Queued items per priority (for metrics and status).
  std::map<int, size_t> count_by_priority() const {
    std::map<int, size_t> out;
    std::lock_guard lk(mu_);
    for (const auto& [key, item] : items_) ++out[key.priority];
    return out;
  }

  // Queued items per key_of(item), e.g. (priority, proof kind) for status.
  template <class F>
  auto count_by(F key_of) const {
    std::map<std::decay_t<std::invoke_result_t<F, const T&>>, size_t> out;
    std::lock_guard lk(mu_);
    for (const auto& [key, item] : items_) ++out[key_of(item)];
    return out;
  }

  // Refuses further pushes and wakes every blocked pop(); queued items can still be popped.
  void close() {
    {
      std::lock_guard lk(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  bool closed() const {
    std::lock_guard lk(mu_);
    return closed_;
  }

 private:
  struct Order {
    bool operator()(const WorkKey& a, const WorkKey& b) const { return a.before(b); }
  };

  std::optional<T> take_locked() {
    if (items_.empty()) return std::nullopt;
    auto node = items_.extract(items_.begin());  // extract: T may be move-only
    return std::optional<T>(std::move(node.mapped()));
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<WorkKey, T, Order> items_;
  bool closed_ = false;
};

}  // namespace cuzk::engine
