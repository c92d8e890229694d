#pragma once
// A whole Merkle tree over a sector too large to hash leaf by leaf, made cheap by its content:
// the leaves are cut into blocks of `block` leaves and every block repeats a pattern of `period`
// leaves, leaf(i) = leaf(i / block, i % period). A subtree no wider than the period is then one
// of blocks x period / width distinct subtrees, one within a block is one per block, and only the
// levels above a block are distinct node by node: about blocks x period hashes in all, every node
// still the hash of its children, so any leaf has a true proof.
//
// synth-snap (snap_synthetic.hpp) needs trees R old, D and R new of a 32/64 GiB sector whose roots
// are known before the challenges are (they depend on comm_r_new) and whose every challenged leaf
// satisfies the encoding: the sector key and the data repeat one pattern (one block), and the new
// replica repeats it per block of the encoding's rho (the h high bits of a node index).
#include <cstdint>
#include <functional>
#include <vector>

#include "filecoin/sector_tree.hpp"

namespace cuzk::filecoin {

class PeriodicTree {
 public:
  using Leaf = std::function<Bytes32(uint64_t block, uint64_t offset)>;

  // Powers of two with period | block | leaves and every level's width (the product of the
  // arities below it) a power of two; throws std::invalid_argument otherwise. Built level by level
  // in parallel on the global thread pool.
  PeriodicTree(TreeLayout layout, uint64_t block, uint64_t period, const Leaf& leaf);

  const Bytes32& root() const { return rows_.back().front(); }
  const Bytes32& node(size_t level, uint64_t index) const;
  MerkleProof prove(uint64_t i) const;

 private:
  uint64_t slot(size_t level, uint64_t index) const;  // index -> position in rows_[level]
  uint64_t representative(size_t level, uint64_t slot) const;

  TreeLayout layout_;
  uint64_t block_, period_;
  std::vector<uint64_t> width_;             // leaves under a node of each level
  std::vector<std::vector<Bytes32>> rows_;  // the distinct nodes of each level
};

}  // namespace cuzk::filecoin
