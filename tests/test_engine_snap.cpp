// SNAP_DEALS_UPDATE requests at submit (engine/snap_request.hpp): a valid request decodes to its
// circuit, one partition per vanilla proof, with witnesses whose inputs are exactly those a
// verifier derives from the commitments, and every malformed one is refused (InvalidArgument)
// naming the field or the partition. Proving them through the daemon is tests/snap_e2e_test.sh.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/request_decoder.hpp"
#include "engine_request_fixture.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "filecoin/snap_synthetic.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;

// A valid request from a synthetic set (snap_synthetic.hpp): 2 KiB (one partition) by default;
// another seed gives another sector.
ProofRequest snap_request(uint64_t seed = 3, uint64_t sector_size = 2048) {
  const filecoin::SnapSyntheticSet set =
      filecoin::synthetic_snap_vanilla(filecoin::SnapCircuitShape::of(sector_size), seed);
  ProofRequest r;
  r.kind = ProofKind::SnapDealsUpdate;
  r.registered_proof = filecoin::update_proof_of_size(sector_size).id;
  r.comm_r_old = test::bytes(set.context.comm_r_old);
  r.comm_d_new = test::bytes(set.context.comm_d_new);
  r.comm_r_new = test::bytes(set.context.comm_r_new);
  for (const auto& p : set.proofs) r.vanilla_proofs.push_back(test::bytes(filecoin::to_bincode(p)));
  return r;
}

TEST(EngineSnap, AValidRequestDecodesToItsCircuitAndTheVerifiersInputs) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), true));
  const DecodeContext ctx{registry, {}};
  ProofRequest r = snap_request();
  const std::string comm_r_old = r.comm_r_old;
  auto d = decode_request(r, ctx);
  ASSERT_TRUE(d.ok()) << d.error.message;
  EXPECT_EQ(d.value->def.id, "snap:2KiB");
  EXPECT_EQ(d.value->def.source, CircuitSource::Snap);
  EXPECT_TRUE(d.value->def.test_setup);
  ASSERT_EQ(d.value->payloads.size(), 1u);
  EXPECT_TRUE(r.vanilla_proofs.empty());  // moved into the decoded request
  const std::vector<ff::Fr> want = d.value->vanilla->verifier_inputs(0);
  ASSERT_EQ(want.size(), 4u);
  // k_and_h_select of partition 0: 2 KiB has no partition bits, and hs = [1; 6] (constants.rs),
  // so h_default = 1 sits first: 2^0.
  EXPECT_EQ(want[0], ff::Fr::one());
  EXPECT_EQ(want[1], ff::Fr::from_bytes_le(std::span(reinterpret_cast<const uint8_t*>(comm_r_old.data()), 32)).value());
  const PartitionAssignment a = d.value->vanilla->assignment(0, ThreadPool::global());
  ASSERT_EQ(a.inputs.size(), want.size() + 1);
  EXPECT_TRUE(a.inputs[0].is_one());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), a.inputs.begin() + 1));
}

// 8 MiB has 4 partitions (~1.5 s to make the set): one payload each, in order, each checked
// against its own index.
TEST(EngineSnap, EveryPartitionIsAPayloadWithItsOwnInputs) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), true));
  const DecodeContext ctx{registry, {}};
  const ProofRequest good = snap_request(3, 8 << 20);
  ProofRequest r = good;
  auto d = decode_request(r, ctx);
  ASSERT_TRUE(d.ok()) << d.error.message;
  EXPECT_EQ(d.value->def.id, "snap:8MiB");
  ASSERT_EQ(d.value->payloads.size(), 4u);
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(d.value->payloads[k].partition, k);
    // k_and_h_select = k | 2^index(h) << partition_bits: hs = [7..12], h_default = hs[3] = 10
    // (constants.rs), 2 partition bits: k + 32.
    const std::vector<ff::Fr> in = d.value->vanilla->verifier_inputs(k);
    ASSERT_EQ(in.size(), 4u);
    EXPECT_EQ(in[0], ff::Fr::from_u64(k + 32)) << k;
  }
  r = good;
  std::swap(r.vanilla_proofs[1], r.vanilla_proofs[2]);
  d = decode_request(r, ctx);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error.message.find("vanilla_proofs[1] (partition 1)"), std::string::npos) << d.error.message;
  r = good;
  r.vanilla_proofs.pop_back();
  d = decode_request(r, ctx);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error.message.find("3 partition proofs"), std::string::npos) << d.error.message;
}

TEST(EngineSnap, BadRequestsAreRefusedNamingTheField) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), true));
  const DecodeContext ctx{registry, {}};
  const ProofRequest good = snap_request();
  auto expect_invalid = [&](ProofRequest r, const std::string& needle) {
    auto d = decode_request(r, ctx);
    ASSERT_FALSE(d.ok()) << needle;
    EXPECT_EQ(d.error.code, ErrorCode::InvalidArgument) << d.error.message;
    EXPECT_NE(d.error.message.find(needle), std::string::npos) << d.error.message;
  };
  ProofRequest r = good;
  r.registered_proof = 5;
  expect_invalid(r, "registered_proof: unknown registered update proof 5");
  r = good;
  r.registered_proof = 1;  // 8 MiB: a 2 KiB proof does not fit its shape
  expect_invalid(r, "vanilla_proofs");
  r = good;
  r.sector_size = 4096;
  expect_invalid(r, "sector_size 4096 does not match registered_proof StackedDrg2KiBV1");
  r = good;
  r.comm_r_old.pop_back();
  expect_invalid(r, "comm_r_old has 31 bytes; 32 expected");
  r = good;
  r.comm_d_new.clear();
  expect_invalid(r, "comm_d_new has 0 bytes");
  r = good;
  r.comm_r_new = std::string(32, '\xff');
  expect_invalid(r, "comm_r_new: not a canonical field element");
  r = good;
  std::swap(r.comm_r_old, r.comm_r_new);
  expect_invalid(r, "(partition 0)");
  r = good;
  r.vanilla_proofs.clear();
  expect_invalid(r, "no vanilla_proofs");
  r = good;
  r.vanilla_proofs.push_back(r.vanilla_proofs[0]);
  expect_invalid(r, "2 partition proofs");
  r = good;
  r.vanilla_proof = "{}";
  expect_invalid(r, "not vanilla_proof");
  r = good;
  r.randomness = std::string(32, '\0');
  expect_invalid(r, "takes no randomness");
  r = good;
  r.partition_index = 1;
  expect_invalid(r, "partition_index 1");
  r = good;
  r.vanilla_proofs[0].resize(r.vanilla_proofs[0].size() - 1);
  expect_invalid(r, "vanilla_proofs[0] (partition 0)");
  r = good;
  r.vanilla_proofs[0][40] ^= 1;  // inside the first apex leaf
  expect_invalid(r, "vanilla_proofs[0] (partition 0)");
  r = good;  // valid proofs of another sector under this request's commitments
  r.vanilla_proofs = snap_request(4).vanilla_proofs;
  expect_invalid(r, "(partition 0)");
  r = good;
  r.circuit_id = "snap:8MiB";
  expect_invalid(r, "does not match registered_proof StackedDrg2KiBV1 (snap:2KiB)");
  // The SnapDeals circuit only through its own kind.
  ProofRequest g;
  g.kind = ProofKind::Generic;
  g.circuit_id = "snap:2KiB";
  expect_invalid(g, "SNAP_DEALS_UPDATE");
}

TEST(EngineSnap, WithoutTestKeysTheOfficialFileIsNamed) {
  test::TempDir dir;
  const CircuitRegistry registry(test::engine_config(dir.str(), false));
  const DecodeContext ctx{registry, {}};
  ProofRequest r = snap_request();
  auto d = decode_request(r, ctx);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error.message.find("v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                                 "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params"),
            std::string::npos)
      << d.error.message;
  EXPECT_NE(d.error.message.find("srs.allow_test_keys"), std::string::npos) << d.error.message;
  // With the official file there, its keys are used (no test setup).
  const std::string stem =
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
      "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194";
  ASSERT_NE(filecoin::find_official_parameter_file(stem + ".params"), nullptr);
  dir.write("params/" + stem + ".params", "x");
  const CircuitRegistry with_file(test::engine_config(dir.str(), false));
  auto def = with_file.find("snap:2KiB");
  ASSERT_TRUE(def.ok()) << def.error();
  EXPECT_FALSE(def->test_setup);
  EXPECT_EQ(def->params_path, dir.str() + "/params/" + stem + ".params");
}

}  // namespace
