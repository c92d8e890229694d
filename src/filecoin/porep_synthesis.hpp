#pragma once
// The PoRep partition circuit as the prover consumes it: its recorded structure (for the PCE and
// the test-only setup) and, per partition of a C1 output, the witness (WitnessCS: values only, no
// LCs, at native speed) and the public inputs a verifier derives on its own.
#include <cstdint>
#include <vector>

#include "filecoin/c1_output.hpp"
#include "filecoin/porep_circuit.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// The blank circuit under RecordingCS, finalized (input constraints appended). For 32 GiB this is
// ~130 M rows and several GiB; progress is reported per challenge.
r1cs::CompactR1cs record_porep_circuit(const PorepCircuitShape& shape, const PorepProgress& progress = {});
// The same matrices, the challenges recorded concurrently on `pool` (r1cs/segment_merge.hpp);
// progress is called under a lock from the pool's threads. Peak memory is about twice the result.
r1cs::CompactR1cs record_porep_circuit_parallel(const PorepCircuitShape& shape, ThreadPool& pool,
                                                const PorepProgress& progress = {});
// The same matrices from one recorded challenge: the blank circuit's challenges are identical in
// structure (only their variables' numbers differ), so challenge 0 is recorded once and copied,
// renumbered, for the others on `pool`. The fastest extraction (32 GiB: one challenge of ~7 M
// constraints recorded, the rest memory copies); tests check it against the sequential recording.
// `times`, when given, receives the wall seconds of its phases (for bench_porep).
struct ReplicatedTimes {
  double head_s = 0;       // the top circuit
  double challenge_s = 0;  // challenge 0 under RecordingCS
  double merge_s = 0;      // merge_segments: the copies, renumbered, and the input constraints
};
r1cs::CompactR1cs record_porep_circuit_replicated(const PorepCircuitShape& shape, ThreadPool& pool,
                                                  ReplicatedTimes* times = nullptr);

struct PorepAssignment {
  std::vector<Fr> inputs;  // ONE first
  std::vector<Fr> aux;
};

// The full assignment of `partition` (porep_circuit_witness + WitnessCS). The C1 output must be
// validated (parse_c1_* validates).
PorepAssignment porep_assignment(const SealCommitPhase1Output& c1, uint32_t partition);

// Full synthesis of `partition` (values, a, b, c and the density bitmaps, finalized): the prover's
// path while no PCE exists yet (~0.4 us per constraint).
r1cs::ProvingCS synthesize_porep(const SealCommitPhase1Output& c1, uint32_t partition);

// The public inputs of `partition` (without ONE) as a verifier computes them: replica_id, comm_d,
// comm_r from C1, the challenges re-derived from replica_id / seed / comm_r for the proof's
// challenge mode, and every parent index from the SDR graph (bucket and expander graphs of the
// proof's porep_id and API version), not from the columns C1 carries.
std::vector<Fr> porep_verifier_inputs(const SealCommitPhase1Output& c1, uint32_t partition);

}  // namespace cuzk::filecoin
