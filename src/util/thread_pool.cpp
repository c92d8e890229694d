#include "util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <utility>

#include "util/thread_priority.hpp"

namespace cuzk {

namespace {
thread_local bool tl_inside_pool = false;
thread_local int tl_call_priority = 0;
std::atomic<unsigned> g_requested_threads{0};
}  // namespace

CallPriority::CallPriority(int priority) : saved_(std::exchange(tl_call_priority, priority)) {}
CallPriority::~CallPriority() {
  tl_call_priority = saved_;
}

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

ThreadPool::Call* ThreadPool::pick() {
  Call* best = nullptr;
  for (Call* c : calls_) {
    if (c->next >= c->n) continue;
    if (!best || c->priority > best->priority || (c->priority == best->priority && c->seq < best->seq)) best = c;
  }
  return best;
}

void ThreadPool::run_index(Call& c, size_t i) {
  std::exception_ptr e;
  try {
    (*c.body)(i);
  } catch (...) {
    e = std::current_exception();
  }
  bool last;
  {
    std::lock_guard lk(mu_);
    if (e && !c.error) c.error = e;
    last = ++c.done == c.n;
  }
  // `c` may be gone once the lock is released after its last index: only the pool is touched.
  if (last) cv_done_.notify_all();
}

void ThreadPool::worker_loop(int lower_priority) {
  tl_inside_pool = true;
  if (lower_priority > 0) lower_current_thread_priority(lower_priority);
  for (;;) {
    Call* c = nullptr;
    size_t i;
    {
      // Indices are claimed one at a time (bodies are coarse: chunks, sectors), and the call is
      // chosen again for each, so a more urgent call gets the next free worker.
      std::unique_lock lk(mu_);
      cv_start_.wait(lk, [&] { return stop_ || (c = pick()) != nullptr; });
      if (stop_) return;
      i = c->next++;
    }
    run_index(*c, i);
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (tl_inside_pool || workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  Call call{.body = &body, .n = n, .priority = tl_call_priority, .seq = 0, .next = 0, .done = 0, .error = nullptr};
  {
    std::lock_guard lk(mu_);
    call.seq = seq_++;
    calls_.push_back(&call);
  }
  cv_start_.notify_all();
  // The caller runs only its own call's indices: its latency never waits on another call's body.
  tl_inside_pool = true;
  for (;;) {
    size_t i;
    {
      std::lock_guard lk(mu_);
      if (call.next >= call.n) break;
      i = call.next++;
    }
    run_index(call, i);
  }
  tl_inside_pool = false;
  std::exception_ptr err;
  {
    std::unique_lock lk(mu_);
    // Every index done: no worker touches `call` any more.
    cv_done_.wait(lk, [&] { return call.done == call.n; });
    std::erase(calls_, &call);
    err = call.error;
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
