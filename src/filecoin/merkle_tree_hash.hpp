#pragma once
// The node hashes of Filecoin's Merkle trees (filecoin-hashers): tree D hashes two children with
// SHA-256 and clears the top two bits (`Sha256Function::node`); trees R and C hash the `arity`
// children with Poseidon of that arity, MerkleTree domain tag (`PoseidonFunction::multi_node`).
// Also the root a Merkle proof implies, to check its siblings all the way up, and comm_r, which
// hashes the roots of trees C and R.
#include <span>

#include "filecoin/c1_output.hpp"
#include "filecoin/domain.hpp"

namespace cuzk::filecoin {

enum class TreeHasher { kSha256, kPoseidon };

Bytes32 sha256_tree_node(const Bytes32& left, const Bytes32& right);
Bytes32 poseidon_tree_node(std::span<const Bytes32> children);  // 2, 4, 8 or 11 children

// comm_r = Poseidon(comm_c, comm_r_last) (storage-proofs-porep; PoSt and SnapDeals check their
// comm_r the same way, SnapDeals for comm_r_old and comm_r_new).
Bytes32 comm_r_from(const Bytes32& comm_c, const Bytes32& comm_r_last);

// The root obtained by hashing the leaf up through the proof's base, sub and top paths: at each
// level the running node goes into position `index` among the siblings.
Bytes32 merkle_proof_root(const MerkleProof& proof, TreeHasher hasher);

}  // namespace cuzk::filecoin
