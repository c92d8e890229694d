#pragma once
// A fixed pool of worker threads with a blocking parallel_for. One process-wide pool serves the
// arithmetic layers; its size is set once (e.g. by `cuzk speed --threads N`) before first use.
#include <condition_variable>
#include <cstddef>
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
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls body(i) for i in [0, n), spreading the indices over the pool and the calling thread;
  // returns when all calls are done. Rethrows the first exception a call raised. Nested calls from
  // inside a body run serially on the calling thread.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

  // Splits [0, n) into about `size()` contiguous chunks (at least `grain` long) and calls
  // body(begin, end) for each.
  void parallel_chunks(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body);

  // The process-wide pool; its size defaults to the hardware concurrency.
  static ThreadPool& global();
  // Sets the size of the global pool; only effective before global() is first called.
  static void set_global_threads(unsigned threads);

 private:
  void worker_loop(int lower_priority);
  void run_tasks();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_start_, cv_done_;
  const std::function<void(size_t)>* body_ = nullptr;
  size_t n_ = 0;
  size_t next_ = 0;
  size_t done_ = 0;
  size_t generation_ = 0;
  unsigned active_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::mutex call_mu_;  // one parallel_for at a time
};

}  // namespace cuzk
