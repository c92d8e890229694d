// The label circuit (src/filecoin/create_label_circuit.hpp) against the reference's test and the
// native label, and the named test circuits of `cuzk circuit info` against every count the
// reference asserts for them.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "filecoin/create_label_circuit.hpp"
#include "filecoin/test_circuits.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using cuzk::Xoshiro256;
using cuzk::r1cs::Fr;
using cuzk::r1cs::TestCS;
using cuzk::r1cs::Variable;
using namespace cuzk::filecoin;
using namespace cuzk::gadgets;

std::vector<uint8_t> random_layer(Xoshiro256& rng, size_t nodes) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < nodes; ++i) {
    const NodeBytes b = fr_to_node_bytes(Fr::random(rng));
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// storage-proofs-porep src/stacked/circuit/create_label.rs test_create_label: a 64-node graph
// (porep_id [32; 32], V1_1), layer 3, node 22, its 14 parents' data (DRG parents from the current
// layer, expander parents from the previous one) repeated to 37 and allocated byte by byte
// (38 × 256 AllocatedBits, the replica id included, top bits not constant), layer and node
// constants. The reference asserts 532,025 constraints for the whole test circuit: 9,728 bits +
// 522,296 SHA-256 + 1 packing. (522,268 / 522,269 are the PoRep circuit's own pattern, where the
// top bit of each node is a constant and the node index is allocated: see the next test.)
TEST(CreateLabel, ReferenceTestCountAndValue) {
  Xoshiro256 rng(41);
  const size_t size = 64;
  const StackedGraph graph(size, PorepId{[] {
                             PorepId p;
                             p.fill(32);
                             return p;
                           }()},
                           ApiVersion::V1_1_0);
  const NodeBytes id = fr_to_node_bytes(Fr::random(rng));
  const uint32_t layer = 3;
  const uint64_t node = 22;
  const std::vector<uint8_t> current = random_layer(rng, size), previous = random_layer(rng, size);
  const std::vector<NodeBytes> parents = label_parents(graph, layer, node, current, previous);
  ASSERT_EQ(parents.size(), 37u);

  TestCS cs;
  std::vector<std::vector<Boolean>> parent_bits;
  for (size_t i = 0; i < parents.size(); ++i) {
    auto ns = cs.namespace_([&] { return "parents " + std::to_string(i); });
    parent_bits.push_back(alloc_bytes_be(cs, std::span<const uint8_t>(parents[i]), 32));
  }
  std::vector<Boolean> id_bits;
  {
    auto ns = cs.namespace_([] { return "id"; });
    id_bits = alloc_bytes_be(cs, std::span<const uint8_t>(id), 32);
  }
  AllocatedNum out;
  {
    auto ns = cs.namespace_([] { return "create_label"; });
    out = create_label_circuit(cs, std::span<const Boolean>(id_bits), parent_bits, UInt32::constant(layer),
                               UInt64::constant(node));
  }
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 532025u);

  const NodeBytes want = create_label(graph, id, layer, node, current, previous);
  EXPECT_EQ(out.value(), node_bytes_to_fr(want));

  // A flipped parent bit changes the digest: the packed label no longer matches the bits.
  cs.set_value(parent_bits[5][17].bit().var,
               cs.value_of(parent_bits[5][17].bit().var).is_zero() ? Fr::one() : Fr::zero());
  EXPECT_FALSE(cs.is_satisfied());
}

// The PoRep circuit's pattern (circuit/params.rs): replica_id and parent labels are numbers whose
// to_bits_le is bit-reversed per byte (a constant 0 as each node's top bit), the layer is a
// constant and the node index is the allocated challenge. create_label_circuit then costs
// 522,269 = 522,268 (SHA-256) + 1 (filecoin-circuits.md 2.3), and its value is the native label
// of the same preimage.
TEST(CreateLabel, PorepPatternCountAndValue) {
  Xoshiro256 rng(42);
  const Fr replica_id = Fr::random(rng);
  std::vector<Fr> labels;
  for (size_t i = 0; i < kDegree; ++i) {
    NodeBytes b = fr_to_node_bytes(Fr::random(rng));
    trim_to_fr32(b);  // labels are trimmed digests
    labels.push_back(node_bytes_to_fr(b));
  }
  const uint64_t challenge = 1000;
  const uint32_t layer = 2;

  TestCS cs;
  std::vector<Boolean> id;
  {
    auto ns = cs.namespace_([] { return "replica_id"; });
    id = reverse_bit_numbering(AllocatedNum::alloc(cs, replica_id).to_bits_le(cs));
  }
  UInt64 node;
  {
    auto ns = cs.namespace_([] { return "challenge"; });
    node = UInt64::alloc(cs, challenge);
  }
  std::vector<std::vector<Boolean>> parents;
  for (size_t i = 0; i < kDegree; ++i) {
    auto ns = cs.namespace_([&] { return "parent " + std::to_string(i); });
    parents.push_back(reverse_bit_numbering(AllocatedNum::alloc(cs, labels[i]).to_bits_le(cs)));
  }
  for (size_t i = 0; parents.size() < kTotalParents; ++i) parents.push_back(parents[i]);
  const size_t before = cs.num_constraints();
  AllocatedNum out;
  {
    auto ns = cs.namespace_([] { return "create_label"; });
    out = create_label_circuit(cs, std::span<const Boolean>(id), parents, UInt32::constant(layer), node);
  }
  EXPECT_EQ(cs.num_constraints() - before, 522269u);
  EXPECT_TRUE(cs.is_satisfied());

  const NodeBytes rid = fr_to_node_bytes(replica_id);
  const auto head = label_preimage_head(rid, layer, challenge);
  std::vector<uint8_t> msg(head.begin(), head.end());
  for (size_t i = 0; i < kTotalParents; ++i) {
    const NodeBytes b = fr_to_node_bytes(labels[i % kDegree]);
    msg.insert(msg.end(), b.begin(), b.end());
  }
  Sha256Digest d = sha256_native(msg);
  trim_to_fr32(d);
  EXPECT_EQ(out.value(), node_bytes_to_fr(d));

  EXPECT_THROW(create_label_circuit(cs, std::span<const Boolean>(id),
                                    std::vector<std::vector<Boolean>>(parents.begin(), parents.begin() + 36),
                                    UInt32::constant(layer), node),
               std::invalid_argument);
}

// The registry behind `cuzk circuit info` reproduces the reference counts (blank circuits under
// RecordingCS).
TEST(TestCircuits, ReferenceCounts) {
  TestCircuitParams p;
  EXPECT_EQ(test_circuit_info("sha256-block", p).reference_constraints, 25840u);
  EXPECT_EQ(test_circuit_info("sha256", p).reference_constraints, 44874u);
  EXPECT_EQ(test_circuit_info("sha256-hash2", p).constraints, 45379u);
  EXPECT_EQ(test_circuit_info("create-label", p).constraints, 532025u);
  EXPECT_EQ(test_circuit_info("create-label-porep", p).reference_constraints, 522269u);
  for (auto [size, want] : {std::pair<size_t, size_t>{2, 2}, {4, 8}, {8, 22}, {16, 240}}) {
    p.size = size;
    EXPECT_EQ(test_circuit_info("insert", p).reference_constraints, want) << size;
    EXPECT_EQ(test_circuit_info("select", p).reference_constraints, size - 1) << size;
  }
  p = {};
  p.arity = 4;
  const TestCircuitInfo por = test_circuit_info("por", p);
  EXPECT_EQ(por.constraints, 216258u);
  EXPECT_EQ(por.inputs, 3u);
  p.private_root = true;
  EXPECT_EQ(test_circuit_info("por", p).inputs, 2u);
  p.hasher = "poseidon";
  EXPECT_EQ(test_circuit_info("por", p).constraints, 1163u);  // por_circuit.rs private root, arity 4
  p.private_root = false;
  p.arity = 8;
  p.sub_arity = 8;
  p.top_arity = 2;
  EXPECT_EQ(test_circuit_info("por", p).constraints, 1907u);
  p.hasher = "blake2s";
  EXPECT_THROW(test_circuit_info("por", p), std::invalid_argument);
  EXPECT_THROW(test_circuit_info("no-such-circuit", p), std::invalid_argument);
}

}  // namespace
