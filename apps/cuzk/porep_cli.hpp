#pragma once
// The PoRep C2 side of `cuzk setup | prove | verify` (cmd_porep.cpp): the circuit of a sector size,
// proving every partition of a C1 output, and verifying with inputs derived from C1.
#include <optional>
#include <string>

#include "commands.hpp"
#include "filecoin/porep_circuit.hpp"
#include "pce/pce.hpp"

namespace cuzk::cli {

// "porep:2KiB", or "porep" with --sector-size; nullopt for any other circuit name.
std::optional<filecoin::PorepCircuitShape> porep_shape_of(const std::string& circuit, const std::string& sector_size);
// The recorded circuit as a Pce, with progress on stderr unless quiet.
pce::Pce porep_pce(const filecoin::PorepCircuitShape& shape, const std::string& circuit_id, bool quiet);

int porep_prove(const Groth16Options& o);
int porep_verify(const Groth16Options& o);

}  // namespace cuzk::cli
