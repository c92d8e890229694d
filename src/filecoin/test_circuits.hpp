#pragma once
// Named circuits that mirror the reference implementations' own tests, for `cuzk circuit info`
// and for checking our counts against the counts those tests assert. Each is built once under
// RecordingCS (no values). `constraints`, `inputs` (ONE included, as bellperson's
// TestConstraintSystem counts) and `aux` are the whole circuit's; `reference_constraints` is the
// quantity the reference test asserts (some tests subtract their own setup, e.g. the input bits).
#include <cstddef>
#include <string>
#include <vector>

namespace cuzk::filecoin {

struct TestCircuitParams {
  std::string hasher = "sha256";
  size_t arity = 2, sub_arity = 0, top_arity = 0;  // por tree shape (0 = none)
  size_t leaves = 0;                               // por: 0 means 64 × base tree count (por_circuit.rs)
  bool private_root = false;                       // por
  size_t size = 8;                                 // insert / select: number of slots
  size_t bits = 512;                               // sha256: message length in bits
};

struct TestCircuitInfo {
  std::string name;
  size_t constraints = 0, inputs = 0, aux = 0;
  size_t reference_constraints = 0;
  std::string reference;  // what the reference asserts and where
};

// Throws std::invalid_argument for an unknown name or unsupported parameters.
TestCircuitInfo test_circuit_info(const std::string& name, const TestCircuitParams& p);
std::vector<std::string> test_circuit_names();
// One line per circuit, for --help.
std::string test_circuit_help();

}  // namespace cuzk::filecoin
