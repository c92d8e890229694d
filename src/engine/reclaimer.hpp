#pragma once
// Frees spent buffers on a thread of its own. A 32 GiB partition's witness is 4.2 GB, and handing
// it back to the kernel (page-table teardown, ~0.2-0.3 s) on the device stage's thread kept the
// GPU idle that long per partition. The memory stays reserved in the budget until it is freed.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "engine/memory_budget.hpp"

namespace cuzk::engine {

class Reclaimer {
 public:
  Reclaimer();
  ~Reclaimer();  // frees everything handed over before it returns
  Reclaimer(const Reclaimer&) = delete;
  Reclaimer& operator=(const Reclaimer&) = delete;

  // `obj` is destroyed on the reclaimer's thread, then `held` goes back to the budget.
  template <class T>
  void drop(T&& obj, Reservation held = {}) {
    push(std::make_unique<Held<std::decay_t<T>>>(std::forward<T>(obj), std::move(held)));
  }

  // Blocks until everything dropped so far is freed (tests, shutdown).
  void drain();

 private:
  struct Garbage {
    virtual ~Garbage() = default;
  };
  template <class T>
  struct Held final : Garbage {
    Held(T&& o, Reservation r) : held(std::move(r)), obj(std::move(o)) {}
    Reservation held;  // declared first: released after obj is destroyed
    T obj;
  };
  void push(std::unique_ptr<Garbage> g);
  void loop();

  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::unique_ptr<Garbage>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::engine
