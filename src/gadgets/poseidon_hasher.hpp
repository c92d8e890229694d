#pragma once
// filecoin-hashers' PoseidonHasher (src/poseidon.rs): the hash of tree C, tree R and comm_r.
//
// A node of n children (n = 2, 4, 8 or 16, as shared_hash_frs accepts) is neptune's Poseidon of
// arity n with Filecoin's constants (Standard strength, MerkleTree domain tag, poseidon_types.rs);
// hash2 is the arity-2 node. Leaves are field elements and are not hashed (LightAlgorithm::leaf is
// the identity), so unlike SHA-256 no bit decomposition is involved: in-circuit a node is exactly
// neptune's legacy poseidon_hash over the children, in order, with no namespace of its own
// (filecoin-hashers passes its cs straight to poseidon_hash). That costs 311 / 377 / 505
// constraints for arity 2 / 4 / 8 (filecoin-circuits.md 2.6).
#include <span>
#include <string_view>

#include "gadgets/merkle_hasher.hpp"
#include "gadgets/poseidon.hpp"

namespace cuzk::gadgets {

struct PoseidonHasher {
  static constexpr std::string_view name() { return "poseidon_hasher"; }

  // The arities shared_hash_frs / multi_node accept; throws std::invalid_argument otherwise.
  static void check_arity(size_t n);

  // merkletree multi_node: Poseidon of the arity children.size(). The height does not enter.
  static Fr hash_children(std::span<const Fr> children, size_t height = 0);
  // HashFunction::hash2: arity-2 Poseidon of (a, b).
  static Fr hash2(const Fr& a, const Fr& b);

  // hash_multi_leaf_circuit::<Arity>: poseidon_hash with Arity::PARAMETERS() over the leaves.
  template <ConstraintSystem CS>
  static AllocatedNum hash_multi_leaf_circuit(CS& cs, std::span<const AllocatedNum> children, size_t /*height*/) {
    check_arity(children.size());
    return poseidon_hash_circuit(cs, children, poseidon_constants(children.size()));
  }

  // hash2_circuit: poseidon_hash::<U2> over [a, b].
  template <ConstraintSystem CS>
  static AllocatedNum hash2_circuit(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
    const AllocatedNum both[2] = {a, b};
    return poseidon_hash_circuit(cs, std::span<const AllocatedNum>(both), poseidon_constants(2));
  }
};

static_assert(MerkleHasher<PoseidonHasher>);

}  // namespace cuzk::gadgets
