#include "filecoin/periodic_tree.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

PeriodicTree::PeriodicTree(TreeLayout layout, uint64_t block, uint64_t period, const Leaf& leaf)
    : layout_(std::move(layout)), block_(block), period_(period) {
  const uint64_t n = layout_.leaves();
  if (!std::has_single_bit(period) || !std::has_single_bit(block) || !std::has_single_bit(n) || period > block ||
      block > n) {
    throw std::invalid_argument("periodic tree: period " + std::to_string(period) + ", block " + std::to_string(block) +
                                " and " + std::to_string(n) + " leaves must be powers of two, each dividing the next");
  }
  width_.push_back(1);
  for (uint32_t a : layout_.arities) {
    if (!std::has_single_bit(a)) throw std::invalid_argument("periodic tree: arity " + std::to_string(a));
    width_.push_back(width_.back() * a);
  }
  const uint64_t blocks = n / block_;
  std::vector<Bytes32> leaves(blocks * period_);
  ThreadPool::global().parallel_chunks(leaves.size(), 4096, [&](size_t b, size_t e) {
    for (size_t s = b; s < e; ++s) leaves[s] = leaf(s / period_, s % period_);
  });
  rows_.push_back(std::move(leaves));
  for (size_t level = 1; level <= layout_.arities.size(); ++level) {
    const uint64_t w = width_[level];
    const uint64_t size = w <= period_ ? blocks * (period_ / w) : w <= block_ ? blocks : n / w;
    const uint32_t a = layout_.arities[level - 1];
    std::vector<Bytes32> row(size);
    ThreadPool::global().parallel_chunks(size, 64, [&](size_t b, size_t e) {
      std::vector<Bytes32> children(a);
      for (size_t s = b; s < e; ++s) {
        const uint64_t first = representative(level, s) * a;
        for (uint32_t j = 0; j < a; ++j) children[j] = node(level - 1, first + j);
        row[s] = hash_children(layout_.hasher, children);
      }
    });
    rows_.push_back(std::move(row));
  }
}

uint64_t PeriodicTree::slot(size_t level, uint64_t index) const {
  const uint64_t w = width_[level];
  if (w <= period_) return index / (block_ / w) * (period_ / w) + index % (period_ / w);
  if (w <= block_) return index / (block_ / w);
  return index;
}

uint64_t PeriodicTree::representative(size_t level, uint64_t s) const {
  const uint64_t w = width_[level];
  if (w <= period_) return s / (period_ / w) * (block_ / w) + s % (period_ / w);
  if (w <= block_) return s * (block_ / w);
  return s;
}

const Bytes32& PeriodicTree::node(size_t level, uint64_t index) const {
  return rows_.at(level).at(slot(level, index));
}

MerkleProof PeriodicTree::prove(uint64_t i) const {
  return merkle_proof_of(layout_, i, [this](size_t level, uint64_t index) { return node(level, index); });
}

}  // namespace cuzk::filecoin
