#pragma once
// The fit ladder: how a device prover that does not fit its device (or its gpus.memory_limit) is
// made smaller, one rung at a time, the same for building a prover (placement.cpp) and for saying
// beforehand where a circuit will prove (plan_placement, for `cuzk doctor` and the tests):
//   1. one witness slot instead of two (the next witness's upload no longer hides behind this
//      one's kernels: ~9 % of a 32 GiB stage);
//   2. no MSM window tables (an optional speed-up);
//   3. the G2 MSM on the CPU (its bases and scratch are the part the CPU can take);
//   4. streamed (bellperson keys over a PCE only): the key's bases stay in pinned host memory and
//      cross to the device chunk by chunk, under the cap; the G2 MSM back on the device;
//   5. streamed with the G2 MSM on the CPU.
// Past the last rung the CPU proves (retry_policy.hpp), or the proof fails with gpus.backend = "gpu".
#include <cstdint>
#include <optional>
#include <string>

#include "backend/device_prover.hpp"
#include "groth16/gpu/resident_plan.hpp"
#include "groth16/gpu/streamed_plan.hpp"

namespace cuzk::backend {

// The next rung below `fit` (the ladder starts at `first`), or nullopt at the bottom. `event`
// names the step for the log ("gpu_witness_slots_reduced", ...).
std::optional<FitOptions> lower_fit(const FitOptions& fit, const FitOptions& first, bool can_stream,
                                    std::string* event = nullptr);

enum class Where { Resident, Streamed, Cpu };
const char* where_name(Where w);  // "resident", "streamed", "cpu"

// Where a bellperson circuit proves on a device with `room` bytes for it (its free memory, or
// gpus.memory_limit when smaller), as the ladder would build it.
struct PlacementChoice {
  Where where = Where::Cpu;
  FitOptions fit;                // the rung taken (Resident, Streamed)
  uint64_t device_bytes = 0;     // what the prover takes there
  gpu::ResidentMemory resident;  // the first rung's resident prover (for messages)
  gpu::StreamedPlan streamed;    // the streamed rung's plan (smallest_cap: the least cap that works)
  std::string describe() const;  // "resident, 61.2 GiB (...)", "streamed: pce2, ...", "CPU: ..."
};
PlacementChoice plan_placement(uint64_t room, const groth16::KeySizes& key, const gpu::StreamedShape& shape,
                               const FitOptions& first);

}  // namespace cuzk::backend
