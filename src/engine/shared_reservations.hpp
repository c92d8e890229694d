#pragma once
// Host memory held for device provers, counted in the memory budget: the pinned copy of a streamed
// key's bases (tens of GiB at 32 GiB, one copy shared by every GPU's prover of that key) and a
// streamed prover's host-side vectors. One reservation per id, however many provers share it; it
// goes back when the last of them does (backend::FitOptions::reserve_host).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/device_prover.hpp"
#include "engine/memory_budget.hpp"

namespace cuzk::engine {

class SharedReservations {
 public:
  explicit SharedReservations(MemoryBudget& budget) : budget_(budget) {}
  // The reservation of `id`, made now (waiting up to a minute for room, evicting idle keys and
  // PCEs) when no one holds it. Throws DeviceMemoryShort naming the bytes when the budget has no
  // room: the placement then tries the next rung (or the CPU).
  backend::HostReservation reserve(const std::string& id, uint64_t bytes);

 private:
  struct Held {
    Reservation reservation;
  };
  MemoryBudget& budget_;
  std::mutex mu_;
  std::map<std::string, std::weak_ptr<Held>> held_;
};

}  // namespace cuzk::engine
