#include "filecoin/stacked_graph.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::filecoin {

std::array<uint64_t, 4> derive_feistel_keys(const PorepId& porep_id) {
  const auto raw = derive_porep_domain_seed(kFeistelDst, porep_id);
  std::array<uint64_t, 4> keys{};
  for (size_t k = 0; k < 4; ++k) {
    for (size_t i = 0; i < 8; ++i) keys[k] |= uint64_t{raw[8 * k + i]} << (8 * i);
  }
  return keys;
}

StackedGraph::StackedGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api)
    : base_(nodes, porep_id, api),
      keys_(derive_feistel_keys(porep_id)),
      feistel_(nodes * kExpDegree, keys_),
      api_(api) {}

std::array<uint32_t, kExpDegree> StackedGraph::expanded_parents(uint64_t node) const {
  if (node >= nodes()) {
    throw std::out_of_range("StackedGraph: node " + std::to_string(node) + " of " + std::to_string(nodes()));
  }
  std::array<uint32_t, kExpDegree> out{};
  for (size_t i = 0; i < kExpDegree; ++i) {
    const uint64_t t = feistel_.permute(node * kExpDegree + i);
    // graph.rs correspondent: V1_0 truncates the permuted index to u32 before dividing (which
    // matters only when nodes·8 exceeds 2^32, i.e. 64 GiB); later versions divide the u64.
    out[i] = api_ == ApiVersion::V1_0_0 ? static_cast<uint32_t>(t) / uint32_t{kExpDegree}
                                        : static_cast<uint32_t>(t / kExpDegree);
  }
  return out;
}

std::array<uint32_t, kDegree> StackedGraph::parents(uint64_t node) const {
  std::array<uint32_t, kDegree> out{};
  const auto b = base_parents(node);
  const auto e = expanded_parents(node);
  std::copy(b.begin(), b.end(), out.begin());
  std::copy(e.begin(), e.end(), out.begin() + kBaseDegree);
  return out;
}

std::vector<uint8_t> StackedGraph::parent_cache_bytes() const {
  std::vector<uint8_t> out;
  out.reserve(nodes() * kDegree * 4);
  for (uint64_t n = 0; n < nodes(); ++n) {
    for (uint32_t p : parents(n)) {
      for (size_t i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(p >> (8 * i)));
    }
  }
  return out;
}

gadgets::Sha256Digest StackedGraph::parent_cache_digest() const {
  return gadgets::sha256_native(parent_cache_bytes());
}

}  // namespace cuzk::filecoin
