#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
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

// Two threads' calls run at once on one pool: the first call's body waits until the second call has
// run a body (with the calls serialized it would time out, not hang), and every index of each runs
// exactly once.
TEST(ThreadPool, ConcurrentCallsShareTheWorkers) {
  ThreadPool pool(4);
  std::atomic<bool> second_ran{false};
  std::atomic<bool> first_saw_second{false};
  std::vector<std::atomic<int>> a(64), b(64);
  std::thread first([&] {
    pool.parallel_for(a.size(), [&](size_t i) {
      if (i == 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!second_ran && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        first_saw_second = second_ran.load();
      }
      a[i]++;
    });
  });
  // The second call starts while the first is running (its index 0 waits for us).
  while (a[1].load() + a[2].load() + a[63].load() == 0 && !first_saw_second) std::this_thread::yield();
  pool.parallel_for(b.size(), [&](size_t i) {
    b[i]++;
    second_ran = true;
  });
  first.join();
  EXPECT_TRUE(first_saw_second) << "the second call ran only after the first had finished";
  for (auto& h : a) EXPECT_EQ(h.load(), 1);
  for (auto& h : b) EXPECT_EQ(h.load(), 1);
}

// A call with a higher CallPriority gets the free worker ahead of an older, longer call: one
// worker, a call of 400 1-ms indices at priority 0 already running, then a call at priority 3
// whose caller holds its first index until the worker has run one of its indices (so no timing
// decides it; 10 s at most). The worker finishes its current index and runs the urgent call's
// indices, none of the old call's between them, and the urgent call ends long before the old one;
// ignoring the priority (oldest first), the worker would reach it only after the old call.
TEST(ThreadPool, AnUrgentCallGetsTheNextFreeWorker) {
  ThreadPool pool(2);
  std::mutex mu;
  std::vector<std::string> worker_log;  // the worker's indices, in order: "L" or "H"
  const std::thread::id main_id = std::this_thread::get_id();
  std::atomic<std::thread::id> low_caller{};
  std::atomic<int> low_done{0};
  std::atomic<bool> worker_ran_urgent{false};
  auto log = [&](const char* who) {
    const std::thread::id me = std::this_thread::get_id();
    if (me == main_id || me == low_caller.load()) return;
    std::lock_guard lk(mu);
    worker_log.push_back(who);
    if (who[0] == 'H') worker_ran_urgent = true;
  };
  std::thread low([&] {
    low_caller = std::this_thread::get_id();
    pool.parallel_for(400, [&](size_t) {
      log("L");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      low_done++;
    });
  });
  while (low_done.load() < 4) std::this_thread::yield();
  {
    cuzk::CallPriority urgent(3);
    bool held = false;
    pool.parallel_for(20, [&](size_t) {
      log("H");
      if (std::this_thread::get_id() == main_id && !std::exchange(held, true)) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!worker_ran_urgent && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
  }
  const int low_done_when_urgent_finished = low_done.load();
  low.join();
  std::lock_guard lk(mu);
  const auto first_h = std::find(worker_log.begin(), worker_log.end(), "H");
  ASSERT_NE(first_h, worker_log.end()) << "the worker never ran the urgent call";
  const auto last_h = std::find(worker_log.rbegin(), worker_log.rend(), "H").base();
  EXPECT_EQ(std::count(first_h, last_h, std::string("L")), 0) << "the worker went back to the old call in between";
  EXPECT_LT(low_done_when_urgent_finished, 400);
}

// An exception in one call reaches only its caller; a concurrent call completes normally.
TEST(ThreadPool, ExceptionsStayWithTheirCall) {
  ThreadPool pool(3);
  std::atomic<int> ok{0};
  std::thread other([&] {
    EXPECT_NO_THROW(pool.parallel_for(200, [&](size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      ok++;
    }));
  });
  EXPECT_THROW(pool.parallel_for(100,
                                 [&](size_t i) {
                                   std::this_thread::sleep_for(std::chrono::microseconds(50));
                                   if (i == 13) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  other.join();
  EXPECT_EQ(ok.load(), 200);
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
