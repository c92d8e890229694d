#pragma once
// Checking the vanilla proofs of one SnapDeals request before any proving work, as strictly as the
// reference's EmptySectorUpdate::verify_all_partitions and more (storage-proofs-update
// src/vanilla.rs; filecoin-proofs src/api/update.rs), and turning them into the circuit's witness:
//   - comm_r_old, comm_d_new, comm_r_new are canonical field elements (try_from_bytes);
//   - one PartitionProof per partition of the sector size;
//   - per partition k: comm_c and every apex leaf canonical, the size's apex-leaf and challenge
//     counts; per challenge, proof_r_old / proof_r_new of tree R's shape (variant, levels, arity,
//     index < arity) and proof_d_new a binary Single proof of log2(nodes) levels; every 32-byte
//     value a canonical field element; every path hashing from its leaf to its root; the tree-R
//     roots the same for every challenge with Poseidon2(comm_c, root_r_old / root_r_new) =
//     comm_r_old / comm_r_new, every tree-D root = comm_d_new; every path's leaf index equal to the
//     challenge recomputed from comm_r_new and k (challenges.rs); the encoding
//     leaf_r_new = leaf_r_old + leaf_d_new·rho(phi, high bits); and, stricter than the reference
//     (which only asks that each apex sibling occur somewhere in the apex tree's row), the tree-D
//     node at the apex-leaf row equal to the apex leaf the challenge selects, each apex-level
//     sibling equal to the apex tree's node, and the partition path above the apex root the same
//     for every challenge: exactly what the circuit needs to be satisfied.
// Failures throw SnapVanillaError naming the partition and the field; request fields throw
// std::invalid_argument naming the field.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/snap_circuit.hpp"
#include "filecoin/snap_vanilla.hpp"

namespace cuzk::filecoin {

struct SnapRequestContext {
  SnapCircuitShape shape;  // SnapCircuitShape::of(sector size); the SHA-256 tree D
  Bytes32 comm_r_old{}, comm_d_new{}, comm_r_new{};
  uint32_t h = 0;  // 0: the shape's h_default, what filecoin-proofs uses
};

void validate_snap_vanilla(const SnapRequestContext& ctx, std::span<const SnapPartitionProof> proofs);

// Parses (parse_snap_partition_proof) and validates the request's blobs.
std::vector<SnapPartitionProof> parse_snap_vanilla(const SnapRequestContext& ctx,
                                                   std::span<const std::vector<uint8_t>> blobs);

// Partition k's circuit witness from its validated proof, and what the verifier knows of it.
SnapPartitionWitness snap_partition_witness(const SnapRequestContext& ctx, const SnapPartitionProof& proof, uint32_t k);
SnapPublicInputs snap_request_public_inputs(const SnapRequestContext& ctx, uint32_t k);

}  // namespace cuzk::filecoin
