#pragma once
// The values neptune's legacy Poseidon circuit (poseidon.hpp) allocates, computed natively: the
// same numbers in the same order as poseidon_hash_circuit under WitnessCS, without Elt, optional
// values or per-allocation bookkeeping. For witness generation of circuits that are mostly
// Poseidon (PoSt: ~95 % of its constraints), where the generic synthesis is several times slower.
//
// Order (t = arity + 1, half = R_F / 2): the first round gives, per input i, (x_i + pre_i)^2, its
// square and x4 · (x_i + pre_i) + post_i (element 0, the tag, is a constant there); every other
// full round gives, per element, the S-box input, its square, its fourth power and x4 · x + post
// (no post in the terminal round); a partial round gives the same four for element 0 only; the
// last value is the hash (elements[1] after the final mix). poseidon_witness_len counts them:
// 3·arity + 4·t·(2·half − 1) + 4·R_P + 1 (505 for arity 8, 311 for arity 2).
#include <cstddef>
#include <span>

#include "gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets {

size_t poseidon_witness_len(const PoseidonConstants& c);

// Writes the poseidon_witness_len(c) values of hashing `preimage` (exactly c.arity elements) with
// the domain tag of `type` (the MerkleTree tag of Filecoin's trees; SnapDeals' Custom(1) for phi,
// rho and its challenges) to `out` and returns the hash (equal to out.back() and to
// poseidon_hash). Throws std::invalid_argument if the sizes do not match.
Fr poseidon_witness(const PoseidonConstants& c, std::span<const Fr> preimage, std::span<Fr> out,
                    const PoseidonHashType& type = PoseidonHashType::merkle_tree());

}  // namespace cuzk::gadgets
