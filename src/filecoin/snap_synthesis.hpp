#pragma once
// The SnapDeals partition circuit as the prover consumes it (as post_synthesis.hpp does for PoSt):
// the blank circuit recorded (for the PCE and the test-only setup), and per partition of a
// validated request its witness (native, snap_witness.hpp; or through WitnessCS) or its full
// synthesis (ProvingCS, while no PCE exists).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "filecoin/snap_circuit.hpp"
#include "filecoin/snap_validate.hpp"
#include "filecoin/snap_vanilla.hpp"
#include "filecoin/snap_witness.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// The blank circuit of a shape under RecordingCS, finalized (input constraints appended). Every
// partition of every request of one sector size has this circuit.
r1cs::CompactR1cs record_snap_circuit(const SnapCircuitShape& shape);
// Where record_snap_circuit_parallel's time goes. The head is recorded on one thread, then the
// jobs concurrently (the longest bounds that phase: the critical path), then they are merged.
struct SnapRecordStats {
  struct Job {
    std::string name;  // "apex hashes 1-8", "partition path", "challenge 12"
    uint64_t constraints = 0;
    double seconds = 0;
  };
  uint64_t head_constraints = 0;
  double head_seconds = 0, jobs_seconds = 0, merge_seconds = 0;
  std::vector<Job> jobs;
};

// Apex tree hashes per job (~45 K constraints each): 8 keep an apex job (0.36 M) under a 32 GiB
// challenge (0.87 M), so that neither is the critical path's largest piece.
inline constexpr size_t kSnapApexHashesPerJob = 8;

// The same matrices, byte for byte, with the challenges and the apex PoR (its tree hashes, in jobs
// of apex_hashes_per_job, and its partition path) recorded concurrently on `pool` and merged
// (r1cs/segment_merge.hpp); defined in snap_circuit_instances.cpp. stats: where the time went.
r1cs::CompactR1cs record_snap_circuit_parallel(const SnapCircuitShape& shape, ThreadPool& pool,
                                               SnapRecordStats* stats = nullptr,
                                               size_t apex_hashes_per_job = kSnapApexHashesPerJob);

// Partition k's values (inputs with ONE first, aux) from its proof, which validate_snap_vanilla
// accepted with `ctx`, computed natively on `pool` (snap_native_assignment).
SnapAssignment snap_assignment(const SnapRequestContext& ctx, const SnapPartitionProof& proof, uint32_t k,
                               ThreadPool& pool);
// The same values through the circuit under WitnessCS, on one thread (the reference the native
// path is tested against).
SnapAssignment synthesize_snap_assignment(const SnapCircuitShape& shape, const SnapPartitionWitness& w);

// Full synthesis of partition k (values, a, b, c and the densities, finalized).
r1cs::ProvingCS synthesize_snap(const SnapRequestContext& ctx, const SnapPartitionProof& proof, uint32_t k);

}  // namespace cuzk::filecoin
