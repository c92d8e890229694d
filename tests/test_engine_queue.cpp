#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/work_queue.hpp"

using cuzk::engine::WorkKey;
using cuzk::engine::WorkQueue;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Item {
  uint64_t job = 0;
  uint32_t partition = 0;
  int tag = 0;
};

}  // namespace

TEST(WorkQueue, PopOrderIsPriorityThenJobThenPartition) {
  std::vector<WorkKey> keys = {{2, 5, 0}, {2, 5, 1}, {4, 9, 3}, {4, 9, 0}, {2, 3, 7}, {1, 1, 0}, {4, 2, 5}, {3, 8, 2}};
  std::vector<WorkKey> expected = {{4, 2, 5}, {4, 9, 0}, {4, 9, 3}, {3, 8, 2},
                                   {2, 3, 7}, {2, 5, 0}, {2, 5, 1}, {1, 1, 0}};
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(keys.begin(), keys.end(), rng);
    WorkQueue<WorkKey> q;
    for (const auto& k : keys) EXPECT_TRUE(q.push(k, k));
    EXPECT_EQ(q.size(), keys.size());
    for (const auto& want : expected) {
      ASSERT_EQ(q.peek_key(), want);
      auto got = q.try_pop();
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, want);
    }
    EXPECT_FALSE(q.try_pop().has_value());
    EXPECT_FALSE(q.peek_key().has_value());
    EXPECT_TRUE(q.empty());
  }
}

TEST(WorkQueue, EqualKeysAreAllKeptInPushOrder) {
  WorkQueue<int> q;
  const WorkKey k{2, 7, 0};
  q.push(k, 1);
  q.push({3, 1, 0}, 0);
  q.push(k, 2);
  q.push(k, 3);
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.pop(), 0);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), 3);
}

TEST(WorkQueue, RemoveIfAndCountByPriority) {
  WorkQueue<Item> q;
  for (uint32_t p = 0; p < 4; ++p) q.push({2, 1, p}, Item{1, p, 0});
  for (uint32_t p = 0; p < 3; ++p) q.push({4, 2, p}, Item{2, p, 0});
  q.push({1, 3, 0}, Item{3, 0, 0});
  EXPECT_EQ(q.count_by_priority(), (std::map<int, size_t>{{1, 1}, {2, 4}, {4, 3}}));

  auto removed = q.remove_if([](const Item& it) { return it.job == 1; });
  ASSERT_EQ(removed.size(), 4u);
  for (uint32_t p = 0; p < 4; ++p) {
    EXPECT_EQ(removed[p].job, 1u);
    EXPECT_EQ(removed[p].partition, p) << "removed items come back in pop order";
  }
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.count_by_priority(), (std::map<int, size_t>{{1, 1}, {4, 3}}));
  EXPECT_TRUE(q.remove_if([](const Item& it) { return it.job == 99; }).empty());
  EXPECT_EQ(q.pop()->job, 2u);
}

TEST(WorkQueue, MoveOnlyItems) {
  WorkQueue<std::unique_ptr<std::string>> q;
  q.push({0, 2, 0}, std::make_unique<std::string>("b"));
  q.push({0, 1, 0}, std::make_unique<std::string>("a"));
  auto removed = q.remove_if([](const std::unique_ptr<std::string>& s) { return *s == "b"; });
  ASSERT_EQ(removed.size(), 1u);
  auto a = q.pop();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(**a, "a");
}

TEST(WorkQueue, CloseDrainsThenReturnsNullopt) {
  WorkQueue<int> q;
  q.push({0, 1, 0}, 1);
  q.push({0, 2, 0}, 2);
  EXPECT_FALSE(q.closed());
  q.close();
  EXPECT_TRUE(q.closed());
  EXPECT_FALSE(q.push({9, 0, 0}, 3)) << "pushes after close are refused";
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop_for(10ms), 2);
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_FALSE(q.pop_for(10ms).has_value());
  EXPECT_FALSE(q.try_pop().has_value());
}

TEST(WorkQueue, CloseWakesBlockedConsumers) {
  WorkQueue<int> q;
  std::atomic<int> woke{0};
  std::vector<std::thread> consumers;
  for (int i = 0; i < 3; ++i) {
    consumers.emplace_back([&] {
      EXPECT_FALSE(q.pop().has_value());
      ++woke;
    });
  }
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(woke.load(), 0);
  q.close();
  for (auto& t : consumers) t.join();
  EXPECT_EQ(woke.load(), 3);
}

TEST(WorkQueue, PopForTimesOutAndWakesOnPush) {
  WorkQueue<int> q;
  auto start = Clock::now();
  EXPECT_FALSE(q.pop_for(50ms).has_value());
  EXPECT_GE(Clock::now() - start, 50ms);

  std::thread producer([&] {
    std::this_thread::sleep_for(20ms);
    q.push({0, 0, 0}, 42);
  });
  start = Clock::now();
  EXPECT_EQ(q.pop_for(5000ms), 42);
  EXPECT_LT(Clock::now() - start, 4000ms);
  producer.join();
}

TEST(WorkQueue, MpmcStress) {
  constexpr int kProducers = 4, kConsumers = 4, kPerProducer = 5000;
  WorkQueue<int> q;
  std::vector<std::atomic<int>> seen(kProducers * kPerProducer);
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      while (auto v = q.pop()) ++seen[*v];
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        const int v = p * kPerProducer + i;
        // Few distinct keys: collisions are the norm and must not lose items.
        q.push({i % 3, static_cast<uint64_t>(i % 5), 0}, v);
      }
    });
  }
  for (auto& t : producers) t.join();
  q.close();
  for (auto& t : consumers) t.join();
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << "item " << i;
  EXPECT_EQ(q.size(), 0u);
}

TEST(WorkQueue, CountByGroupsQueuedItemsByAnyKey) {
  WorkQueue<Item> q;
  q.push({2, 1, 0}, Item{1, 0, 7});
  q.push({2, 1, 1}, Item{1, 1, 7});
  q.push({4, 2, 0}, Item{2, 0, 9});
  const auto by_tag = q.count_by([](const Item& i) { return i.tag; });
  EXPECT_EQ(by_tag, (std::map<int, size_t>{{7, 2}, {9, 1}}));
  const auto by_job = q.count_by([](const Item& i) { return std::pair(i.job, i.tag); });
  EXPECT_EQ(by_job.size(), 2u);
  EXPECT_EQ(by_job.at({1, 7}), 2u);
  EXPECT_EQ(q.size(), 3u);  // counting takes nothing
}
