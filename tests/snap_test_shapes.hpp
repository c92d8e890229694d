#pragma once
// The small SnapDeals shape the snap tests share: 1 KiB nodes with 2 partitions of 2 apex leaves
// and 2 challenges (~0.36 M constraints): the partition path and several partitions, with TestCS
// in well under a second per partition.
#include <cstdint>

#include "filecoin/snap_circuit.hpp"

namespace cuzk::filecoin::test {

inline constexpr uint64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

inline SnapCircuitShape snap_two_partitions() {
  SnapCircuitShape s = SnapCircuitShape::of(1024);
  s.partitions = 2;
  s.apex_leaves = 2;
  s.challenges = 2;
  s.validate();
  return s;
}

}  // namespace cuzk::filecoin::test
