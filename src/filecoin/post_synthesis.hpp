#pragma once
// The FallbackPoSt partition circuit as the prover consumes it (as porep_synthesis.hpp does for
// PoRep): the blank circuit recorded (for the PCE and the test-only setup), and per request the
// witness (WitnessCS: values only) or the full synthesis (ProvingCS) from its validated vanilla
// proofs.
#include <span>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "r1cs/proving_cs.hpp"

namespace cuzk::filecoin {

// The blank circuit of a registered proof under RecordingCS, finalized (input constraints
// appended). Every proof of one type and sector size has this circuit.
r1cs::CompactR1cs record_post_circuit(const RegisteredPostProof& proof);

struct PostAssignment {
  std::vector<Fr> inputs;  // ONE first
  std::vector<Fr> aux;
};

// The partition's assignment from its vanilla proofs (parse_post_vanilla validated them).
PostAssignment post_assignment(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs);

// Full synthesis (values, a, b, c and the densities, finalized): the path while no PCE exists.
r1cs::ProvingCS synthesize_post(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs);

}  // namespace cuzk::filecoin
