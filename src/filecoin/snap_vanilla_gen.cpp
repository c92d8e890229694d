#include "filecoin/snap_vanilla_gen.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/snap_native.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

template <class Tree>
SnapPartitionProof build(const SnapCircuitShape& shape, const Tree& r_old, const Tree& d_new, const Tree& r_new,
                         const Bytes32& comm_c, const Bytes32& comm_r_new, uint32_t k) {
  SnapPartitionProof p;
  p.comm_c = comm_c;
  const uint64_t first = uint64_t{k} * shape.apex_leaves;
  for (uint64_t i = 0; i < shape.apex_leaves; ++i) p.apex_leafs.push_back(d_new.node(shape.tree_d_levels(), first + i));
  for (uint64_t c : snap_challenges(shape, to_fr(comm_r_new), k)) {
    p.challenge_proofs.push_back({r_old.prove(c), d_new.prove(c), r_new.prove(c)});
  }
  return p;
}

std::vector<Bytes32> to_nodes(std::span<const uint8_t> data) {
  std::vector<Bytes32> out(data.size() / 32);
  for (size_t i = 0; i < out.size(); ++i) std::copy_n(data.data() + 32 * i, 32, out[i].begin());
  return out;
}

void check_nodes(const SnapCircuitShape& shape, const std::vector<Bytes32>& nodes, const char* what) {
  if (nodes.size() != shape.nodes) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(nodes.size()) + " nodes, a " +
                                sector_size_name(shape.nodes * 32) + " sector has " + std::to_string(shape.nodes));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!is_canonical_fr(nodes[i])) {
      throw std::invalid_argument(std::string(what) + ": node " + std::to_string(i) +
                                  " is not a canonical field element");
    }
  }
}

SnapUpdate finish(const SnapCircuitShape& shape, std::vector<Bytes32> sector_key, std::vector<Bytes32> data,
                  std::vector<Bytes32> replica, const Bytes32& comm_c) {
  SnapUpdate u;
  u.shape = shape;
  u.h = shape.h_default();
  u.comm_c = comm_c;
  u.tree_r_old = std::make_shared<DenseTree>(snap_tree_r_layout(shape), std::move(sector_key));
  u.tree_d_new = std::make_shared<DenseTree>(snap_tree_d_layout(shape), std::move(data));
  u.tree_r_new = std::make_shared<DenseTree>(snap_tree_r_layout(shape), std::move(replica));
  u.comm_r_old = comm_r_from(comm_c, u.tree_r_old->root());
  u.comm_d_new = u.tree_d_new->root();
  u.comm_r_new = comm_r_from(comm_c, u.tree_r_new->root());
  return u;
}

std::vector<Bytes32> encode(const SnapCircuitShape& shape, const std::vector<Bytes32>& key,
                            const std::vector<Bytes32>& data, const Bytes32& comm_r_old, const Bytes32& comm_d_new) {
  std::vector<Fr> k(key.size()), d(data.size());
  for (size_t i = 0; i < key.size(); ++i) k[i] = to_fr(key[i]);
  for (size_t i = 0; i < data.size(); ++i) d[i] = to_fr(data[i]);
  const std::vector<Fr> r =
      snap_encode_nodes(shape, snap_phi(to_fr(comm_d_new), to_fr(comm_r_old)), shape.h_default(), k, d);
  std::vector<Bytes32> out(r.size());
  for (size_t i = 0; i < r.size(); ++i) out[i] = to_bytes(r[i]);
  return out;
}

}  // namespace

TreeLayout snap_tree_r_layout(const SnapCircuitShape& shape) {
  TreeLayout l;
  l.hasher = TreeHasher::kPoseidon;
  l.arities.assign(shape.tree_r.base_path_length(shape.nodes), static_cast<uint32_t>(shape.tree_r.base_arity));
  l.base_levels = l.arities.size();
  if (shape.tree_r.sub_arity) {
    l.arities.push_back(static_cast<uint32_t>(shape.tree_r.sub_arity));
    l.shape = MerkleShape::kSub;
  }
  if (shape.tree_r.top_arity) {
    l.arities.push_back(static_cast<uint32_t>(shape.tree_r.top_arity));
    l.shape = MerkleShape::kTop;
  }
  return l;
}

TreeLayout snap_tree_d_layout(const SnapCircuitShape& shape) {
  TreeLayout l;
  l.hasher = TreeHasher::kSha256;
  l.arities.assign(shape.challenge_bits(), 2);
  l.base_levels = l.arities.size();
  return l;
}

SnapRequestContext SnapUpdate::context() const {
  return SnapRequestContext{shape, comm_r_old, comm_d_new, comm_r_new, h};
}

std::vector<Bytes32> SnapUpdate::replica() const {
  std::vector<Bytes32> out(shape.nodes);
  for (uint64_t i = 0; i < shape.nodes; ++i) out[i] = tree_r_new->leaf(i);
  return out;
}

SnapUpdate snap_update_sector(const SnapCircuitShape& shape, std::vector<Bytes32> sector_key,
                              std::span<const uint8_t> data, const Bytes32& comm_c) {
  shape.validate();
  if (shape.tree_d != SnapTreeD::kSha256) throw std::invalid_argument("SnapDeals encoding: the SHA-256 tree D only");
  check_nodes(shape, sector_key, "sector key");
  check_sector_data(data, shape.nodes);
  std::vector<Bytes32> d = to_nodes(data);
  // comm_r_old and comm_d_new first (phi), then the encoding and tree R new.
  const DenseTree r_old(snap_tree_r_layout(shape), sector_key);
  const DenseTree d_new(snap_tree_d_layout(shape), d);
  std::vector<Bytes32> replica = encode(shape, sector_key, d, comm_r_from(comm_c, r_old.root()), d_new.root());
  return finish(shape, std::move(sector_key), std::move(d), std::move(replica), comm_c);
}

SnapUpdate snap_update_from_nodes(const SnapCircuitShape& shape, std::vector<Bytes32> sector_key,
                                  std::vector<Bytes32> data, std::vector<Bytes32> replica, const Bytes32& comm_c) {
  shape.validate();
  check_nodes(shape, sector_key, "sector key");
  check_nodes(shape, data, "data");
  check_nodes(shape, replica, "replica");
  SnapUpdate u = finish(shape, std::move(sector_key), std::move(data), std::move(replica), comm_c);
  std::vector<Bytes32> key(shape.nodes), d(shape.nodes);
  for (uint64_t i = 0; i < shape.nodes; ++i) {
    key[i] = u.tree_r_old->leaf(i);
    d[i] = u.tree_d_new->leaf(i);
  }
  const std::vector<Bytes32> want = encode(shape, key, d, u.comm_r_old, u.comm_d_new);
  for (uint64_t i = 0; i < shape.nodes; ++i) {
    if (want[i] != u.tree_r_new->leaf(i)) {
      throw std::invalid_argument("replica: node " + std::to_string(i) +
                                  " is not the encoding of the sector key and the data");
    }
  }
  return u;
}

SnapPartitionProof build_snap_partition_proof(const SnapCircuitShape& shape, const DenseTree& r_old,
                                              const DenseTree& d_new, const DenseTree& r_new, const Bytes32& comm_c,
                                              const Bytes32& comm_r_new, uint32_t k) {
  return build(shape, r_old, d_new, r_new, comm_c, comm_r_new, k);
}

SnapPartitionProof build_snap_partition_proof(const SnapCircuitShape& shape, const PeriodicTree& r_old,
                                              const PeriodicTree& d_new, const PeriodicTree& r_new,
                                              const Bytes32& comm_c, const Bytes32& comm_r_new, uint32_t k) {
  return build(shape, r_old, d_new, r_new, comm_c, comm_r_new, k);
}

std::vector<SnapPartitionProof> snap_vanilla_proofs(const SnapUpdate& u) {
  std::vector<SnapPartitionProof> out(u.shape.partitions);
  ThreadPool::global().parallel_for(out.size(), [&](size_t k) {
    out[k] =
        build(u.shape, *u.tree_r_old, *u.tree_d_new, *u.tree_r_new, u.comm_c, u.comm_r_new, static_cast<uint32_t>(k));
  });
  validate_snap_vanilla(u.context(), out);
  return out;
}

}  // namespace cuzk::filecoin
