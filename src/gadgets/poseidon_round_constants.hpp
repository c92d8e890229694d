#pragma once
// Poseidon round numbers and round constants, as neptune v11 derives them for BLS12-381's Fr
// (src/round_numbers.rs, src/round_constants.rs, src/lib.rs round_constants()).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ff/bls12_381.hpp"

namespace cuzk::gadgets {

using Fr = ff::Fr;

// Standard is what Filecoin uses (filecoin-hashers POSEIDON_CONSTANTS_*); Strengthened adds 25 %
// partial rounds and exists in neptune for a quick switch should a new attack appear.
enum class PoseidonStrength : uint8_t { Standard, Strengthened };

struct PoseidonRoundNumbers {
  size_t full_rounds;     // R_F (both halves)
  size_t partial_rounds;  // R_P
  friend bool operator==(const PoseidonRoundNumbers&, const PoseidonRoundNumbers&) = default;
};

// neptune calc_round_numbers(t, security_margin = true): the cheapest (t·R_F + R_P) pair passing
// the paper's inequalities for n = 256, M = 128, then R_F += 2 and R_P = ceil(1.075·R_P), in the
// same single-precision arithmetic and search order.
PoseidonRoundNumbers poseidon_round_numbers(size_t arity, PoseidonStrength strength = PoseidonStrength::Standard);

// Grain LFSR in self-shrinking mode (generate_constants(field = 1, sbox = 1, 255, t, R_F, R_P)):
// (R_F + R_P)·t constants, each 255 output bits read big-endian, values >= p rejected.
std::vector<Fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds);

}  // namespace cuzk::gadgets
