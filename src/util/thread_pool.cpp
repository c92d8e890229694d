#include "util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>

#include "util/thread_priority.hpp"

namespace cuzk {

namespace {
thread_local bool tl_inside_pool = false;
std::atomic<unsigned> g_requested_threads{0};
}  // namespace

ThreadPool::ThreadPool(unsigned threads, int lower_priority) {
  threads = std::max(1u, threads);
  // A new thread starts at its creator's nice value, so the increment is relative to this one.
  workers_.reserve(threads - 1);
  for (unsigned i = 0; i + 1 < threads; ++i)
    workers_.emplace_back([this, lower_priority] { worker_loop(lower_priority); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_tasks() {
  // Claims indices under the lock in small batches; bodies are coarse (chunks), so contention is low.
  for (;;) {
    size_t i;
    {
      std::lock_guard lk(mu_);
      if (next_ >= n_) return;
      i = next_++;
    }
    try {
      (*body_)(i);
    } catch (...) {
      std::lock_guard lk(mu_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard lk(mu_);
      if (++done_ == n_) cv_done_.notify_all();
    }
  }
}

void ThreadPool::worker_loop(int lower_priority) {
  tl_inside_pool = true;
  if (lower_priority > 0) lower_current_thread_priority(lower_priority);
  size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lk(mu_);
      cv_start_.wait(lk, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++active_;
    }
    run_tasks();
    {
      std::lock_guard lk(mu_);
      --active_;
    }
    cv_done_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (tl_inside_pool || workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::lock_guard call_lk(call_mu_);
  {
    std::lock_guard lk(mu_);
    body_ = &body;
    n_ = n;
    next_ = 0;
    done_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  cv_start_.notify_all();
  tl_inside_pool = true;
  run_tasks();
  tl_inside_pool = false;
  std::exception_ptr err;
  {
    std::unique_lock lk(mu_);
    // Wait for every index and for every worker to leave run_tasks, so body_ is no longer used.
    cv_done_.wait(lk, [&] { return done_ == n_ && active_ == 0; });
    body_ = nullptr;
    err = error_;
  }
  if (err) std::rethrow_exception(err);
}

void ThreadPool::parallel_chunks(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t chunks = std::min<size_t>((n + grain - 1) / grain, size_t{size()} * 4);
  chunks = std::max<size_t>(chunks, 1);
  const size_t per = (n + chunks - 1) / chunks;
  parallel_for(chunks, [&](size_t c) {
    size_t b = c * per, e = std::min(n, b + per);
    if (b < e) body(b, e);
  });
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool([] {
    unsigned t = g_requested_threads.load();
    return t ? t : std::max(1u, std::thread::hardware_concurrency());
  }());
  return pool;
}

void ThreadPool::set_global_threads(unsigned threads) {
  g_requested_threads.store(threads);
}

}  // namespace cuzk
