#pragma once
// Built-in circuits, for benchmarks and for the main job until the Filecoin circuits land. Each is
// named "<kind>:<constraints>" (the size as a number or as 2^k; the circuit gets close to it from
// below, input constraints included):
//   filecoin-like  booleans, bit packing with ±2^i coefficients, XOR/AND bits, 32-bit additions
//                  and a Poseidon-like row every 8 rounds (examples in example_circuits.hpp);
//                  witness mostly 0/1, like Filecoin's SHA-256-heavy circuits.
//   chain          x_{i+1} = x_i (x_i + 1) + k_i: one constraint per step, full-width witness.
// Both have a few public inputs. The structure is fixed by the spec's seed; the witness by a
// witness seed (the spec's seed unless given), so one circuit proves many different statements.
#include <string>
#include <string_view>
#include <vector>

#include "r1cs/compact_r1cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "util/result.hpp"

namespace cuzk::circuits {

struct BuiltinSpec {
  std::string kind;  // "filecoin-like" or "chain"
  uint64_t constraints = 0;
  uint64_t seed = 1;

  std::string name() const;  // "<kind>:<constraints>"
};

// Parses "<kind>:<size>" with size as decimal or 2^k (k <= 28).
Result<BuiltinSpec> parse_builtin(std::string_view text);
// One line per kind, for --help texts.
std::string builtin_help();

// The circuit's structure (finalized: input constraints appended).
r1cs::CompactR1cs record_builtin(const BuiltinSpec& spec);

struct BuiltinWitness {
  std::vector<r1cs::Fr> inputs;  // ONE first
  std::vector<r1cs::Fr> aux;
};
BuiltinWitness witness_builtin(const BuiltinSpec& spec);
BuiltinWitness witness_builtin(const BuiltinSpec& spec, uint64_t witness_seed);

// Full synthesis (the path without a Pce): witness, a, b, c and the density bitmaps.
r1cs::ProvingCS synthesize_builtin(const BuiltinSpec& spec, uint64_t witness_seed);

}  // namespace cuzk::circuits
