#pragma once
// The two errors of a device prover that callers route on (one definition for every layer: the
// GPU code throws them, the placement and the retry policy in backend/ catch them).
#include <stdexcept>

namespace cuzk {

// A device error in the middle of a proof (a CUDA failure): the proof may be retried elsewhere.
class DeviceFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device has too little free memory for what a prover would keep resident (raised before any
// upload): free other residents and try again, fit the prover smaller, or prove elsewhere.
class DeviceMemoryShort : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cuzk
