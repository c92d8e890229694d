#pragma once
// The values Sha256Hasher's binary node circuit (hash2_circuit, and hash_multi_leaf_circuit of two
// children: the same R1CS) allocates, computed natively in its order, for witness generation of
// the SHA-256 trees (SnapDeals' tree D: ~99 % of its constraints) without a constraint system:
//
//   a's 255 bits (to_bits_le, least significant first), b's 255 bits, the first compression (the
//   64 message bytes a ‖ b, little-endian, from the IV), the second (the constant padding block),
//   then the digest's first 254 bits packed: the trimmed digest as a field element.
//
// The compressions are sha256_witness.hpp's values-only ones (the same code WitnessCS runs),
// writing into the caller's span instead of a growing vector. Tests compare the values with the
// circuit's under WitnessCS.
#include <cstddef>
#include <span>

#include "gadgets/field_bits.hpp"

namespace cuzk::gadgets {

// How many values one binary node allocates (the same for every input).
size_t sha256_hash2_witness_len();

// Writes the sha256_hash2_witness_len() values of hashing (a, b) to `out` and returns the node
// (Sha256Hasher::hash2(a, b), also out.back()). Throws std::invalid_argument on a wrong size.
Fr sha256_hash2_witness(const Fr& a, const Fr& b, std::span<Fr> out);

// One level of por_no_challenge_input over Sha256Hasher: insert_2's two picks (the node at `bit`,
// the sibling beside it), then the node's values (2 + sha256_hash2_witness_len() in all).
// Returns the parent.
size_t sha256_insert_hash_witness_len();
Fr sha256_insert_hash_witness(const Fr& cur, const Fr& sibling, bool bit, std::span<Fr> out);

}  // namespace cuzk::gadgets
