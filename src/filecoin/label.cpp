#include "filecoin/label.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gadgets/sha256_native.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

gadgets::NodeBytes node_at(std::span<const uint8_t> data, uint32_t i, const char* what) {
  if (size_t{i} * 32 + 32 > data.size()) {
    throw std::out_of_range(std::string("label parent ") + std::to_string(i) + " beyond the " + what + " (" +
                            std::to_string(data.size() / 32) + " nodes)");
  }
  gadgets::NodeBytes b{};
  std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(size_t{i} * 32), 32, b.begin());
  return b;
}

}  // namespace

std::array<uint8_t, 64> label_preimage_head(std::span<const uint8_t, 32> replica_id, uint32_t layer, uint64_t node) {
  std::array<uint8_t, 64> h{};
  std::copy(replica_id.begin(), replica_id.end(), h.begin());
  for (size_t i = 0; i < 4; ++i) h[32 + i] = static_cast<uint8_t>(layer >> (24 - 8 * i));
  for (size_t i = 0; i < 8; ++i) h[36 + i] = static_cast<uint8_t>(node >> (56 - 8 * i));
  return h;
}

std::vector<gadgets::NodeBytes> label_parents(const StackedGraph& g, uint32_t layer, uint64_t node,
                                              std::span<const uint8_t> layer_labels,
                                              std::span<const uint8_t> exp_labels) {
  if (layer == 0) throw std::invalid_argument("label_parents: layers are numbered from 1");
  std::vector<gadgets::NodeBytes> distinct;
  const auto ps = g.parents(node);
  for (size_t i = 0; i < kBaseDegree; ++i) distinct.push_back(node_at(layer_labels, ps[i], "current layer"));
  if (layer > 1) {
    for (size_t i = kBaseDegree; i < kDegree; ++i) distinct.push_back(node_at(exp_labels, ps[i], "previous layer"));
  }
  return repeat_parents(distinct);
}

std::vector<gadgets::NodeBytes> repeat_parents(std::span<const gadgets::NodeBytes> distinct) {
  if (distinct.empty()) throw std::invalid_argument("repeat_parents: no parents");
  std::vector<gadgets::NodeBytes> out;
  out.reserve(kTotalParents);
  for (size_t i = 0; i < kTotalParents; ++i) out.push_back(distinct[i % distinct.size()]);
  return out;
}

gadgets::NodeBytes label_from_parents(std::span<const uint8_t, 32> replica_id, uint32_t layer, uint64_t node,
                                      std::span<const gadgets::NodeBytes> parents) {
  if (node > 0 && parents.size() != kTotalParents) {
    throw std::invalid_argument("label_from_parents: " + std::to_string(parents.size()) + " parents, expected " +
                                std::to_string(kTotalParents));
  }
  std::array<uint8_t, kLabelPreimageBytes> msg;
  const auto head = label_preimage_head(replica_id, layer, node);
  std::copy(head.begin(), head.end(), msg.begin());
  size_t len = head.size();
  if (node > 0) {
    for (const auto& p : parents) {
      std::copy(p.begin(), p.end(), msg.begin() + static_cast<std::ptrdiff_t>(len));
      len += 32;
    }
  }
  gadgets::Sha256Digest d = gadgets::sha256_native(std::span<const uint8_t>(msg.data(), len));
  gadgets::trim_to_fr32(d);
  return d;
}

gadgets::NodeBytes create_label(const StackedGraph& g, std::span<const uint8_t, 32> replica_id, uint32_t layer,
                                uint64_t node, std::span<const uint8_t> layer_labels,
                                std::span<const uint8_t> exp_labels) {
  if (node == 0) return label_from_parents(replica_id, layer, node, {});
  return label_from_parents(replica_id, layer, node, label_parents(g, layer, node, layer_labels, exp_labels));
}

std::vector<std::vector<uint8_t>> generate_labels(const StackedGraph& g, std::span<const uint8_t, 32> replica_id,
                                                  uint32_t layers, const LabelProgress& progress) {
  const size_t n = g.nodes();
  // The parent table: computing the DRG (ChaCha8) and expander (Feistel, BLAKE2b) parents costs
  // more than the label's SHA-256, so it is done once, in parallel, for all layers.
  std::vector<std::array<uint32_t, kDegree>> parents(n);
  ThreadPool::global().parallel_chunks(n, 4096, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) parents[i] = g.parents(i);
  });
  const uint64_t total = uint64_t{layers} * n;
  std::vector<std::vector<uint8_t>> out;
  // The whole padded message (20 blocks), padded once: only node > 0 uses it, and those all hash
  // exactly kLabelPreimageBytes. This avoids sha256_native's per-call allocation.
  constexpr size_t kPadded = (kLabelPreimageBytes + 9 + 63) / 64 * 64;
  std::array<uint8_t, kPadded> msg{};
  msg[kLabelPreimageBytes] = 0x80;
  for (size_t i = 0; i < 8; ++i)
    msg[kPadded - 1 - i] = static_cast<uint8_t>((uint64_t{kLabelPreimageBytes} * 8) >> (8 * i));
  for (uint32_t layer = 1; layer <= layers; ++layer) {
    std::vector<uint8_t> cur(n * 32);
    const uint8_t* prev = out.empty() ? nullptr : out.back().data();
    const size_t distinct = layer == 1 ? kBaseDegree : kDegree;
    for (uint64_t node = 0; node < n; ++node) {
      gadgets::Sha256Digest d;
      if (node == 0) {
        d = label_from_parents(replica_id, layer, node, {});
      } else {
        const auto head = label_preimage_head(replica_id, layer, node);
        std::copy(head.begin(), head.end(), msg.begin());
        const auto& ps = parents[node];
        for (size_t k = 0; k < kTotalParents; ++k) {
          const size_t i = k % distinct;
          const uint8_t* src = i < kBaseDegree ? cur.data() + size_t{ps[i]} * 32 : prev + size_t{ps[i]} * 32;
          std::copy_n(src, 32, msg.begin() + static_cast<std::ptrdiff_t>(64 + 32 * k));
        }
        gadgets::Sha256State st = gadgets::sha256_native_iv();
        gadgets::sha256_native_compress_blocks(st, msg);
        d = gadgets::sha256_native_state_bytes(st);
        gadgets::trim_to_fr32(d);
      }
      std::copy(d.begin(), d.end(), cur.begin() + static_cast<std::ptrdiff_t>(node * 32));
      if (progress && (node & 0xffff) == 0xffff) progress((layer - 1) * uint64_t{n} + node + 1, total);
    }
    out.push_back(std::move(cur));
    if (progress) progress(uint64_t{layer} * n, total);
  }
  return out;
}

}  // namespace cuzk::filecoin
