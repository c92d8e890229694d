#include "filecoin/label.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gadgets/sha256_native.hpp"

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
  std::vector<gadgets::NodeBytes> out;
  out.reserve(kTotalParents);
  for (size_t i = 0; i < kTotalParents; ++i) out.push_back(distinct[i % distinct.size()]);
  return out;
}

gadgets::NodeBytes create_label(const StackedGraph& g, std::span<const uint8_t, 32> replica_id, uint32_t layer,
                                uint64_t node, std::span<const uint8_t> layer_labels,
                                std::span<const uint8_t> exp_labels) {
  std::vector<uint8_t> msg;
  const auto head = label_preimage_head(replica_id, layer, node);
  msg.assign(head.begin(), head.end());
  if (node > 0) {
    for (const auto& p : label_parents(g, layer, node, layer_labels, exp_labels))
      msg.insert(msg.end(), p.begin(), p.end());
  }
  gadgets::Sha256Digest d = gadgets::sha256_native(msg);
  gadgets::trim_to_fr32(d);
  return d;
}

std::vector<std::vector<uint8_t>> generate_labels(const StackedGraph& g, std::span<const uint8_t, 32> replica_id,
                                                  uint32_t layers) {
  std::vector<std::vector<uint8_t>> out;
  const size_t n = g.nodes();
  for (uint32_t layer = 1; layer <= layers; ++layer) {
    std::vector<uint8_t> cur(n * 32);
    const std::span<const uint8_t> prev =
        out.empty() ? std::span<const uint8_t>() : std::span<const uint8_t>(out.back());
    for (uint64_t node = 0; node < n; ++node) {
      const gadgets::NodeBytes l = create_label(g, replica_id, layer, node, cur, prev);
      std::copy(l.begin(), l.end(), cur.begin() + static_cast<std::ptrdiff_t>(node * 32));
    }
    out.push_back(std::move(cur));
  }
  return out;
}

}  // namespace cuzk::filecoin
