#pragma once
// The node hashes of Filecoin's Merkle trees (filecoin-hashers): tree D hashes two children with
// SHA-256 and clears the top two bits (`Sha256Function::node`); trees R and C hash the `arity`
// children with Poseidon of that arity, MerkleTree domain tag (`PoseidonFunction::multi_node`).
// Also the root a Merkle proof implies, to check its siblings all the way up, and comm_r, which
// hashes the roots of trees C and R.
#include <optional>
#include <span>
#include <vector>

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

// merkle_proof_root(*proofs[i], kPoseidon) for many proofs at once: runs of up to eight
// consecutive proofs whose paths have the same shape (one challenge's proofs across sectors) climb
// their levels together, eight hashes per poseidon_permute_x8 (3.6x the scalar rate at arity 8).
// A proof with a malformed path (an index beyond its siblings, a value that is not a canonical
// field element, an arity above 11) or a null pointer gets no root: its checker reports what is wrong instead.
std::vector<std::optional<Bytes32>> poseidon_proof_roots(std::span<const MerkleProof* const> proofs);

}  // namespace cuzk::filecoin
