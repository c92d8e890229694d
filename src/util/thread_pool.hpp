#pragma once
// A fixed pool of worker threads with a blocking parallel_for that any number of threads may call
// at once: the calls share the workers, each caller also running its own call's indices. One
// process-wide pool serves the arithmetic layers; its size is set once (e.g. by `cuzk speed
// --threads N`) before first use. The engine's synthesis workers share another, so a partition
// synthesized alone gets every thread and several share them, the most urgent first.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class ThreadPool {
 public:
  // `lower_priority`: the workers run that many nice levels below the constructing thread (the
  // caller of parallel_for runs at its own priority).
  explicit ThreadPool(unsigned threads, int lower_priority = 0);
  ~ThreadPool();  // no parallel_for may be running
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls body(i) for i in [0, n), spreading the indices over the pool and the calling thread;
  // returns when all calls are done. Rethrows the first exception a call raised. Nested calls from
  // inside a body run serially on the calling thread. A free worker takes its next index from the
  // running call of the highest CallPriority, the oldest among equals.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

  // Splits [0, n) into about `size()` contiguous chunks (at least `grain` long) and calls
  // body(begin, end) for each.
  void parallel_chunks(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body);

  // The process-wide pool; its size defaults to the hardware concurrency.
  static ThreadPool& global();
  // Sets the size of the global pool; only effective before global() is first called.
  static void set_global_threads(unsigned threads);

 private:
  struct Call {
    const std::function<void(size_t)>* body;
    size_t n;
    int priority;
    uint64_t seq;
    size_t next = 0, done = 0;
    std::exception_ptr error;
  };
  void worker_loop(int lower_priority);
  Call* pick();                       // under mu_: the call a free worker serves, or nullptr
  void run_index(Call& c, size_t i);  // runs body(i), then counts it done under mu_

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_start_, cv_done_;
  std::vector<Call*> calls_;  // running parallel_for calls, each on its caller's stack
  uint64_t seq_ = 0;
  bool stop_ = false;
};

// While it lives, the parallel_for calls this thread makes carry `priority` (default 0): a pool
// shared by several callers serves the highest first. Scopes nest; the destructor restores.
class CallPriority {
 public:
  explicit CallPriority(int priority);
  ~CallPriority();
  CallPriority(const CallPriority&) = delete;
  CallPriority& operator=(const CallPriority&) = delete;

 private:
  int saved_;
};

}  // namespace cuzk
