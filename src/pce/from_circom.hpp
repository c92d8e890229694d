#pragma once
// circom circuits as PCEs. circom numbers wires 0 = ONE, then the public outputs and public inputs,
// then private inputs and internal signals; that is already our unified column order (inputs first),
// so wire w is column w, num_inputs = 1 + nPubOut + nPubIn and a .wtns witness is z as it is.
// After the file's constraints come the Groth16 input constraints (A = wire i, B = C = 0 for
// i = 0..nPublic), as snarkjs' `groth16 setup` appends them (shared/reference/snarkjs-formats.md).
#include <string>

#include "pce/build.hpp"
#include "r1cs/circom_r1cs.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "util/result.hpp"

namespace cuzk::pce {

// Rows are normalized: terms sorted by wire, repeated wires summed, zero sums dropped.
r1cs::CompactR1cs compact_from_circom(const circom::CircomR1cs& r1cs);

// load_r1cs + compact_from_circom + build_pce; circuit_id defaults to "circom:<file stem>".
Result<Pce> pce_from_circom_file(const std::string& r1cs_path, BuildOptions options = {});

}  // namespace cuzk::pce
