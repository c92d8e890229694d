// The SDR graph (src/filecoin/): BLAKE2b, the DRG (BucketGraph), the Feistel expander, the parent
// cache digests of storage-proofs-porep/parent_cache.json, and native labels against the label
// vectors of storage-proofs-porep/tests/stacked_vanilla.rs (filecoin-circuits.md section 6).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "filecoin/blake2b.hpp"
#include "filecoin/feistel.hpp"
#include "filecoin/label.hpp"
#include "filecoin/stacked_graph.hpp"
#include "gadgets/fr32.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk::filecoin;
using cuzk::gadgets::Fr;

using cuzk::test::hex;

PorepId filled(uint8_t v) {
  PorepId p;
  p.fill(v);
  return p;
}

// RFC 7693 appendix A ("abc"), the empty message, and bytes 0..127 (exactly one block) and
// 0..199 (two blocks) as Python's hashlib.blake2b computes them.
TEST(Blake2b, KnownAnswers) {
  std::vector<uint8_t> seq(200);
  for (size_t i = 0; i < seq.size(); ++i) seq[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(hex(blake2b_512(std::span<const uint8_t>(seq).first(128))),
            "2319e3789c47e2daa5fe807f61bec2a1a6537fa03f19ff32e87eecbfd64b7e0e"
            "8ccff439ac333b040f19b0c4ddd11a61e24ac1fe0f10a039806c5dcc0da3d115");
  EXPECT_EQ(hex(blake2b_512(seq)),
            "fb3c1f0f56a56f8e316fdf5d853c8c872c39635d083634c3904fc3ac07d1b578"
            "e85ff0e480e92d44ade33b62e893ee32343e79ddf6ef292e89b582d312502314");
  const std::string abc = "abc";
  EXPECT_EQ(hex(blake2b_512(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(abc.data()), abc.size()))),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  EXPECT_EQ(hex(blake2b_512({})),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
}

// porep_id of a registered proof: id u64 LE then zeros (rust-filecoin-proofs-api registry.rs).
TEST(PorepId, FromRegisteredProof) {
  const PorepId p = porep_id_from_registered_proof(8);
  EXPECT_EQ(p[0], 8);
  for (size_t i = 1; i < 32; ++i) EXPECT_EQ(p[i], 0) << i;
}

// The DRG's structure: nodes 0 and 1 have only parent 0; the predecessor sits in slot 5 (V1_0) or
// slot 0 (V1_1); every parent precedes its node.
TEST(BucketGraph, Structure) {
  for (ApiVersion api : {ApiVersion::V1_0_0, ApiVersion::V1_1_0}) {
    const BucketGraph g(1024, filled(7), api);
    EXPECT_EQ(g.parents(0), (std::array<uint32_t, 6>{}));
    EXPECT_EQ(g.parents(1), (std::array<uint32_t, 6>{}));
    for (uint64_t n = 2; n < 1024; ++n) {
      const auto ps = g.parents(n);
      EXPECT_EQ(ps[api == ApiVersion::V1_0_0 ? 5 : 0], n - 1);
      for (uint32_t p : ps) EXPECT_LT(p, n);
    }
    EXPECT_THROW((void)g.parents(1024), std::out_of_range);
  }
  // The seed is the first 28 bytes of SHA-256("Filecoin_DRSample" || porep_id): different
  // porep_ids give different graphs.
  EXPECT_NE(BucketGraph(1024, filled(1), ApiVersion::V1_1_0).parents(500),
            BucketGraph(1024, filled(2), ApiVersion::V1_1_0).parents(500));
}

// The Feistel permutation is a bijection of [0, n) for sizes that need cycle-walking, and
// invert undoes permute.
TEST(Feistel, IsAPermutation) {
  const std::array<uint64_t, 4> keys = {1, 2, 3, 4};
  for (uint64_t n : {uint64_t{5}, uint64_t{64 * 8}, uint64_t{1000}, uint64_t{4096}}) {
    const Feistel f(n, keys);
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t y = f.permute(i);
      ASSERT_LT(y, n);
      seen.insert(y);
      ASSERT_EQ(f.invert(y), i);
    }
    EXPECT_EQ(seen.size(), n);
  }
}

// storage-proofs-porep/parent_cache.json: the SHA-256 of the 2 KiB parent caches (64 nodes × 14
// u32 LE) of StackedDrg2KiBV1 (porep_id of id 0, V1_0) and StackedDrg2KiBV1_1 (id 5, V1_1). These
// pin DRG (ChaCha8 sampling, predecessor slot) and expander (Feistel keys, rounds, BLAKE2b) alike.
TEST(StackedGraph, ParentCacheDigests2KiB) {
  const StackedGraph v1(64, porep_id_from_registered_proof(0), ApiVersion::V1_0_0);
  EXPECT_EQ(hex(v1.parent_cache_digest()), "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
  const StackedGraph v11(64, porep_id_from_registered_proof(5), ApiVersion::V1_1_0);
  EXPECT_EQ(hex(v11.parent_cache_digest()), "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
  // The same graph under the other API version moves the predecessor, so the digest changes.
  const StackedGraph mixed(64, porep_id_from_registered_proof(5), ApiVersion::V1_0_0);
  EXPECT_NE(hex(mixed.parent_cache_digest()), hex(v11.parent_cache_digest()));
  // Expander parents are in range and come from the Feistel image of node·8 + i.
  for (uint64_t n = 0; n < 64; ++n) {
    for (uint32_t p : v11.expanded_parents(n)) EXPECT_LT(p, 64u);
  }
}

// storage-proofs-porep tests/stacked_vanilla.rs test_stacked_porep_generate_labels: replica_id
// [9; 32], 11 layers, the last node's label of the last layer, as four u64 limbs least significant
// first.
struct LabelCase {
  uint64_t sector_bytes;
  uint8_t porep_fill;
  ApiVersion api;
  std::array<uint64_t, 4> limbs;
};

TEST(Labels, ReferenceVectors) {
  const LabelCase cases[] = {
      {2048, 0, ApiVersion::V1_0_0, {0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37}},
      {4096, 0, ApiVersion::V1_0_0, {0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be}},
      {2048, 123, ApiVersion::V1_1_0, {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
      {4096, 123, ApiVersion::V1_1_0, {0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
      {2048, 123, ApiVersion::V1_2_0, {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
  };
  const std::array<uint8_t, 32> replica_id = filled(9);
  for (const LabelCase& c : cases) {
    const uint64_t nodes = c.sector_bytes / 32;
    const StackedGraph g(nodes, filled(c.porep_fill), c.api);
    const auto layers = generate_labels(g, replica_id, 11);
    ASSERT_EQ(layers.size(), 11u);
    std::array<uint8_t, 32> last{};
    std::copy_n(layers.back().end() - 32, 32, last.begin());
    std::array<uint8_t, 32> want{};
    for (size_t i = 0; i < 32; ++i) want[i] = static_cast<uint8_t>(c.limbs[i / 8] >> (8 * (i % 8)));
    EXPECT_EQ(hex(last), hex(want)) << c.sector_bytes << " bytes, porep_id fill " << int(c.porep_fill);
  }
}

// Node 0 hashes only the 64-byte head; every label is trimmed to 254 bits.
TEST(Labels, NodeZeroAndTrim) {
  const StackedGraph g(64, filled(1), ApiVersion::V1_1_0);
  const std::array<uint8_t, 32> replica_id = filled(3);
  const auto layers = generate_labels(g, replica_id, 2);
  const auto head = label_preimage_head(replica_id, 2, 0);
  auto d = cuzk::gadgets::sha256_native(head);
  cuzk::gadgets::trim_to_fr32(d);
  EXPECT_TRUE(std::equal(d.begin(), d.end(), layers[1].begin()));
  for (const auto& layer : layers) {
    for (size_t n = 0; n < 64; ++n) EXPECT_EQ(layer[n * 32 + 31] & 0xc0, 0) << n;
  }
  EXPECT_EQ(head[35], 2);  // layer, big-endian u32 at bytes 32..35
}

}  // namespace
