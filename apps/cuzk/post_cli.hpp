#pragma once
// The PoSt side of `cuzk setup | prove | verify` (cmd_post_prove.cpp): the circuit of a registered
// PoSt proof, proving a PoSt request file's partition, and verifying with inputs derived from it.
// And what the commands writing PoSt request files share (cmd_post.cpp, cmd_synth_post.cpp).
#include <string>
#include <vector>

#include "commands.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "pce/pce.hpp"

namespace cuzk::cli {

// "window-post:2KiB" / "winning-post:2KiB": the proof whose circuit that is; nullptr for any other
// circuit name.
const filecoin::RegisteredPostProof* post_proof_of(const std::string& circuit);
// The recorded blank circuit as a Pce, with the time it takes on stderr unless quiet.
pce::Pce post_pce(const filecoin::RegisteredPostProof& proof, const std::string& circuit_id, bool quiet);

// --proof NAME (of --sector-size when both are given), else the default proof of --kind
// window|winning and --sector-size; throws std::invalid_argument naming the option.
const filecoin::RegisteredPostProof& pick_post_proof(const std::string& kind, const std::string& sector_size,
                                                     const std::string& proof);
// 64 hex digits (an optional 0x); throws std::invalid_argument naming the option.
filecoin::Bytes32 parse_hex32_option(const std::string& option, const std::string& hex);

// A request file's proofs, parsed and validated as the daemon does; errors name the file.
struct LoadedPost {
  filecoin::PostRequestFile file;
  std::vector<filecoin::FallbackPostSectorProof> proofs;
  std::vector<ff::Fr> inputs;  // the verifier's, without ONE
};
LoadedPost load_post(const std::string& path);

int post_prove(const Groth16Options& o);
int post_verify(const Groth16Options& o);

}  // namespace cuzk::cli
