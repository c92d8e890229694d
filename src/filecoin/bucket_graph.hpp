#pragma once
// The DRG of SDR (storage-proofs-core src/drgraph.rs BucketGraph::parents): base degree 6, i.e.
// the predecessor plus 5 parents sampled by DRSample's bucket method from a ChaCha8 stream seeded
// by the porep_id-derived seed and the node index.
#include <array>
#include <cstddef>
#include <cstdint>

#include "filecoin/porep_id.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kBaseDegree = 6;

class BucketGraph {
 public:
  // Throws if nodes is 0 or too large for the reference's f64 bucket computation (nodes·5 > 2^54).
  BucketGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api);

  uint64_t nodes() const { return nodes_; }
  const std::array<uint8_t, 28>& seed() const { return seed_; }

  // The 6 parents of node (node < nodes). Nodes 0 and 1 have all parents 0. Otherwise the
  // predecessor node−1 is in slot 0 (V1_1/V1_2) or slot 5 (V1_0), the sampled ones in the others.
  std::array<uint32_t, kBaseDegree> parents(uint64_t node) const;

 private:
  uint64_t nodes_;
  std::array<uint8_t, 28> seed_{};
  ApiVersion api_;
};

}  // namespace cuzk::filecoin
