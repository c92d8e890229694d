#pragma once
// The vanilla proof of one SnapDeals partition, as Curio sends it in a SNAP_DEALS_UPDATE request's
// `vanilla_proofs` (one per partition, in order): storage-proofs-update src/vanilla.rs
// PartitionProof, serialized with bincode 1.x (bincode.hpp; curio lib/proof/update_vproof_types.go
// has the same layout):
//
//   comm_c [32] | apex_leafs: u64 n, n x [32] | challenge_proofs: u64 n, n ChallengeProof
//   ChallengeProof: proof_r_old, proof_d_new, proof_r_new, each a MerkleProof (merkle_bincode.hpp;
//   tree R old/new in tree R's shape, tree D binary SHA-256, a Single proof)
//
// Parsing checks the encoding only; snap_validate.hpp checks the contents against the sector size
// and the commitments.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

struct SnapChallengeProof {
  MerkleProof proof_r_old;  // the sector key's leaf in tree R old
  MerkleProof proof_d_new;  // the new data's leaf in tree D (up to comm_d_new)
  MerkleProof proof_r_new;  // the new replica's leaf in tree R new
};

struct SnapPartitionProof {
  Bytes32 comm_c{};
  std::vector<Bytes32> apex_leafs;  // the partition's apex-tree leaves (a row of tree D)
  std::vector<SnapChallengeProof> challenge_proofs;
};

// Throws SnapVanillaError (snap_error.hpp) naming `partition` (the proof's position in the
// request) and the field: truncated input, a sequence longer than the bytes left, an unknown
// MerkleProof variant, or bytes after the end.
SnapPartitionProof parse_snap_partition_proof(std::span<const uint8_t> bytes, size_t partition);

// The bincode bytes the reference writes (round trips with the parser).
std::vector<uint8_t> to_bincode(const SnapPartitionProof& proof);

}  // namespace cuzk::filecoin
