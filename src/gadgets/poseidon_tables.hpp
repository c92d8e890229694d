#pragma once
// Per-constants tables that a vectorised Poseidon builds from PoseidonConstants (constants split
// into vector limbs and the like), built once per (width, strength, partial rounds) and never
// freed. Every hash asks for them, from many threads at once: a thread remembers the last tables
// it got, so the lock is only taken when the constants change.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets::detail {

// build(c) makes the T for c; each T has its own cache.
template <class T, class Build>
const T& cached_tables(const PoseidonConstants& c, Build&& build) {
  using Key = std::tuple<size_t, int, size_t>;
  const Key key{c.width, static_cast<int>(c.strength), c.partial_rounds};
  thread_local Key last_key{0, 0, 0};
  thread_local const T* last = nullptr;
  if (last != nullptr && last_key == key) return *last;
  static std::mutex mu;
  static std::map<Key, std::unique_ptr<const T>> cache;
  const std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[key];
  if (!slot) slot = std::make_unique<const T>(build(c));
  last_key = key;
  last = slot.get();
  return *slot;
}

}  // namespace cuzk::gadgets::detail
