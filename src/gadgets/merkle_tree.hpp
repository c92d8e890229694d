#pragma once
// Native Merkle trees of Filecoin's shapes (storage-proofs-core src/merkle/, merkletree crate):
// a base arity, plus optionally a sub-tree arity (that many base trees under one more node) and a
// top-tree arity (that many sub-trees under one more node), over any MerkleHasher; and their
// inclusion proofs, in the form the PoR gadget consumes.
//
// Leaf i lies in base tree i / base_leaves; the base path covers its position in that tree, the
// sub element picks the base tree within its sub-tree, the top element the sub-tree. So the path
// indices, read as bits least significant first, spell i (por.rs packs them as the challenge).
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/merkle_hasher.hpp"

namespace cuzk::gadgets {

// Arities of a tree; sub_arity / top_arity 0 mean "none" (typenum U0 in the reference).
struct MerkleShape {
  size_t base_arity = 2;
  size_t sub_arity = 0;
  size_t top_arity = 0;

  // "base-sub-top", e.g. "8-8-2" (messages).
  std::string name() const {
    return std::to_string(base_arity) + "-" + std::to_string(sub_arity) + "-" + std::to_string(top_arity);
  }
  // storage-proofs-core get_base_tree_count.
  size_t base_tree_count() const {
    if (sub_arity == 0 && top_arity == 0) return 1;
    if (top_arity == 0) return sub_arity;
    return sub_arity * top_arity;
  }
  // The number of base levels of a tree with `leaves` leaves (base_path_length); throws unless the
  // leaves exactly fill the shape.
  size_t base_path_length(size_t leaves) const {
    validate();
    const size_t btc = base_tree_count();
    if (leaves == 0 || leaves % btc != 0) {
      throw std::invalid_argument(std::to_string(leaves) + " leaves do not split into " + std::to_string(btc) +
                                  " base trees");
    }
    size_t per = leaves / btc, levels = 0;
    while (per > 1) {
      if (per % base_arity != 0) break;
      per /= base_arity;
      ++levels;
    }
    if (per != 1) {
      throw std::invalid_argument(std::to_string(leaves / btc) + " leaves per base tree is not a power of arity " +
                                  std::to_string(base_arity));
    }
    return levels;
  }
  void validate() const {
    auto pow2 = [](size_t a) { return a >= 2 && std::has_single_bit(a); };
    if (!pow2(base_arity) || (sub_arity != 0 && !pow2(sub_arity)) || (top_arity != 0 && !pow2(top_arity)) ||
        (top_arity != 0 && sub_arity == 0)) {
      throw std::invalid_argument("tree shape " + name() +
                                  ": arities must be powers of two >= 2 (0 = none), and a top tree needs a sub tree");
    }
  }
};

// One level of an inclusion proof: the arity−1 siblings in order, and the node's position among
// the arity children.
struct MerklePathLevel {
  std::vector<Fr> siblings;
  size_t index = 0;
};

struct MerkleProof {
  MerkleShape shape;
  Fr leaf;
  Fr root;
  std::vector<MerklePathLevel> base;  // leaf level first
  std::vector<MerklePathLevel> sub;   // 0 or 1 level
  std::vector<MerklePathLevel> top;   // 0 or 1 level

  // The leaf's index: the path indices as digits, base level first.
  uint64_t leaf_index() const {
    uint64_t idx = 0, scale = 1;
    auto add = [&](const std::vector<MerklePathLevel>& levels, size_t arity) {
      for (const MerklePathLevel& l : levels) {
        idx += l.index * scale;
        scale *= arity;
      }
    };
    add(base, shape.base_arity);
    add(sub, shape.sub_arity);
    add(top, shape.top_arity);
    return idx;
  }

  // Recomputes the root from the leaf and the path.
  template <MerkleHasher H>
  bool verify() const {
    Fr cur = leaf;
    size_t height = 0;
    auto climb = [&](const std::vector<MerklePathLevel>& levels, size_t arity) {
      for (const MerklePathLevel& l : levels) {
        if (l.siblings.size() + 1 != arity || l.index >= arity) return false;
        std::vector<Fr> children(l.siblings.begin(), l.siblings.end());
        children.insert(children.begin() + static_cast<std::ptrdiff_t>(l.index), cur);
        cur = H::hash_children(children, height++);
      }
      return true;
    };
    return climb(base, shape.base_arity) && climb(sub, shape.sub_arity) && climb(top, shape.top_arity) && cur == root;
  }
};

template <MerkleHasher H>
class MerkleTree {
 public:
  MerkleTree(std::vector<Fr> leaves, MerkleShape shape) : shape_(shape) {
    const size_t levels = shape.base_path_length(leaves.size());
    const size_t btc = shape.base_tree_count(), per = leaves.size() / btc;
    bases_.resize(btc);
    for (size_t t = 0; t < btc; ++t) {
      std::vector<std::vector<Fr>>& rows = bases_[t];
      rows.emplace_back(leaves.begin() + static_cast<std::ptrdiff_t>(t * per),
                        leaves.begin() + static_cast<std::ptrdiff_t>((t + 1) * per));
      for (size_t h = 0; h < levels; ++h) rows.push_back(hash_row(rows.back(), shape.base_arity, h));
    }
    std::vector<Fr> base_roots;
    for (const auto& rows : bases_) base_roots.push_back(rows.back().front());
    if (shape.sub_arity == 0) {
      root_ = base_roots.front();
      return;
    }
    sub_roots_ = hash_row(base_roots, shape.sub_arity, levels);
    if (shape.top_arity == 0) {
      root_ = sub_roots_.front();
      return;
    }
    root_ = hash_row(sub_roots_, shape.top_arity, levels + 1).front();
  }

  const MerkleShape& shape() const { return shape_; }
  const Fr& root() const { return root_; }
  size_t leaves() const { return bases_.size() * bases_.front().front().size(); }
  // Row r (0 = leaves) of base tree t.
  const std::vector<Fr>& base_row(size_t t, size_t r) const { return bases_.at(t).at(r); }

  MerkleProof prove(size_t i) const {
    if (i >= leaves()) {
      throw std::out_of_range("leaf " + std::to_string(i) + " of a tree with " + std::to_string(leaves()) + " leaves");
    }
    const size_t per = bases_.front().front().size(), t = i / per;
    MerkleProof p{shape_, bases_[t].front()[i % per], root_, {}, {}, {}};
    size_t pos = i % per;
    const auto& rows = bases_[t];
    for (size_t h = 0; h + 1 < rows.size(); ++h) {
      p.base.push_back(level(rows[h], pos, shape_.base_arity));
      pos /= shape_.base_arity;
    }
    if (shape_.sub_arity != 0) {
      std::vector<Fr> base_roots;
      for (const auto& r : bases_) base_roots.push_back(r.back().front());
      p.sub.push_back(level(base_roots, t, shape_.sub_arity));
      if (shape_.top_arity != 0) p.top.push_back(level(sub_roots_, t / shape_.sub_arity, shape_.top_arity));
    }
    return p;
  }

 private:
  static std::vector<Fr> hash_row(const std::vector<Fr>& row, size_t arity, size_t height) {
    std::vector<Fr> out;
    out.reserve(row.size() / arity);
    for (size_t j = 0; j < row.size(); j += arity) {
      out.push_back(H::hash_children(std::span<const Fr>(row.data() + j, arity), height));
    }
    return out;
  }
  static MerklePathLevel level(const std::vector<Fr>& row, size_t pos, size_t arity) {
    MerklePathLevel l;
    l.index = pos % arity;
    const size_t first = pos - l.index;
    for (size_t k = 0; k < arity; ++k) {
      if (k != l.index) l.siblings.push_back(row[first + k]);
    }
    return l;
  }

  MerkleShape shape_;
  std::vector<std::vector<std::vector<Fr>>> bases_;  // [tree][row][node]
  std::vector<Fr> sub_roots_;
  Fr root_;
};

}  // namespace cuzk::gadgets
