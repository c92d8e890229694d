#include "engine/shared_reservations.hpp"

#include <chrono>

#include "util/device_error.hpp"
#include "util/log.hpp"

namespace cuzk::engine {

backend::HostReservation SharedReservations::reserve(const std::string& id, uint64_t bytes) {
  // Under the lock: concurrent builds of one key's provers (one per GPU) reserve its copy once.
  std::lock_guard lock(mu_);
  if (auto it = held_.find(id); it != held_.end()) {
    if (auto h = it->second.lock()) return h;
  }
  auto r = budget_.acquire(bytes, 0, {}, std::chrono::steady_clock::now() + std::chrono::minutes(1));
  if (!r.ok()) {
    throw DeviceMemoryShort("host memory for " + id + " (" + std::to_string(bytes >> 20) +
                            " MiB, the streamed prover's pinned key or vectors): " + r.error());
  }
  auto h = std::make_shared<Held>(Held{std::move(r).value()});
  held_[id] = h;
  for (auto it = held_.begin(); it != held_.end();) it = it->second.expired() ? held_.erase(it) : std::next(it);
  logging::log_event(logging::Level::info, "host_memory_reserved", {{"for", id}, {"bytes", std::to_string(bytes)}});
  return h;
}

}  // namespace cuzk::engine
