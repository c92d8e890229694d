#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/memory_budget.hpp"
#include "engine/reclaimer.hpp"

using cuzk::engine::MemoryBudget;
using cuzk::engine::Reclaimer;

namespace {
// Records the thread and the budget's use at the moment it is destroyed.
struct Probe {
  std::atomic<int>* destroyed;
  std::thread::id* on;
  const MemoryBudget* budget;
  uint64_t* used_then;
  Probe(std::atomic<int>* d, std::thread::id* o, const MemoryBudget* b, uint64_t* u)
      : destroyed(d), on(o), budget(b), used_then(u) {}
  Probe(Probe&& p) noexcept : destroyed(p.destroyed), on(p.on), budget(p.budget), used_then(p.used_then) {
    p.destroyed = nullptr;
  }
  ~Probe() {
    if (!destroyed) return;
    *on = std::this_thread::get_id();
    *used_then = budget->used();
    ++*destroyed;
  }
};
}  // namespace

// The object is destroyed on the reclaimer's thread, and its reservation goes back only after.
TEST(Reclaimer, FreesOnItsOwnThreadThenGivesTheMemoryBack) {
  MemoryBudget budget(1000);
  std::atomic<int> destroyed{0};
  std::thread::id on;
  uint64_t used_then = 0;
  {
    Reclaimer r;
    auto res = budget.acquire(600, 0, [] { return false; });
    ASSERT_TRUE(res.ok());
    cuzk::engine::Reservation all = std::move(res).value();
    cuzk::engine::Reservation part = all.split(400);
    EXPECT_EQ(all.bytes(), 200u);
    EXPECT_EQ(part.bytes(), 400u);
    EXPECT_EQ(budget.used(), 600u);
    r.drop(Probe(&destroyed, &on, &budget, &used_then), std::move(part));
    r.drain();
    EXPECT_EQ(destroyed.load(), 1);
    EXPECT_NE(on, std::this_thread::get_id());
    EXPECT_EQ(used_then, 600u) << "the memory went back before the object was freed";
    EXPECT_EQ(budget.used(), 200u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

// Everything dropped before the destructor is freed by it (shutdown loses nothing), big or small.
TEST(Reclaimer, DestructorFreesEverythingHandedOver) {
  MemoryBudget budget(1 << 20);
  std::atomic<int> destroyed{0};
  std::thread::id on;
  uint64_t used_then = 0;
  {
    Reclaimer r;
    for (int i = 0; i < 50; ++i) {
      r.drop(Probe(&destroyed, &on, &budget, &used_then));
      r.drop(std::vector<uint64_t>(1 << 16, 7));
    }
  }
  EXPECT_EQ(destroyed.load(), 50);
}
