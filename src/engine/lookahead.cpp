#include "engine/lookahead.hpp"

namespace cuzk::engine {

SlotToken& SlotToken::operator=(SlotToken&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = o.owner_;
    o.owner_ = nullptr;
  }
  return *this;
}

void SlotToken::reset() {
  if (owner_ != nullptr) {
    owner_->give_back();
    owner_ = nullptr;
  }
}

void Lookahead::resize(unsigned slots) {
  std::lock_guard lock(mu_);
  free_ = slots;
}

std::optional<SlotToken> Lookahead::take() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return free_ > 0 || closed_; });
  if (closed_) return std::nullopt;
  --free_;
  return SlotToken(this);
}

std::optional<SlotToken> Lookahead::take_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return free_ > 0 || closed_; }) || closed_) return std::nullopt;
  --free_;
  return SlotToken(this);
}

bool Lookahead::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

void Lookahead::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

unsigned Lookahead::free_slots() const {
  std::lock_guard lock(mu_);
  return free_;
}

void Lookahead::give_back() {
  {
    std::lock_guard lock(mu_);
    ++free_;
  }
  cv_.notify_one();
}

}  // namespace cuzk::engine
