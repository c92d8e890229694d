#pragma once
// The PoSt side of `cuzk setup | prove | verify` (cmd_post_prove.cpp): the circuit of a registered
// PoSt proof, proving a PoSt request file's partition, and verifying with inputs derived from it.
#include <string>

#include "commands.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "pce/pce.hpp"

namespace cuzk::cli {

// "window-post:2KiB" / "winning-post:2KiB": the proof whose circuit that is; nullptr for any other
// circuit name.
const filecoin::RegisteredPostProof* post_proof_of(const std::string& circuit);
// The recorded blank circuit as a Pce.
pce::Pce post_pce(const filecoin::RegisteredPostProof& proof, const std::string& circuit_id);

int post_prove(const Groth16Options& o);
int post_verify(const Groth16Options& o);

}  // namespace cuzk::cli
