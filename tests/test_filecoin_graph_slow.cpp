// The 8 MiB parent caches (262,144 nodes × 14 parents; ~10-20 s natively, hence label slow)
// against storage-proofs-porep/parent_cache.json: StackedDrg8MiBV1 (porep id 1, V1_0) and
// StackedDrg8MiBV1_1 (porep id 6, V1_1). Beyond the 2 KiB digests of test_filecoin_graph, these
// exercise bucket counts up to 21 and a Feistel domain of 4^11 with cycle walking.
#include <gtest/gtest.h>

#include <string>

#include "filecoin/stacked_graph.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk::filecoin;

using cuzk::test::hex;

TEST(StackedGraph, ParentCacheDigests8MiB) {
  const uint64_t nodes = uint64_t{8} << 20 >> 5;
  EXPECT_EQ(hex(StackedGraph(nodes, porep_id_from_registered_proof(1), ApiVersion::V1_0_0).parent_cache_digest()),
            "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
  EXPECT_EQ(hex(StackedGraph(nodes, porep_id_from_registered_proof(6), ApiVersion::V1_1_0).parent_cache_digest()),
            "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
}

}  // namespace
