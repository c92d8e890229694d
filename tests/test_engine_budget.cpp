#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "engine/memory_budget.hpp"

using cuzk::engine::MemoryBudget;
using cuzk::engine::Reservation;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Spins (briefly sleeping) until cond() holds; fails the test after 5 s rather than hanging.
template <class F>
void wait_until(F cond) {
  const auto give_up = Clock::now() + 5s;
  while (!cond()) {
    ASSERT_LT(Clock::now(), give_up) << "condition not reached";
    std::this_thread::sleep_for(1ms);
  }
}

bool has_part(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

constexpr int kNormal = 2;
constexpr int kCritical = 4;

}  // namespace

TEST(MemoryBudget, AcquireReleaseAccounting) {
  MemoryBudget b(1000);
  EXPECT_EQ(b.limit(), 1000u);
  {
    auto r1 = b.acquire(300);
    ASSERT_TRUE(r1.ok()) << r1.error();
    EXPECT_EQ(r1->bytes(), 300u);
    EXPECT_EQ(b.used(), 300u);
    auto r2 = b.try_acquire(500);
    ASSERT_TRUE(r2.ok()) << r2.error();
    EXPECT_EQ(b.used(), 800u);
    auto r3 = b.try_acquire(201);
    EXPECT_FALSE(r3.ok());
    EXPECT_EQ(b.used(), 800u);

    Reservation moved = std::move(*r2);
    EXPECT_EQ(r2->bytes(), 0u);
    EXPECT_EQ(moved.bytes(), 500u);
    EXPECT_EQ(b.used(), 800u);
    moved = std::move(*r1);  // move-assignment returns what `moved` held
    EXPECT_EQ(b.used(), 300u);
    EXPECT_EQ(moved.bytes(), 300u);
  }
  EXPECT_EQ(b.used(), 0u);
  auto zero = b.acquire(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->bytes(), 0u);
  EXPECT_EQ(b.waiters(), 0u);
}

TEST(MemoryBudget, PartialRelease) {
  MemoryBudget b(100);
  auto r = b.acquire(100);
  ASSERT_TRUE(r.ok());
  r->release(30);
  EXPECT_EQ(r->bytes(), 70u);
  EXPECT_EQ(b.used(), 70u);
  r->release(1000);  // more than held: releases what is left
  EXPECT_EQ(r->bytes(), 0u);
  EXPECT_EQ(b.used(), 0u);
  EXPECT_EQ(b.peak_used(), 100u);
}

TEST(MemoryBudget, MoreThanTheLimitFailsAtOnceNamingBothSizes) {
  MemoryBudget b(1ull << 30);
  const auto start = Clock::now();
  auto r = b.acquire(2ull << 30, kCritical);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_TRUE(has_part(r.error(), "2.0 GiB")) << r.error();
  EXPECT_TRUE(has_part(r.error(), "1.0 GiB")) << r.error();

  MemoryBudget small(512ull << 20);
  auto s = small.try_acquire(600ull << 20);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(has_part(s.error(), "600.0 MiB")) << s.error();
  EXPECT_TRUE(has_part(s.error(), "512.0 MiB")) << s.error();
  EXPECT_EQ(cuzk::engine::format_bytes(100), "100 B");
  EXPECT_EQ(cuzk::engine::format_bytes(3ull << 39), "1.5 TiB");
}

TEST(MemoryBudget, WaitsThenGrantedOnRelease) {
  MemoryBudget b(100);
  auto hold = b.acquire(80);
  ASSERT_TRUE(hold.ok());
  EXPECT_EQ(b.waits(), 0u);  // granted at once
  std::atomic<bool> done{false};
  std::thread t([&] {
    auto r = b.acquire(50);
    EXPECT_TRUE(r.ok());
    done = true;
  });
  wait_until([&] { return b.waiters() == 1; });
  EXPECT_FALSE(done.load());
  hold->release(40);  // 40 + 50 fits
  t.join();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(b.used(), 40u);
  EXPECT_EQ(b.waits(), 1u);
  // A failed try (no waiting) is not a wait.
  EXPECT_FALSE(b.try_acquire(70).ok());
  EXPECT_EQ(b.waits(), 1u);
}

TEST(MemoryBudget, CriticalWaiterQueuedAfterNormalOnesGoesFirst) {
  MemoryBudget b(100);
  auto hold = b.acquire(100);
  ASSERT_TRUE(hold.ok());

  std::mutex mu;
  std::vector<int> order;  // waiter ids in grant order
  std::vector<std::atomic<bool>> release(4);
  auto waiter = [&](int id, int priority) {
    auto r = b.acquire(60, priority);
    ASSERT_TRUE(r.ok()) << r.error();
    {
      std::lock_guard lk(mu);
      order.push_back(id);
    }
    while (!release[id]) std::this_thread::sleep_for(1ms);
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < 3; ++id) {  // three NORMAL waiters, queued one after another
    threads.emplace_back(waiter, id, kNormal);
    wait_until([&] { return b.waiters() == static_cast<size_t>(id) + 1; });
  }
  threads.emplace_back(waiter, 3, kCritical);  // CRITICAL, queued last
  wait_until([&] { return b.waiters() == 4; });

  auto granted = [&] {
    std::lock_guard lk(mu);
    return order;
  };
  hold->release_all();
  // Only one 60-byte waiter fits at a time, so grants follow the queue order exactly.
  const std::vector<int> expected = {3, 0, 1, 2};
  for (size_t i = 0; i < expected.size(); ++i) {
    wait_until([&] { return granted().size() == i + 1; });
    EXPECT_EQ(granted()[i], expected[i]) << "grant #" << i;
    EXPECT_EQ(b.used(), 60u);
    release[expected[i]] = true;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(b.used(), 0u);
}

TEST(MemoryBudget, StrictHeadOfLine) {
  MemoryBudget b(100);
  auto hold = b.acquire(90);
  ASSERT_TRUE(hold.ok());
  std::atomic<bool> big_done{false}, small_done{false};
  std::atomic<int> holding{0};
  std::atomic<bool> finish{false};
  std::thread big([&] {
    auto r = b.acquire(50, 5);
    EXPECT_TRUE(r.ok());
    big_done = true;
    ++holding;
    while (!finish) std::this_thread::sleep_for(1ms);  // hold until the test has looked
  });
  wait_until([&] { return b.waiters() == 1; });
  std::thread small([&] {
    auto r = b.acquire(5, 1);  // fits (90 + 5 <= 100) but is behind the big one
    EXPECT_TRUE(r.ok());
    small_done = true;
    ++holding;
    while (!finish) std::this_thread::sleep_for(1ms);
  });
  wait_until([&] { return b.waiters() == 2; });
  std::this_thread::sleep_for(120ms);  // longer than the 50 ms poll: nobody may sneak in meanwhile
  EXPECT_FALSE(small_done.load());
  EXPECT_FALSE(big_done.load());
  EXPECT_EQ(b.used(), 90u);
  // try_acquire (priority 0) is behind the priority-5 waiter too.
  EXPECT_FALSE(b.try_acquire(5).ok());
  EXPECT_EQ(b.waiters(), 2u);

  hold->release_all();
  wait_until([&] { return holding == 2; });
  EXPECT_EQ(b.used(), 55u) << "both fit once the 90 bytes are back";
  finish = true;
  big.join();
  small.join();
  EXPECT_TRUE(big_done && small_done);
  EXPECT_EQ(b.used(), 0u);
}

TEST(MemoryBudget, CancelPredicate) {
  MemoryBudget b(100);
  auto hold = b.acquire(90);
  ASSERT_TRUE(hold.ok());
  std::atomic<bool> cancel{false};
  std::atomic<bool> small_done{false};
  std::optional<cuzk::Result<Reservation>> big_result;
  std::thread big([&] { big_result.emplace(b.acquire(50, 5, [&] { return cancel.load(); })); });
  wait_until([&] { return b.waiters() == 1; });
  std::thread small([&] {
    auto r = b.acquire(5, 1);
    EXPECT_TRUE(r.ok());
    small_done = true;
  });
  wait_until([&] { return b.waiters() == 2; });
  EXPECT_FALSE(small_done.load());

  const auto start = Clock::now();
  cancel = true;  // no release, no poke: the 50 ms poll must notice
  big.join();
  EXPECT_LT(Clock::now() - start, 1s);
  ASSERT_TRUE(big_result.has_value());
  ASSERT_FALSE(big_result->ok());
  EXPECT_TRUE(has_part(big_result->error(), "cancelled")) << big_result->error();
  // The cancelled head left the queue, so the small waiter behind it now fits.
  small.join();
  EXPECT_TRUE(small_done.load());
  EXPECT_EQ(b.waiters(), 0u);
  EXPECT_EQ(b.used(), 90u);

  // poke() wakes a waiter at once to re-check its predicate.
  std::atomic<bool> cancel2{false};
  std::thread t([&] {
    auto r = b.acquire(50, 0, [&] { return cancel2.load(); });
    EXPECT_FALSE(r.ok());
  });
  wait_until([&] { return b.waiters() == 1; });
  cancel2 = true;
  b.poke();
  t.join();
  EXPECT_EQ(b.waiters(), 0u);
}

TEST(MemoryBudget, Deadline) {
  MemoryBudget b(100);
  auto hold = b.acquire(100);
  ASSERT_TRUE(hold.ok());
  const auto start = Clock::now();
  auto r = b.acquire(10, 0, {}, start + 100ms);
  const auto elapsed = Clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has_part(r.error(), "timed out")) << r.error();
  EXPECT_TRUE(has_part(r.error(), "10 B")) << r.error();
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 2s);
  EXPECT_EQ(b.waiters(), 0u);
  // A deadline already in the past still grants what fits at once.
  hold->release(50);
  EXPECT_TRUE(b.acquire(10, 0, {}, start).ok());
}

TEST(MemoryBudget, EvictorFreesBytesThatAreThenUsed) {
  MemoryBudget b(100);
  std::optional<Reservation> cache;  // an idle cache entry holding 80 bytes
  {
    auto r = b.acquire(80);
    ASSERT_TRUE(r.ok());
    cache.emplace(std::move(*r));
  }
  int calls = 0;
  uint64_t asked = 0;
  b.set_evictor([&](uint64_t needed) -> uint64_t {
    ++calls;
    asked = needed;
    EXPECT_EQ(b.used(), calls == 1 ? 80u : 50u);  // would deadlock if the budget's lock were held
    const uint64_t freed = cache ? cache->bytes() : 0;
    cache.reset();
    return freed;
  });
  auto r = b.acquire(50);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(asked, 30u);  // 80 + 50 - 100
  EXPECT_EQ(b.used(), 50u);
  EXPECT_EQ(b.waiters(), 0u);

  // Nothing left to evict: the evictor is still asked before the waiter blocks.
  auto t = b.acquire(60, 0, {}, Clock::now() + 60ms);
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(asked, 10u);
  b.set_evictor({});
}

TEST(MemoryBudget, PeakUsed) {
  MemoryBudget b(1000);
  {
    auto a = b.acquire(300);
    auto c = b.acquire(500);
    EXPECT_EQ(b.peak_used(), 800u);
  }
  auto d = b.acquire(100);
  EXPECT_EQ(b.used(), 100u);
  EXPECT_EQ(b.peak_used(), 800u);
}

TEST(MemoryBudget, ConcurrencyStress) {
  constexpr uint64_t kLimit = 1000;
  MemoryBudget b(kLimit);
  // A cache whose entries hold reservations: workers park some of theirs there, the evictor drops
  // them again (lock order: cache_mu, then the budget's lock inside ~Reservation).
  std::mutex cache_mu;
  std::vector<Reservation> cache;
  std::atomic<int> evicting{0};
  std::atomic<bool> overlap{false};
  b.set_evictor([&](uint64_t needed) -> uint64_t {
    if (evicting.fetch_add(1) != 0) overlap = true;  // at most one thread at a time
    uint64_t freed = 0;
    {
      std::lock_guard lk(cache_mu);
      while (freed < needed && !cache.empty()) {
        freed += cache.back().bytes();
        cache.pop_back();
      }
    }
    evicting.fetch_sub(1);
    return freed;
  });
  std::atomic<bool> over_limit{false};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t + 1);
      for (int i = 0; i < 1000; ++i) {
        const uint64_t bytes = 1 + rng() % 400;
        const int priority = static_cast<int>(rng() % 4);
        // Every 16th request gives up almost at once, to mix abandoned waits into the traffic.
        const bool impatient = rng() % 16 == 0;
        auto r = b.acquire(bytes, priority, {}, impatient ? Clock::now() + 1ms : Clock::time_point::max());
        if (!r.ok()) {
          ++failed;
          continue;
        }
        if (b.used() > kLimit) over_limit = true;
        r->release(bytes / 2);
        if (rng() % 8 == 0) {
          std::lock_guard lk(cache_mu);
          cache.push_back(std::move(*r));
        }
        if (rng() % 2) std::this_thread::yield();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(over_limit.load());
  EXPECT_FALSE(overlap.load());
  cache.clear();
  EXPECT_EQ(b.used(), 0u);
  EXPECT_EQ(b.waiters(), 0u);
  EXPECT_LE(b.peak_used(), kLimit);
  EXPECT_GT(b.peak_used(), 0u);
  b.set_evictor({});
}
