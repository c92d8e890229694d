#pragma once
// The SnapDeals side of `cuzk setup | prove | verify` (cmd_snap_prove.cpp): the partition circuit of
// a registered update proof ("snap:2KiB"), proving every partition of a SnapDeals request file
// (`cuzk snap vanilla`, `cuzk synth-snap`), and verifying with inputs derived from it.
#include <string>
#include <vector>

#include "commands.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "filecoin/snap_request_file.hpp"
#include "filecoin/snap_vanilla.hpp"
#include "pce/pce.hpp"

namespace cuzk::cli {

// "snap:2KiB" ... "snap:64GiB": the proof whose partition circuit that is; nullptr for any other
// circuit name (throws std::invalid_argument for a snap: id of another size).
const filecoin::RegisteredUpdateProof* update_proof_of(const std::string& circuit);
// The recorded blank circuit as a Pce, with the time it takes on stderr unless quiet.
pce::Pce snap_pce(const filecoin::RegisteredUpdateProof& proof, bool quiet);

// A request file's proofs, parsed and validated as the daemon does; errors name the file.
struct LoadedSnap {
  filecoin::SnapRequestFile file;
  filecoin::SnapRequestContext ctx;
  std::vector<filecoin::SnapPartitionProof> proofs;
  std::vector<std::vector<ff::Fr>> inputs;  // per partition, the verifier's, without ONE
};
LoadedSnap load_snap(const std::string& path);

int snap_prove(const Groth16Options& o);
int snap_verify(const Groth16Options& o);

}  // namespace cuzk::cli
