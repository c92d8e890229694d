#pragma once
// The values one level of the Poseidon PoR circuit (por.hpp por_subpath with PoseidonHasher)
// allocates, computed natively in the circuit's order: the index bits (least significant first,
// 0 or 1), the arity − 1 siblings, the picks of insert (insertion.hpp: the tables for 2, 4 and 8
// slots, the select columns otherwise) and the Poseidon hash of the inserted children
// (poseidon_witness.hpp). The PoSt native witness is made of these; SnapDeals' PoRs
// (por_no_challenge_input) allocate the bits and siblings elsewhere and use only the insert and
// hash part, and select (its apex leaf).
#include <cstddef>
#include <cstdint>
#include <span>

#include "gadgets/poseidon_matrix.hpp"

namespace cuzk::gadgets {

// How many values insert allocates for `arity` slots (2 / 8 / 22 for 2 / 4 / 8, size·(size − 1)
// otherwise) and how many one level allocates in all.
size_t insert_witness_len(size_t arity);
size_t poseidon_insert_hash_witness_len(size_t arity);
size_t poseidon_por_level_witness_len(size_t arity);

// Writes the level's poseidon_por_level_witness_len(arity) values to `out` and returns the node
// it reaches (the hash, its last value). index < arity, siblings.size() == arity − 1 (throws
// std::invalid_argument otherwise).
Fr poseidon_por_level_witness(size_t arity, const Fr& cur, std::span<const Fr> siblings, uint64_t index,
                              std::span<Fr> out);

// One level of up to eight independent paths of one arity at once: lane b is what
// poseidon_por_level_witness takes (its node, siblings, index and output span); next[b] gets the
// node it reaches. The Poseidon traces run eight at a time on AVX-512 IFMA lanes
// (poseidon_x8.hpp) where the CPU has it; the values are those of the one-path function.
struct PorLevelLane {
  Fr cur;
  std::span<const Fr> siblings;
  uint64_t index = 0;
  std::span<Fr> out;
};
void poseidon_por_level_witness_x8(size_t arity, std::span<const PorLevelLane> lanes, std::span<Fr> next);

// The same level without its index bits and siblings: insert's picks, then the Poseidon trace
// (poseidon_insert_hash_witness_len(arity) values). Same arguments and checks.
Fr poseidon_insert_hash_witness(size_t arity, const Fr& cur, std::span<const Fr> siblings, uint64_t index,
                                std::span<Fr> out);

// select (insertion.hpp) of from[index] out of a power-of-two `from`: its from.size() − 1 picks,
// most significant index bit first, written to `out`; returns the selected value. Throws
// std::invalid_argument on sizes that do not match.
Fr select_witness(std::span<const Fr> from, uint64_t index, std::span<Fr> out);

}  // namespace cuzk::gadgets
