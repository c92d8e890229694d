#include "filecoin/merkle_tree_hash.hpp"

#include <stdexcept>
#include <vector>

#include "gadgets/poseidon_native.hpp"
#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {

Bytes32 sha256_tree_node(const Bytes32& left, const Bytes32& right) {
  uint8_t msg[64];
  std::copy(left.begin(), left.end(), msg);
  std::copy(right.begin(), right.end(), msg + 32);
  Bytes32 h = gadgets::sha256_native(msg);
  h[31] &= 0x3f;  // keep it a field element
  return h;
}

Bytes32 poseidon_tree_node(std::span<const Bytes32> children) {
  std::vector<Fr> in;
  in.reserve(children.size());
  for (const auto& c : children) in.push_back(to_fr(c));
  return to_bytes(gadgets::poseidon_hash(in.size(), in));
}

Bytes32 comm_r_from(const Bytes32& comm_c, const Bytes32& comm_r_last) {
  return to_bytes(gadgets::poseidon_hash(2, std::vector<Fr>{to_fr(comm_c), to_fr(comm_r_last)}));
}

namespace {

Bytes32 climb(Bytes32 node, const std::vector<PathElement>& path, TreeHasher hasher) {
  std::vector<Bytes32> children;
  for (const auto& el : path) {
    if (el.index > el.hashes.size()) throw std::invalid_argument("merkle_proof_root: path index beyond its siblings");
    children = el.hashes;
    children.insert(children.begin() + static_cast<std::ptrdiff_t>(el.index), node);
    if (hasher == TreeHasher::kSha256) {
      if (children.size() != 2) throw std::invalid_argument("merkle_proof_root: SHA-256 trees are binary");
      node = sha256_tree_node(children[0], children[1]);
    } else {
      node = poseidon_tree_node(children);
    }
  }
  return node;
}

}  // namespace

Bytes32 merkle_proof_root(const MerkleProof& proof, TreeHasher hasher) {
  Bytes32 node = climb(proof.leaf, proof.base, hasher);
  node = climb(node, proof.sub, hasher);
  return climb(node, proof.top, hasher);
}

}  // namespace cuzk::filecoin
