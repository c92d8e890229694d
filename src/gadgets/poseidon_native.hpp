#pragma once
// Native Poseidon (neptune v11): the textbook permutation (poseidon_alt.rs hash_correct) and the
// optimized one (poseidon.rs hash_optimized_static, over the compressed constants and sparse
// matrices). Both give the same result; the optimized one is what hashing uses.
#include <span>
#include <vector>

#include "gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets {

// In-place permutation of a width-sized state.
void poseidon_permute_correct(const PoseidonConstants& c, std::span<Fr> state);
void poseidon_permute_optimized(const PoseidonConstants& c, std::span<Fr> state);

// Hash: state = [domain tag, preimage..., zero padding], permute, output state[1].
// MerkleTree / Custom / Encryption need exactly `arity` elements; ConstantLength(l) needs exactly
// l <= arity elements (longer constant-length inputs need neptune's sponge, not provided here).
Fr poseidon_hash(std::span<const Fr> preimage, const PoseidonConstants& c, const PoseidonHashType& type);
// Filecoin's hash: Standard strength, MerkleTree tag, preimage.size() == arity.
Fr poseidon_hash(size_t arity, std::span<const Fr> preimage);

// The initial state for `preimage` (exposed for tests and for the permutation benchmarks).
std::vector<Fr> poseidon_initial_state(std::span<const Fr> preimage, const PoseidonConstants& c,
                                       const PoseidonHashType& type);

}  // namespace cuzk::gadgets
