#pragma once
// Valid PoSt vanilla proofs for the tests: a tree R of any shape over pseudo-random leaves (the
// reference's fallback_circuit.rs test does the same: a random tree and a random comm_c), and the
// proofs of its challenges (post_vanilla_gen.hpp).
#include <cstdint>
#include <vector>

#include "filecoin/post_vanilla_gen.hpp"
#include "filecoin/sector_tree.hpp"
#include "gadgets/merkle_tree.hpp"

namespace cuzk::filecoin::test {

inline TreeLayout poseidon_layout(const gadgets::MerkleShape& s, uint64_t nodes) {
  TreeLayout l;
  l.hasher = TreeHasher::kPoseidon;
  l.arities.assign(s.base_path_length(nodes), static_cast<uint32_t>(s.base_arity));
  l.base_levels = l.arities.size();
  if (s.sub_arity != 0) {
    l.arities.push_back(static_cast<uint32_t>(s.sub_arity));
    l.shape = MerkleShape::kSub;
  }
  if (s.top_arity != 0) {
    l.arities.push_back(static_cast<uint32_t>(s.top_arity));
    l.shape = MerkleShape::kTop;
  }
  return l;
}

inline uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline Bytes32 random_fr_bytes(uint64_t seed) {
  Fr x = Fr::from_u64(splitmix(seed));
  for (int i = 0; i < 3; ++i) x = x * Fr::from_u64(splitmix(seed + 1000003 * (i + 1))) + Fr::from_u64(seed);
  return to_bytes(x);
}

inline DenseTree random_tree_r(const gadgets::MerkleShape& s, uint64_t nodes, uint64_t seed) {
  std::vector<Bytes32> leaves(nodes);
  for (uint64_t i = 0; i < nodes; ++i) leaves[i] = random_fr_bytes(seed * 0x100000 + i);
  return DenseTree(poseidon_layout(s, nodes), std::move(leaves));
}

inline Bytes32 bytes_of(uint8_t first) {
  Bytes32 b{};
  b[0] = first;
  return b;
}

}  // namespace cuzk::filecoin::test
