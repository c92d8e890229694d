#pragma once
// The FallbackPoSt partition circuit as the prover consumes it (as porep_synthesis.hpp does for
// PoRep): the blank circuit recorded (for the PCE and the test-only setup), and per request the
// witness (native, post_witness.hpp; or through WitnessCS) or the full synthesis (ProvingCS) from
// its validated vanilla proofs.
#include <span>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/post_witness.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// The blank circuit of a shape under RecordingCS, sector after sector, finalized (input
// constraints appended). Every proof of one type and sector size has this circuit.
r1cs::CompactR1cs record_post_circuit(const PostCircuitShape& shape);
r1cs::CompactR1cs record_post_circuit(const RegisteredPostProof& proof);

// The same matrices from one recorded sector: the blank circuit's sectors are identical in
// structure and name only ONE and their own variables, so sector 0 is recorded once and copied,
// renumbered, for the others on `pool` (r1cs/segment_merge.hpp). What the engine and the CLI
// extract the PCE from (32 GiB Window: one sector of 53 k constraints recorded instead of 125 M);
// tests check it is identical to record_post_circuit.
r1cs::CompactR1cs record_post_circuit_replicated(const PostCircuitShape& shape, ThreadPool& pool);
r1cs::CompactR1cs record_post_circuit_replicated(const RegisteredPostProof& proof, ThreadPool& pool);

// The partition's assignment from its vanilla proofs (parse_post_vanilla validated them),
// computed natively on `pool` (post_native_assignment).
PostAssignment post_assignment(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs,
                               ThreadPool& pool);
// The same values through the circuit under WitnessCS, on one thread (the reference the native
// path is tested against; several times slower).
PostAssignment synthesize_post_assignment(const PostCircuitShape& shape, const PostCircuitWitness& w);

// Full synthesis (values, a, b, c and the densities, finalized): the path while no PCE exists.
r1cs::ProvingCS synthesize_post(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs);

}  // namespace cuzk::filecoin
