#pragma once
// The Merkle trees of a sealed sector over 32-byte nodes, whole (DenseTree, built by `cuzk seal`)
// or sparse (SparseTree, for synth_c1: every leaf not set holds one default value, so a subtree
// without set leaves has a precomputed per-level default hash; for post_synthetic: only the set
// leaves' paths are known, every other node a proof shows is given). Both produce the C1
// MerkleProof of a leaf.
//
// A tree is a list of level arities from the leaves up. Filecoin's compound trees (base trees of
// arity 8, then a sub-tree and a top-tree level, storage-proofs-core src/merkle/) put the base trees
// side by side over contiguous leaf ranges, so hashing consecutive groups at every level of the
// whole row gives exactly the base trees' nodes, then the base roots, and so on: one mixed-radix
// tree. The proof's base / sub / top paths are the first base_levels, then the sub and top levels.
#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "filecoin/c1_output.hpp"
#include "filecoin/merkle_tree_hash.hpp"

namespace cuzk::filecoin {

struct TreeLayout {
  TreeHasher hasher = TreeHasher::kSha256;
  std::vector<uint32_t> arities;  // level 0 (leaves) first
  size_t base_levels = 0;         // the rest are the sub level and then the top level, if any
  MerkleShape shape = MerkleShape::kSingle;

  uint64_t leaves() const;
};

// Tree D: binary SHA-256 over the data nodes. Trees C and R: Poseidon in the size's shape.
TreeLayout tree_d_layout(const PorepShape& s);
TreeLayout tree_rc_layout(const PorepShape& s);

// One node from its `arity` children.
Bytes32 hash_children(TreeHasher hasher, std::span<const Bytes32> children);

// The proof of leaf i of a tree given by its nodes: node(level, index), level 0 = the leaves, the
// root at level arities.size().
MerkleProof merkle_proof_of(const TreeLayout& layout, uint64_t i,
                            const std::function<Bytes32(size_t level, uint64_t index)>& node);

class DenseTree {
 public:
  // Builds all levels, each in parallel on the global thread pool; `leaves` must fill the layout.
  DenseTree(TreeLayout layout, std::vector<Bytes32> leaves);

  const Bytes32& root() const { return rows_.back().front(); }
  const Bytes32& leaf(uint64_t i) const { return rows_.front().at(i); }
  // Node `index` of `level` (0 = the leaves).
  const Bytes32& node(size_t level, uint64_t index) const { return rows_.at(level).at(index); }
  MerkleProof prove(uint64_t i) const;

 private:
  TreeLayout layout_;
  std::vector<std::vector<Bytes32>> rows_;  // rows_[0] = leaves, rows_.back() = {root}
};

class SparseTree {
 public:
  // `set` holds the leaves that differ from `default_leaf` (any subset of the leaves). The work is
  // one hash per level per distinct ancestor of a set leaf: about |set| x levels hashes.
  SparseTree(TreeLayout layout, const Bytes32& default_leaf, const std::unordered_map<uint64_t, Bytes32>& set);

  // A node off the set leaves' paths by (level, index), level 0 = the leaves.
  using Fill = std::function<Bytes32(size_t level, uint64_t index)>;
  // A tree of which only the paths of the (non-empty) `set` are known: each sibling those paths
  // show that is not itself on one is fill(level, index) (a leaf, or the root of a subtree whose
  // contents nobody sees), and the path nodes are hashed from their children as usual. Every path
  // of a set leaf verifies against root(); only set leaves can be proven.
  SparseTree(TreeLayout layout, const std::unordered_map<uint64_t, Bytes32>& set, const Fill& fill);

  const Bytes32& root() const { return root_; }
  // The default hash of a subtree of height h without set leaves (h = 0: the default leaf).
  const Bytes32& default_at(size_t h) const { return defaults_.at(h); }
  MerkleProof prove(uint64_t i) const;

 private:
  const Bytes32& node(size_t level, uint64_t index) const;
  void build(const std::unordered_map<uint64_t, Bytes32>& set, const Fill* fill);

  TreeLayout layout_;
  bool filled_ = false;                                        // built with a Fill
  std::vector<Bytes32> defaults_;                              // per level, leaves first
  std::vector<std::unordered_map<uint64_t, Bytes32>> levels_;  // the non-default nodes per level
  Bytes32 root_{};
};

}  // namespace cuzk::filecoin
