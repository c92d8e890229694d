#pragma once
// The lookahead: how many partitions may be synthesized (or synthesizing) ahead of the device
// stage. A synthesis worker takes a slot before it pops a partition; the slot travels with the
// partition as a token and comes back when the token is destroyed: when a prover picks the
// partition up, or on any other way out (the job failed or was cancelled, the queue closed, the
// partition was purged). No code path returns a slot by hand.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace cuzk::engine {

class Lookahead;

// One slot of a Lookahead, returned when destroyed or reset (RAII). Movable, not copyable.
class SlotToken {
 public:
  SlotToken() = default;
  SlotToken(SlotToken&& o) noexcept : owner_(o.owner_) { o.owner_ = nullptr; }
  SlotToken& operator=(SlotToken&& o) noexcept;
  SlotToken(const SlotToken&) = delete;
  SlotToken& operator=(const SlotToken&) = delete;
  ~SlotToken() { reset(); }

  bool held() const { return owner_ != nullptr; }
  // Returns the slot now (no-op when none is held).
  void reset();

 private:
  friend class Lookahead;
  explicit SlotToken(Lookahead* owner) : owner_(owner) {}
  Lookahead* owner_ = nullptr;
};

class Lookahead {
 public:
  explicit Lookahead(unsigned slots = 0) : free_(slots) {}
  Lookahead(const Lookahead&) = delete;
  Lookahead& operator=(const Lookahead&) = delete;

  // Sets the number of slots; only before any is taken (the engine sizes it at start).
  void resize(unsigned slots);
  // Blocks until a slot is free; std::nullopt once closed.
  std::optional<SlotToken> take();
  // As take(), but gives up with std::nullopt after `timeout` (closed() tells the two apart).
  std::optional<SlotToken> take_for(std::chrono::milliseconds timeout);
  bool closed() const;
  // Wakes every take() for good; tokens still held return their slots as usual.
  void close();
  unsigned free_slots() const;

 private:
  friend class SlotToken;
  void give_back();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  unsigned free_ = 0;
  bool closed_ = false;
};

}  // namespace cuzk::engine
