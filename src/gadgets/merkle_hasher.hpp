#pragma once
// What a Merkle-tree hash must provide to the native tree and to the PoR gadget (filecoin-hashers'
// Hasher/HashFunction, reduced to what Filecoin's trees use). SHA-256 (sha256_hasher.hpp) and
// Poseidon implement it; the tree and the PoR gadget are written once over it.
//
// - name(): filecoin-hashers' Hasher::name ("sha256_hasher", "poseidon_hasher").
// - hash_children(children, height): the native node of `children.size()` children (2, 4, 8, ...),
//   merkletree's Algorithm::multi_node (node() for two).
// - hash2(a, b): the native binary node (HashFunction::hash2).
// - hash_multi_leaf_circuit(cs, children, height): the in-circuit node of the allocated children.
// - hash2_circuit(cs, a, b): the in-circuit binary node.
// The circuit functions are templates over the constraint system; the concept checks them with
// RecordingCS, which every circuit supports.
#include <concepts>
#include <span>
#include <string_view>

#include "gadgets/num.hpp"
#include "r1cs/recording_cs.hpp"

namespace cuzk::gadgets {

template <class H>
concept MerkleHasher = requires(std::span<const Fr> children, const Fr& x, size_t height, r1cs::RecordingCS& cs,
                                std::span<const AllocatedNum> nums, const AllocatedNum& n) {
  { H::name() } -> std::convertible_to<std::string_view>;
  { H::hash_children(children, height) } -> std::same_as<Fr>;
  { H::hash2(x, x) } -> std::same_as<Fr>;
  { H::hash_multi_leaf_circuit(cs, nums, height) } -> std::same_as<AllocatedNum>;
  { H::hash2_circuit(cs, n, n) } -> std::same_as<AllocatedNum>;
};

}  // namespace cuzk::gadgets
