#include "engine/reclaimer.hpp"

namespace cuzk::engine {

Reclaimer::Reclaimer() : thread_([this] { loop(); }) {}

Reclaimer::~Reclaimer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Reclaimer::push(std::unique_ptr<Garbage> g) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(g));
  }
  cv_.notify_one();
}

void Reclaimer::drain() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

void Reclaimer::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and nothing left to free
    std::unique_ptr<Garbage> g = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    g.reset();
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace cuzk::engine
