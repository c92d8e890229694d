#pragma once
// Up to eight independent Poseidon permutations at once on AVX-512 IFMA (ff/fr_ifma.hpp): lane b
// of every vector belongs to state b, so the rounds are plain vector products and sums, with no
// lane shuffles or horizontal sums (poseidon_ifma.hpp vectorises within one state instead, which
// the witness needs for its recorded S-box values). For checking many Merkle paths: the nodes of
// a level of eight paths are independent. The values are exactly poseidon_permute_optimized's.
#include <cstddef>
#include <span>

#include "gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets {

// Permutes states[b * c.width .. (b + 1) * c.width) for b < count (count <= 8). Returns false
// without touching them when the CPU has no AVX-512 IFMA (the caller runs the scalar permutation).
bool poseidon_permute_x8(const PoseidonConstants& c, std::span<Fr> states, size_t count);

// poseidon_witness (poseidon_witness.hpp) for up to eight preimages at once: preimage b is
// preimages[b * c.arity .. (b + 1) * c.arity), its poseidon_witness_len(c) values go to outs[b],
// its hash to hashes[b], for b < outs.size() <= 8 (hashes.size() == outs.size()). Returns false
// without writing when the CPU has no AVX-512 IFMA (the caller runs poseidon_witness per preimage).
bool poseidon_witness_x8(const PoseidonConstants& c, std::span<const Fr> preimages, std::span<Fr* const> outs,
                         std::span<Fr> hashes, const PoseidonHashType& type = PoseidonHashType::merkle_tree());

}  // namespace cuzk::gadgets
