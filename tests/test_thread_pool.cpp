#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/thread_pool.hpp"
#include "util/thread_priority.hpp"

using cuzk::ThreadPool;

TEST(ThreadPool, EveryIndexExactlyOnce) {
  for (unsigned threads : {1u, 2u, 5u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (size_t n : {0u, 1u, 7u, 1000u}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(n, [&](size_t i) { hits[i]++; });
      for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    }
  }
}

TEST(ThreadPool, ChunksCoverRange) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(10007);
  pool.parallel_chunks(hits.size(), 100, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) hits[i]++;
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(4);
  std::atomic<int> total{0};
  pool.parallel_for(8, [&](size_t) { pool.parallel_for(8, [&](size_t) { total++; }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ThreadPool, PropagatesExceptions) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.parallel_for(100,
                                 [&](size_t i) {
                                   if (i == 37) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  // The pool stays usable afterwards.
  std::atomic<int> n{0};
  pool.parallel_for(50, [&](size_t) { n++; });
  EXPECT_EQ(n.load(), 50);
}

TEST(ThreadPool, ManyConsecutiveCalls) {
  ThreadPool pool(4);
  long sum = 0;
  for (int r = 0; r < 2000; ++r) {
    std::atomic<long> s{0};
    pool.parallel_for(16, [&](size_t i) { s += static_cast<long>(i); });
    sum += s.load();
  }
  EXPECT_EQ(sum, 2000L * 120);
}

// The workers of a pool asked to run at lower priority report the raised nice value; the caller's
// own priority is untouched (it joins parallel_for at its own priority).
TEST(ThreadPool, WorkersRunAtLowerPriority) {
  const int base = cuzk::current_thread_nice();
  if (base > 19 - 3) GTEST_SKIP() << "this process already runs at nice " << base;
  ThreadPool pool(4, 3);
  std::mutex mu;
  std::vector<int> seen;
  pool.parallel_for(64, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard lk(mu);
    seen.push_back(cuzk::current_thread_nice());
  });
  EXPECT_EQ(cuzk::current_thread_nice(), base);
  bool any_worker = false;
  for (int v : seen) {
    EXPECT_TRUE(v == base || v == base + 3) << v;
    any_worker |= v == base + 3;
  }
  EXPECT_TRUE(any_worker) << "no body ran on a lowered worker";
}

TEST(ThreadPool, LoweringPriorityClampsAt19) {
  std::thread t([] {
    EXPECT_EQ(cuzk::lower_current_thread_priority(100), 19);
    EXPECT_EQ(cuzk::current_thread_nice(), 19);
    EXPECT_EQ(cuzk::lower_current_thread_priority(0), 19);
  });
  t.join();
}
