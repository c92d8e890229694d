#pragma once
// Reader for circom's .r1cs files (iden3 binfile "r1cs", version 1), see
// shared/reference/snarkjs-formats.md section 4.2. Only the BLS12-381 scalar field is accepted for
// now (circom --prime bls12381); any other prime or field size is rejected with a message naming it.
//
// Sections 1 (header), 2 (constraints) and 3 (wire-to-label map) must each appear exactly once, in
// any order; sections 4/5 (custom gates, PLONK only) are refused; other section ids are skipped.
//
// Wire order (circom): 0 = the constant 1, then nPubOut public outputs, nPubIn public inputs, nPrvIn
// private inputs, then internal signals. A constraint is <A,w> * <B,w> = <C,w>.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ff/bls12_381.hpp"
#include "util/result.hpp"

namespace cuzk::circom {

using Fr = ff::Fr;

struct Constraint {
  // (wire id, coefficient), in file order; wire ids < n_wires, coefficients reduced (canonical).
  std::vector<std::pair<uint32_t, Fr>> a, b, c;
};

struct CircomR1cs {
  uint32_t n8 = 0;  // bytes per field element (32)
  uint32_t n_wires = 0;
  uint32_t n_pub_out = 0;
  uint32_t n_pub_in = 0;
  uint32_t n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  std::vector<Constraint> constraints;  // n_constraints entries
  std::vector<uint64_t> wire_to_label;  // n_wires entries (section 3)

  // Public values without the constant: outputs then public inputs (w[1..n_public]).
  uint64_t n_public() const { return uint64_t{n_pub_out} + n_pub_in; }
};

// `name` (a path, or e.g. "<memory>") prefixes every error message.
Result<CircomR1cs> parse_r1cs(std::span<const uint8_t> bytes, std::string_view name = "<r1cs>");
Result<CircomR1cs> load_r1cs(const std::string& path);

// Checks <A,w> * <B,w> = <C,w> for every constraint, w.size() == n_wires and w[0] == 1. Returns the
// number of constraints checked, or an error naming the first failing constraint.
Result<uint64_t> check_witness(const CircomR1cs& r1cs, std::span<const Fr> w);

}  // namespace cuzk::circom
