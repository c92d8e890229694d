#pragma once
// Updating a sector natively and building its SnapDeals vanilla proofs (issue #21 item 3), as
// filecoin-proofs src/api/update.rs encode_into and storage-proofs-update src/vanilla.rs
// prove_inner do:
//   tree D new   binary SHA-256 tree over the new data, comm_d_new = its root;
//   phi          Poseidon2_Custom(1)(comm_d_new, comm_r_old);
//   new replica  sector_key[i] + data[i]·rho(phi, the h high bits of i), h = h_default;
//   tree R new   Poseidon tree (the size's shape) over it, comm_r_new = Poseidon2(comm_c, its root);
//   per partition k: its apex leaves (tree D's row at the apex level) and, per challenge
//   (snap_challenges(comm_r_new, k)), the Merkle proofs of tree R old, D new and R new.
// Everything is in memory (3 trees, about 4 x the sector size): practical up to 512 MiB.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "filecoin/periodic_tree.hpp"
#include "filecoin/sector_tree.hpp"
#include "filecoin/snap_validate.hpp"

namespace cuzk::filecoin {

// The trees of a sector's SnapDeals layouts: tree R in the size's shape, tree D binary.
TreeLayout snap_tree_r_layout(const SnapCircuitShape& shape);
TreeLayout snap_tree_d_layout(const SnapCircuitShape& shape);

struct SnapUpdate {
  SnapCircuitShape shape;
  uint32_t h = 0;
  Bytes32 comm_c{}, comm_r_old{}, comm_d_new{}, comm_r_new{};
  std::shared_ptr<const DenseTree> tree_r_old, tree_d_new, tree_r_new;

  SnapRequestContext context() const;
  std::vector<Bytes32> replica() const;  // the new replica's nodes (tree R new's leaves)
};

// Encodes `data` (shape.nodes x 32 bytes of Fr32 nodes, check_sector_data) into the sector whose
// sealed replica (the sector key) is `sector_key`; comm_c is the sealed sector's. Throws
// std::invalid_argument naming what does not fit.
SnapUpdate snap_update_sector(const SnapCircuitShape& shape, std::vector<Bytes32> sector_key,
                              std::span<const uint8_t> data, const Bytes32& comm_c);

// Rebuilds an update from its three node arrays (what `cuzk snap vanilla` reads back), checking
// that the new replica is the encoding of the sector key and the data.
SnapUpdate snap_update_from_nodes(const SnapCircuitShape& shape, std::vector<Bytes32> sector_key,
                                  std::vector<Bytes32> data, std::vector<Bytes32> replica, const Bytes32& comm_c);

// Partition k's vanilla proof from the sector's three trees (whole, or periodic for synth-snap).
SnapPartitionProof build_snap_partition_proof(const SnapCircuitShape& shape, const DenseTree& r_old,
                                              const DenseTree& d_new, const DenseTree& r_new, const Bytes32& comm_c,
                                              const Bytes32& comm_r_new, uint32_t k);
SnapPartitionProof build_snap_partition_proof(const SnapCircuitShape& shape, const PeriodicTree& r_old,
                                              const PeriodicTree& d_new, const PeriodicTree& r_new,
                                              const Bytes32& comm_c, const Bytes32& comm_r_new, uint32_t k);

// Every partition's proof of an update, validated (validate_snap_vanilla) before it is returned.
std::vector<SnapPartitionProof> snap_vanilla_proofs(const SnapUpdate& update);

}  // namespace cuzk::filecoin
