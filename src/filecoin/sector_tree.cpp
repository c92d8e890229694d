#include "filecoin/sector_tree.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

uint64_t TreeLayout::leaves() const {
  uint64_t n = 1;
  for (uint32_t a : arities) n *= a;
  return n;
}

TreeLayout tree_d_layout(const PorepShape& s) {
  TreeLayout l;
  l.hasher = TreeHasher::kSha256;
  l.arities.assign(s.tree_d_levels(), 2);
  l.base_levels = l.arities.size();
  return l;
}

TreeLayout tree_rc_layout(const PorepShape& s) {
  TreeLayout l;
  l.hasher = TreeHasher::kPoseidon;
  l.arities.assign(s.base_path_levels(), s.base_arity);
  l.base_levels = l.arities.size();
  if (s.sub_arity) {
    l.arities.push_back(s.sub_arity);
    l.shape = MerkleShape::kSub;
  }
  if (s.top_arity) {
    l.arities.push_back(s.top_arity);
    l.shape = MerkleShape::kTop;
  }
  if (l.leaves() != s.nodes) {
    throw std::logic_error("tree layout covers " + std::to_string(l.leaves()) + " leaves, the sector has " +
                           std::to_string(s.nodes));
  }
  return l;
}

Bytes32 hash_children(TreeHasher hasher, std::span<const Bytes32> children) {
  if (hasher == TreeHasher::kSha256) {
    if (children.size() != 2) throw std::invalid_argument("SHA-256 tree nodes have 2 children");
    return sha256_tree_node(children[0], children[1]);
  }
  return poseidon_tree_node(children);
}

namespace {

// Splits the per-level path elements into the proof's base, sub and top paths.
// The siblings of leaf i, level by level; node(h, k) is node k of level h (0 = leaves).
template <class NodeAt>
std::vector<PathElement> path_of(const TreeLayout& layout, uint64_t i, NodeAt&& node) {
  std::vector<PathElement> path;
  uint64_t pos = i;
  for (size_t h = 0; h < layout.arities.size(); ++h) {
    const uint32_t a = layout.arities[h];
    PathElement e;
    e.index = pos % a;
    const uint64_t first = pos - e.index;
    for (uint64_t k = first; k < first + a; ++k) {
      if (k != pos) e.hashes.push_back(node(h, k));
    }
    path.push_back(std::move(e));
    pos /= a;
  }
  return path;
}

MerkleProof assemble(const TreeLayout& layout, const Bytes32& leaf, const Bytes32& root,
                     std::vector<PathElement> path) {
  MerkleProof p;
  p.shape = layout.shape;
  p.leaf = leaf;
  p.root = root;
  for (size_t h = 0; h < path.size(); ++h) {
    auto& dst = h < layout.base_levels ? p.base : h == layout.base_levels ? p.sub : p.top;
    dst.push_back(std::move(path[h]));
  }
  return p;
}

}  // namespace

MerkleProof merkle_proof_of(const TreeLayout& layout, uint64_t i,
                            const std::function<Bytes32(size_t level, uint64_t index)>& node) {
  if (i >= layout.leaves()) throw std::out_of_range("leaf " + std::to_string(i) + " beyond the tree");
  return assemble(layout, node(0, i), node(layout.arities.size(), 0), path_of(layout, i, node));
}

DenseTree::DenseTree(TreeLayout layout, std::vector<Bytes32> leaves) : layout_(std::move(layout)) {
  if (leaves.size() != layout_.leaves()) {
    throw std::invalid_argument("tree of " + std::to_string(layout_.leaves()) + " leaves given " +
                                std::to_string(leaves.size()));
  }
  rows_.push_back(std::move(leaves));
  for (uint32_t arity : layout_.arities) {
    const std::vector<Bytes32>& below = rows_.back();
    std::vector<Bytes32> up(below.size() / arity);
    // Grain: enough parents per chunk that scheduling is negligible next to the hashes.
    ThreadPool::global().parallel_chunks(up.size(), 256, [&](size_t b, size_t e) {
      for (size_t j = b; j < e; ++j) {
        up[j] = hash_children(layout_.hasher, std::span<const Bytes32>(below.data() + j * arity, arity));
      }
    });
    rows_.push_back(std::move(up));
  }
}

MerkleProof DenseTree::prove(uint64_t i) const {
  if (i >= rows_.front().size()) throw std::out_of_range("leaf " + std::to_string(i) + " beyond the tree");
  return assemble(layout_, leaf(i), root(), path_of(layout_, i, [&](size_t h, uint64_t k) { return rows_[h][k]; }));
}

SparseTree::SparseTree(TreeLayout layout, const Bytes32& default_leaf, const std::unordered_map<uint64_t, Bytes32>& set)
    : layout_(std::move(layout)) {
  defaults_.push_back(default_leaf);
  for (uint32_t a : layout_.arities) {
    const std::vector<Bytes32> children(a, defaults_.back());
    defaults_.push_back(hash_children(layout_.hasher, children));
  }
  build(set, nullptr);
}

SparseTree::SparseTree(TreeLayout layout, const std::unordered_map<uint64_t, Bytes32>& set, const Fill& fill)
    : layout_(std::move(layout)), filled_(true) {
  if (set.empty() || !fill) throw std::invalid_argument("a filled sparse tree needs set leaves and a fill");
  build(set, &fill);
}

void SparseTree::build(const std::unordered_map<uint64_t, Bytes32>& set, const Fill* fill) {
  const uint64_t n = layout_.leaves();
  for (const auto& [i, v] : set) {
    if (i >= n) throw std::out_of_range("sparse leaf " + std::to_string(i) + " beyond " + std::to_string(n));
  }
  levels_.push_back(set);
  for (size_t h = 0; h < layout_.arities.size(); ++h) {
    const uint32_t a = layout_.arities[h];
    std::vector<uint64_t> parents;
    for (const auto& kv : levels_.back()) parents.push_back(kv.first / a);
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    if (fill != nullptr) {  // the path nodes' siblings, so that node() finds every child below
      auto& level = levels_.back();
      for (uint64_t p : parents) {
        for (uint64_t k = p * a; k < p * a + a; ++k) {
          if (!level.contains(k)) level.emplace(k, (*fill)(h, k));
        }
      }
    }
    std::vector<Bytes32> hashes(parents.size());
    ThreadPool::global().parallel_for(parents.size(), [&](size_t j) {
      std::vector<Bytes32> children;
      for (uint64_t k = parents[j] * a; k < parents[j] * a + a; ++k) children.push_back(node(h, k));
      hashes[j] = hash_children(layout_.hasher, children);
    });
    std::unordered_map<uint64_t, Bytes32> up;
    for (size_t j = 0; j < parents.size(); ++j) up.emplace(parents[j], hashes[j]);
    levels_.push_back(std::move(up));
  }
  root_ = node(layout_.arities.size(), 0);
}

const Bytes32& SparseTree::node(size_t level, uint64_t index) const {
  const auto& m = levels_[level];
  const auto it = m.find(index);
  return it == m.end() ? defaults_[level] : it->second;
}

MerkleProof SparseTree::prove(uint64_t i) const {
  if (i >= layout_.leaves()) throw std::out_of_range("leaf " + std::to_string(i) + " beyond the tree");
  // Filled: a leaf off the known paths has no known siblings.
  if (filled_ && !levels_.front().contains(i)) {
    throw std::out_of_range("leaf " + std::to_string(i) + " is not on a known path of the tree");
  }
  return assemble(layout_, node(0, i), root_, path_of(layout_, i, [&](size_t h, uint64_t k) { return node(h, k); }));
}

}  // namespace cuzk::filecoin
