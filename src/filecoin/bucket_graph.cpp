#include "filecoin/bucket_graph.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "filecoin/chacha8.hpp"

namespace cuzk::filecoin {

BucketGraph::BucketGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api) : nodes_(nodes), api_(api) {
  if (nodes == 0 || nodes > (uint64_t{1} << 32) || nodes * (kBaseDegree - 1) > (uint64_t{1} << 54)) {
    throw std::invalid_argument("BucketGraph: " + std::to_string(nodes) + " nodes (need 1..2^32)");
  }
  // drg_seed = the first 28 bytes of SHA-256("Filecoin_DRSample" || porep_id) (drgraph.rs).
  const auto raw = derive_porep_domain_seed(kDrsampleDst, porep_id);
  std::copy_n(raw.begin(), 28, seed_.begin());
}

std::array<uint32_t, kBaseDegree> BucketGraph::parents(uint64_t node) const {
  if (node >= nodes_) {
    throw std::out_of_range("BucketGraph: node " + std::to_string(node) + " of " + std::to_string(nodes_));
  }
  std::array<uint32_t, kBaseDegree> out{};
  if (node < 2) return out;
  const auto n = static_cast<uint32_t>(node);
  std::array<uint8_t, 32> seed{};
  std::copy(seed_.begin(), seed_.end(), seed.begin());
  for (size_t i = 0; i < 4; ++i) seed[28 + i] = static_cast<uint8_t>(n >> (8 * i));
  ChaCha8Rng rng(seed);

  constexpr uint64_t m_prime = kBaseDegree - 1;
  const uint64_t meta = uint64_t{n} * m_prime;
  // ceil(log2(meta)) as the reference computes it in f64; exact in integers for meta >= 2 (meta
  // <= 5·2^32, far from where f64 rounding could change a ceiling).
  const auto n_buckets = static_cast<uint64_t>(std::bit_width(meta - 1));
  const size_t first = api_ == ApiVersion::V1_0_0 ? 0 : 1;
  const size_t predecessor_slot = api_ == ApiVersion::V1_0_0 ? m_prime : 0;
  for (size_t k = 0; k < m_prime; ++k) {
    const uint64_t bucket = rng.next_u64() % n_buckets + 1;
    const uint64_t largest = std::min(meta, uint64_t{1} << bucket);
    const uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
    const uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const auto mapped = static_cast<uint32_t>((meta - distance) / m_prime);
    out[first + k] = mapped == n ? n - 1 : mapped;
  }
  out[predecessor_slot] = n - 1;
  return out;
}

}  // namespace cuzk::filecoin
