// C1 input: registered proofs, porep_id, parameter file names, replica_id, challenge derivation,
// parsing and validation of the C1 output and its wrapper, and the partition public inputs.
// Known answers come from the reference notes (parameter-file hashes, counts, shapes) and from an
// independent Python hashlib computation (replica_id, challenges; the script is quoted below).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "filecoin/base64.hpp"
#include "filecoin/blake2b.hpp"
#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/c1_synthetic.hpp"
#include "filecoin/chacha20.hpp"
#include "filecoin/challenges.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/porep_public_inputs.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/replica_id.hpp"
#include "gadgets/poseidon_native.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;

Bytes32 filled(uint8_t v) {
  Bytes32 b;
  b.fill(v);
  return b;
}

Bytes32 from_hex32(const std::string& hex) {
  Bytes32 b{};
  for (size_t i = 0; i < 32; ++i) b[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return b;
}

// ---------------------------------------------------------------- registered proofs

TEST(RegisteredProof, TableMatchesTheReference) {
  const auto all = registered_seal_proofs();
  ASSERT_EQ(all.size(), 20u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].id, i);
  EXPECT_EQ(registered_seal_proof("StackedDrg32GiBV1_1").id, 8u);
  EXPECT_EQ(registered_seal_proof(uint64_t{19}).name, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_EQ(registered_seal_proof("StackedDrg2KiBV1_1_Feat_SyntheticPoRep").id, 10u);
  EXPECT_THROW(registered_seal_proof("StackedDrg4KiBV1"), std::invalid_argument);
  EXPECT_THROW(registered_seal_proof(uint64_t{20}), std::invalid_argument);

  // Notes §1.1: nodes, layers, tree-D levels, tree R/C levels per size.
  struct Row {
    const char* name;
    uint64_t nodes;
    uint32_t layers, d_levels, rc_levels, sub, top, partitions, cpp;
  };
  const Row rows[] = {
      {"StackedDrg2KiBV1_1", 1ull << 6, 2, 6, 2, 0, 0, 1, 2},
      {"StackedDrg8MiBV1_1", 1ull << 18, 2, 18, 6, 0, 0, 1, 2},
      {"StackedDrg512MiBV1_1", 1ull << 24, 2, 24, 8, 0, 0, 1, 2},
      {"StackedDrg32GiBV1_1", 1ull << 30, 11, 30, 10, 8, 0, 10, 18},
      {"StackedDrg64GiBV1_1", 1ull << 31, 11, 31, 11, 8, 2, 10, 18},
      {"StackedDrg32GiBV1", 1ull << 30, 11, 30, 10, 8, 0, 10, 18},
      {"StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 1ull << 30, 11, 30, 10, 8, 0, 10, 18},
      {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 1ull << 6, 2, 6, 2, 0, 0, 13, 2},
      {"StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 1ull << 30, 11, 30, 10, 8, 0, 126, 18},
      {"StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 1ull << 31, 11, 31, 11, 8, 2, 126, 18},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    const auto& p = registered_seal_proof(r.name);
    EXPECT_EQ(p.shape.nodes, r.nodes);
    EXPECT_EQ(p.shape.sector_size, r.nodes * 32);
    EXPECT_EQ(p.shape.layers, r.layers);
    EXPECT_EQ(p.shape.tree_d_levels(), r.d_levels);
    EXPECT_EQ(p.shape.tree_rc_levels(), r.rc_levels);
    EXPECT_EQ(p.shape.base_arity, 8u);
    EXPECT_EQ(p.shape.sub_arity, r.sub);
    EXPECT_EQ(p.shape.top_arity, r.top);
    EXPECT_EQ(p.shape.drg_degree, 6u);
    EXPECT_EQ(p.shape.expansion_degree, 8u);
    EXPECT_EQ(p.partitions, r.partitions);
    EXPECT_EQ(p.challenges_per_partition, r.cpp);
    EXPECT_LE(p.challenges_per_partition, 18u);  // MAX_CHALLENGES_PER_PARTITION
  }
  EXPECT_EQ(registered_seal_proof("StackedDrg32GiBV1_1").minimum_challenges, 176u);
  EXPECT_EQ(registered_seal_proof("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep").minimum_challenges, 2253u);
  EXPECT_EQ(registered_seal_proof("StackedDrg64GiBV1_1_Feat_SyntheticPoRep").vanilla_proof_variant(),
            "StackedDrg64GiBV1");
  EXPECT_EQ((registered_seal_proof("StackedDrg2KiBV1").api_version), (ApiVersion::V1_0_0));
  EXPECT_EQ((registered_seal_proof("StackedDrg2KiBV1_1").api_version), (ApiVersion::V1_1_0));
  EXPECT_EQ((registered_seal_proof("StackedDrg2KiBV1_1_Feat_SyntheticPoRep").api_version), (ApiVersion::V1_2_0));
  EXPECT_EQ((registered_seal_proof("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep").api_version), (ApiVersion::V1_2_0));
}

TEST(RegisteredProof, PorepId) {
  // id u64 LE || nonce 0 || zeros (rust-filecoin-proofs-api registry.rs).
  Bytes32 expected{};
  expected[0] = 8;
  EXPECT_EQ(porep_id(registered_seal_proof("StackedDrg32GiBV1_1")), expected);
  expected[0] = 19;
  EXPECT_EQ(porep_id(registered_seal_proof("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep")), expected);
  EXPECT_EQ(porep_id(registered_seal_proof("StackedDrg2KiBV1")), Bytes32{});
}

TEST(RegisteredProof, ParameterFileNamesMatchParametersJson) {
  // Notes §5.4: SHA-256 of the PublicParams identifier, as named in filecoin-proofs' parameters.json.
  const std::pair<const char*, const char*> known[] = {
      {"StackedDrg2KiBV1_1", "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
      {"StackedDrg8MiBV1_1", "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
      {"StackedDrg512MiBV1_1", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
      {"StackedDrg32GiBV1_1", "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
      {"StackedDrg64GiBV1_1", "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
  };
  for (const auto& [name, hash] : known) {
    const auto& p = registered_seal_proof(name);
    const std::string tree = std::to_string(p.shape.base_arity) + "-" + std::to_string(p.shape.sub_arity) + "-" +
                             std::to_string(p.shape.top_arity);
    EXPECT_EQ(porep_parameter_file_stem(p),
              "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-" + tree + "-sha256_hasher-" + hash)
        << porep_parameter_identifier(p.shape, p.challenges_per_partition);
  }
  // One circuit per size: every version of a size names the same file.
  EXPECT_EQ(porep_parameter_file_stem(registered_seal_proof("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep")),
            porep_parameter_file_stem(registered_seal_proof("StackedDrg32GiBV1")));
}

// ---------------------------------------------------------------- replica_id and challenges
//
// Known answers computed independently with Python's hashlib:
//   prover = leb128(1000).ljust(32, b'\0'); ticket = bytes(range(32)); comm_d = b'\xaa'*31 + b'\x0a'
//   porep = (8).to_bytes(8, 'little') + bytes(24)
//   h = sha256(prover + (12345).to_bytes(8, 'big') + ticket + comm_d + porep); h[31] &= 0x3f
//   challenge(j) = int.from_bytes(sha256(prefix + j.to_bytes(4, 'little')), 'little') % (nodes-1) + 1
constexpr const char* kReplicaIdHex = "14a65e139ea7f68ebba993db5826f8a160f41a025bffb8ae8697ad8b37a3702b";

TEST(ReplicaId, KnownAnswer) {
  const Bytes32 prover = prover_id_from_actor_id(1000);
  EXPECT_EQ(prover[0], 0xe8);
  EXPECT_EQ(prover[1], 0x07);
  EXPECT_EQ(prover[2], 0x00);
  Bytes32 ticket;
  for (int i = 0; i < 32; ++i) ticket[i] = static_cast<uint8_t>(i);
  Bytes32 comm_d = filled(0xaa);
  comm_d[31] = 0x0a;
  const Bytes32 id = replica_id(prover, 12345, ticket, comm_d, porep_id(registered_seal_proof("StackedDrg32GiBV1_1")));
  EXPECT_EQ(to_hex(id), kReplicaIdHex);
  EXPECT_TRUE(is_canonical_fr(id));
  EXPECT_EQ(prover_id_from_actor_id(0), Bytes32{});
}

TEST(Challenges, InteractiveKnownAnswers) {
  const Bytes32 rid = from_hex32(kReplicaIdHex);
  const Bytes32 seed = filled(7);
  const std::vector<uint64_t> k3 = {603927037, 303748079,  5465894,    181186328, 63468943,  804375810,
                                    304315805, 1036784777, 168743458,  555177098, 640405775, 411096606,
                                    533719245, 30935638,   1035052927, 978448409, 627999087, 342273574};
  EXPECT_EQ(interactive_challenges(1ull << 30, rid, seed, 18, 3), k3);
  EXPECT_EQ(porep_challenges(registered_seal_proof("StackedDrg32GiBV1_1"), rid, Bytes32{}, seed, 3), k3);
  EXPECT_EQ(interactive_challenges(64, rid, seed, 2, 0), (std::vector<uint64_t>{51, 9}));
}

TEST(Challenges, NonInteractiveKnownAnswers) {
  const Bytes32 rid = from_hex32(kReplicaIdHex);
  Bytes32 comm_r = filled(0x11);
  comm_r[31] = 0x01;
  const std::vector<uint64_t> k125 = {638615401,  667372801,  954256549, 543624843, 947059131, 137843972,
                                      673741927,  892191263,  839293031, 261283096, 689580398, 117344945,
                                      1062518285, 1015174757, 630686203, 283126715, 3971290,   947761880};
  EXPECT_EQ(non_interactive_challenges(1ull << 30, rid, comm_r, 18, 125), k125);
  // The seed plays no part in non-interactive PoRep.
  EXPECT_EQ(porep_challenges(registered_seal_proof("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep"), rid, comm_r,
                             filled(9), 125),
            k125);
  EXPECT_EQ(non_interactive_challenges(64, rid, comm_r, 2, 12), (std::vector<uint64_t>{25, 11}));
}

TEST(Challenges, RangeAndErrors) {
  // Property: every challenge is in [1, nodes); node 0 is never challenged.
  const Bytes32 rid = from_hex32(kReplicaIdHex);
  for (uint32_t k = 0; k < 64; ++k) {
    for (uint64_t c : interactive_challenges(3, rid, filled(static_cast<uint8_t>(k)), 4, k)) {
      EXPECT_GE(c, 1u);
      EXPECT_LE(c, 2u);
    }
  }
  Bytes32 max = filled(0xff);
  EXPECT_EQ(challenge_from_digest(max, 1ull << 32), (~uint64_t{0} % ((1ull << 32) - 1)) + 1);  // 2^256-1 ≡ 1
  EXPECT_THROW(interactive_challenges(2, rid, rid, 1, 0), std::invalid_argument);
  EXPECT_THROW(porep_challenges(registered_seal_proof("StackedDrg2KiBV1_1"), rid, rid, rid, 1), std::invalid_argument);
}

TEST(Challenges, SyntheticAgainstTheReferenceHardcodedVectors) {
  // storage-proofs-porep .../vanilla/challenges.rs test_synth_challenges_against_hardcoded:
  // nodes 2^10, replica_id = Fr(55), comm_r = Fr(101), 21 synthetic challenges, rand = [1; 32].
  Bytes32 rid{}, comm_r{};
  rid[0] = 55;
  comm_r[0] = 101;
  const SyntheticChallenges synth(1 << 10, rid, comm_r, 21);
  const std::vector<uint64_t> expected_synth = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                                801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
  std::vector<uint64_t> got;
  for (uint64_t i = 0; i < synth.count(); ++i) got.push_back(synth.synthetic_challenge(i));
  EXPECT_EQ(got, expected_synth);
  EXPECT_EQ(synth.partition_challenges(filled(1), 10, 0),
            (std::vector<uint64_t>{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
  // Partitions are consecutive runs of one selection stream (challenge_partition_equivalence).
  std::vector<uint64_t> split;
  for (uint32_t k = 0; k < 4; ++k) {
    for (uint64_t c : synth.partition_indices(filled(1), 5, k)) split.push_back(c);
  }
  EXPECT_EQ(split, synth.partition_indices(filled(1), 20, 0));
  EXPECT_THROW((void)synth.synthetic_challenge(21), std::out_of_range);
  EXPECT_EQ(SyntheticChallenges(1ull << 30, rid, comm_r).count(), 1u << 18);
  EXPECT_EQ(SyntheticChallenges(64, rid, comm_r).count(), 64u);
}

TEST(Hashes, Blake2bAndChaCha20KnownAnswers) {
  auto bytes = [](std::string_view s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  auto hex = [](const auto& v) {
    std::string s;
    for (uint8_t b : v) s += "0123456789abcdef"[b >> 4], s += "0123456789abcdef"[b & 15];
    return s;
  };
  // RFC 7693 Appendix A.
  EXPECT_EQ(hex(blake2b(bytes("abc"), 64)),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  // Python hashlib.blake2b: keyed 256-bit over bytes(range(200)); keyed over nothing; 128 zero bytes.
  std::vector<uint8_t> msg(200);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(hex(blake2b(msg, 32, bytes("filecoin.io|PoRep|1|Synthetic|1|Generation"))),
            "eb6bf54c88d5f85c25eb386d42bf0b39c59c58a0581c24bbf7af8404130d4ed3");
  EXPECT_EQ(hex(blake2b({}, 32, bytes("k"))), "490b6c8300eb23464bd2f9ca37c036be5091da14ddbeafab424c4c0a1f9eaac5");
  EXPECT_EQ(hex(blake2b(std::vector<uint8_t>(128), 64)),
            "865939e120e6805438478841afb739ae4250cf372653078a065cdcfffca4caf7"
            "98e6d462b65d658fc165782640eded70963449ae1500fb0f24981d7727e22c41");
  // Python cryptography's ChaCha20 (RFC 8439 layout): key bytes(range(32)), counter 7,
  // nonce "synth-porep\0".
  ChaChaKey key;
  for (int i = 0; i < 32; ++i) key[i] = static_cast<uint8_t>(i);
  const ChaChaNonce nonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};
  EXPECT_EQ(hex(chacha20_block(key, 7, nonce)),
            "fc88fbf0798c39136e1e65bb92a42d6bd3cd0090be7174c927020ecda6181728"
            "f41e09763a94031e3e87cb96f878f787e212c8574a7cd56dbb68f6611a44c03b");
}

// ---------------------------------------------------------------- base64

TEST(Base64, RoundTripAndStrictness) {
  const std::string text = "any carnal pleas";
  for (size_t n = 0; n <= text.size(); ++n) {
    const std::string enc = base64_encode(reinterpret_cast<const uint8_t*>(text.data()), n);
    std::vector<uint8_t> dec;
    base64_decode(enc, dec);
    EXPECT_EQ(std::string(dec.begin(), dec.end()), text.substr(0, n));
  }
  // RFC 4648 §10 vectors.
  EXPECT_EQ(base64_encode(reinterpret_cast<const uint8_t*>("foobar"), 6), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(reinterpret_cast<const uint8_t*>("fo"), 2), "Zm8=");
  std::vector<uint8_t> out;
  EXPECT_THROW(base64_decode("Zm8", out), std::invalid_argument);       // length
  EXPECT_THROW(base64_decode("Zm8!", out), std::invalid_argument);      // alphabet
  EXPECT_THROW(base64_decode("Z===", out), std::invalid_argument);      // padding too long
  EXPECT_THROW(base64_decode("Zm=8", out), std::invalid_argument);      // data after padding
  EXPECT_THROW(base64_decode("Zm9=Zm9v", out), std::invalid_argument);  // padding before the end
  EXPECT_THROW(base64_decode("Zm9=", out), std::invalid_argument);      // non-zero trailing bits
  try {
    base64_decode("Zm9vYm!y", out);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "invalid base64: character 0x21 at offset 6");
  }
}

// ---------------------------------------------------------------- a synthetic, consistent C1

const RegisteredSealProof& k2KiB() {
  return registered_seal_proof("StackedDrg2KiBV1_1");
}

void expect_same(const SealCommitPhase1Output& a, const SealCommitPhase1Output& b) {
  // The writer is deterministic, so equal serializations mean equal structures.
  EXPECT_EQ(a.registered_proof, b.registered_proof);
  EXPECT_EQ(to_json(a), to_json(b));
}

TEST(C1Parse, RoundTrip2KiB) {
  const auto c1 = make_synthetic_c1(k2KiB());
  const std::string json = to_json(c1);
  const auto parsed = parse_c1_output(json);
  expect_same(c1, parsed);
  ASSERT_EQ(parsed.vanilla_proofs.size(), 1u);
  ASSERT_EQ(parsed.vanilla_proofs[0].size(), 2u);
  const auto& vp = parsed.vanilla_proofs[0][1];
  EXPECT_EQ(vp.comm_d_proofs.base.size(), 6u);
  EXPECT_EQ(vp.comm_r_last_proof.base.size(), 2u);
  EXPECT_EQ(vp.replica_column_proofs.exp_parents.size(), 8u);
  EXPECT_EQ(vp.labeling_proofs[1].layer_index, 2u);
  EXPECT_EQ(vp.encoding_proof.parents.size(), 37u);
  EXPECT_EQ(parsed.vanilla_proofs[0][0].challenge(), c1.vanilla_proofs[0][0].challenge());

  // Through the Curio/cuzk wrapper, and auto-detected either way.
  const auto w = parse_c1_wrapper(to_wrapper_json(c1, 42));
  EXPECT_EQ(w.sector_num, 42u);
  EXPECT_EQ(w.sector_size, 2048u);
  expect_same(c1, w.c1);
  expect_same(c1, parse_c1_any(to_wrapper_json(c1, 42)).c1);
  expect_same(c1, parse_c1_any(json).c1);
  // From a file, either form.
  const std::string path = ::testing::TempDir() + "c1_roundtrip.json";
  for (const std::string& text : {json, to_wrapper_json(c1, 5)}) {
    { std::ofstream(path, std::ios::binary) << text; }
    expect_same(c1, parse_c1_file(path).c1);
  }
  std::remove(path.c_str());
  EXPECT_THROW((void)parse_c1_file(path), std::runtime_error);
  // Field order and whitespace are free, as for serde.
  std::string spaced = "  {\n \"ticket\" : " + json.substr(json.find("\"ticket\":") + 9);
  spaced.pop_back();
  spaced += ", " + json.substr(1, json.find(",\"ticket\"") - 1) + "}\n";
  expect_same(c1, parse_c1_output(spaced));
}

TEST(C1Parse, RoundTripSmallShapes) {
  // 8-0-0 trees, NI (13 partitions) and synthetic challenges; the 32/64 GiB shapes (8-8-0 Sub and
  // 8-8-2 Top proofs, 11-row columns) are in test_c1_large (label slow).
  for (const char* name : {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg2KiBV1",
                           "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg8MiBV1_1"}) {
    SCOPED_TRACE(name);
    const auto c1 = make_synthetic_c1(registered_seal_proof(name), 5);
    const auto parsed = parse_c1_output(to_json(c1));
    expect_same(c1, parsed);
    const auto& mp = parsed.vanilla_proofs.back().back().comm_r_last_proof;
    EXPECT_EQ(mp.path_index(8, parsed.registered_proof->shape.sub_arity, parsed.registered_proof->shape.top_arity),
              parsed.vanilla_proofs.back().back().challenge());
  }
}

TEST(PublicInputs, OrderAndPacking2KiB) {
  const auto c1 = make_synthetic_c1(k2KiB(), 3);
  const auto in = porep_public_inputs(c1, 0);
  ASSERT_EQ(in.size(), 39u);  // 40 with Groth16's ONE (notes §1.2)
  EXPECT_EQ(in.size(), porep_num_public_inputs(k2KiB()));
  EXPECT_EQ(in[0], to_fr(c1.replica_id));
  EXPECT_EQ(in[1], to_fr(c1.comm_d));
  EXPECT_EQ(in[2], to_fr(c1.comm_r));
  const auto challenges = interactive_challenges(64, c1.replica_id, c1.seed, 2, 0);
  for (size_t i = 0; i < 2; ++i) {
    const auto& vp = c1.vanilla_proofs[0][i];
    const Fr c = Fr::from_u64(challenges[i]);
    const size_t base = 3 + 18 * i;
    EXPECT_EQ(in[base], c);
    for (size_t d = 0; d < 6; ++d) {
      EXPECT_EQ(in[base + 1 + d], Fr::from_u64(vp.replica_column_proofs.drg_parents[d].column.index));
    }
    for (size_t e = 0; e < 8; ++e) {
      EXPECT_EQ(in[base + 7 + e], Fr::from_u64(vp.replica_column_proofs.exp_parents[e].column.index));
    }
    EXPECT_EQ(in[base + 15], c);
    EXPECT_EQ(in[base + 16], c);
    EXPECT_EQ(in[base + 17], c);
  }
  EXPECT_THROW(porep_public_inputs(c1, 1), std::out_of_range);
  EXPECT_EQ(porep_num_public_inputs(registered_seal_proof("StackedDrg32GiBV1_1")), 327u);  // 328 with ONE
  EXPECT_EQ(porep_num_public_inputs(registered_seal_proof("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep")), 327u);
}

// ---------------------------------------------------------------- malformed inputs

// Expects `fn` to throw a C1Error whose message is exactly `message`.
template <class F>
void expect_error(F&& fn, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const C1Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

template <class F>
void expect_error_prefix(F&& fn, const std::string& prefix) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << prefix << "...";
  } catch (const C1Error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix) << e.what();
  }
}

void expect_c1_error(const SealCommitPhase1Output& c1, const std::string& message) {
  const std::string json = to_json(c1);
  expect_error([&] { (void)parse_c1_output(json); }, message);
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

const std::string kP = "vanilla_proofs.StackedDrg2KiBV1";

TEST(C1Validate, CountsAndShapes) {
  const auto good = make_synthetic_c1(k2KiB());
  auto c1 = good;
  c1.vanilla_proofs.push_back(c1.vanilla_proofs[0]);
  expect_c1_error(c1, kP + ": expected 1 partition for StackedDrg2KiBV1_1, got 2");
  c1 = good;
  c1.vanilla_proofs[0].pop_back();
  expect_c1_error(c1, kP + "[0]: expected 2 challenges per partition, got 1");
  c1 = good;
  c1.vanilla_proofs[0][1].comm_d_proofs.base.pop_back();
  expect_c1_error(c1, kP + "[0][1].comm_d_proofs.data.Single.path.path: expected 6 elements, got 5");
  c1 = good;
  c1.vanilla_proofs[0][1].comm_d_proofs.base[5].hashes.push_back(Bytes32{});
  expect_c1_error(c1, kP + "[0][1].comm_d_proofs.data.Single.path.path[5].hashes: expected 1 sibling, got 2");
  c1 = good;
  c1.vanilla_proofs[0][0].comm_r_last_proof.base[1].hashes.pop_back();
  expect_c1_error(c1, kP + "[0][0].comm_r_last_proof.data.Single.path.path[1].hashes: expected 7 siblings, got 6");
  c1 = good;
  c1.vanilla_proofs[0][0].replica_column_proofs.exp_parents[2].inclusion_proof.base[0].index = 8;
  expect_c1_error(c1, kP + "[0][0].replica_column_proofs.exp_parents[2].inclusion_proof.data.Single.path.path[0]"
                           ".index: 8 is not below the arity 8");
  c1 = good;
  c1.vanilla_proofs[0][0].comm_r_last_proof.shape = MerkleShape::kSub;
  expect_c1_error(c1, kP + "[0][0].comm_r_last_proof.data: expected a Single proof for this tree, got Sub");
  c1 = good;
  c1.vanilla_proofs[0][1].replica_column_proofs.drg_parents.pop_back();
  expect_c1_error(c1, kP + "[0][1].replica_column_proofs.drg_parents: expected 6 DRG parent columns, got 5");
  c1 = good;
  c1.vanilla_proofs[0][1].replica_column_proofs.exp_parents[7].column.rows.pop_back();
  expect_c1_error(c1, kP + "[0][1].replica_column_proofs.exp_parents[7].column.rows: expected 2 rows (one per layer), "
                           "got 1");
  c1 = good;
  c1.vanilla_proofs[0][0].labeling_proofs.pop_back();
  expect_c1_error(c1, kP + "[0][0].labeling_proofs: expected 2 labeling proofs (one per layer), got 1");
  c1 = good;
  c1.vanilla_proofs[0][0].labeling_proofs[1].parents.pop_back();
  expect_c1_error(c1, kP + "[0][0].labeling_proofs[1].parents: expected 37 parent labels, got 36");
  c1 = good;
  c1.vanilla_proofs[0][0].labeling_proofs[1].layer_index = 1;
  expect_c1_error(c1, kP + "[0][0].labeling_proofs[1].layer_index: expected layer 2, got 1");
  c1 = good;
  c1.vanilla_proofs[0][0].encoding_proof.layer_index = 1;
  expect_c1_error(c1, kP + "[0][0].encoding_proof.layer_index: expected layer 2, got 1");
}

TEST(C1Validate, ValuesAndConsistency) {
  const auto good = make_synthetic_c1(k2KiB());
  auto c1 = good;
  c1.comm_d = Bytes32{};
  expect_c1_error(c1, "comm_d: is zero (C2 rejects a zero comm_d)");
  c1 = good;
  c1.comm_r = Bytes32{};
  expect_c1_error(c1, "comm_r: is zero (C2 rejects a zero comm_r)");
  c1 = good;
  c1.seed = Bytes32{};
  expect_c1_error(c1, "seed: is zero (C2 rejects a zero seed)");
  c1 = good;
  c1.replica_id = filled(0xff);
  expect_c1_error(
      c1, "replica_id: not a canonical field element (>= the BLS12-381 scalar modulus): " + std::string(64, 'f'));
  c1 = good;
  c1.vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].column.rows[0][31] = 0x80;
  expect_c1_error(c1, kP +
                          "[0][1].replica_column_proofs.drg_parents[3].column.rows[0]: not a canonical field "
                          "element (>= the BLS12-381 scalar modulus): " +
                          to_hex(c1.vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].column.rows[0]));
  // A different seed derives different challenges.
  c1 = good;
  c1.seed[0] ^= 1;
  {
    const auto expected = interactive_challenges(64, c1.replica_id, c1.seed, 2, 0);
    expect_c1_error(c1, kP + "[0][0].labeling_proofs[0].node: challenge " +
                            std::to_string(good.vanilla_proofs[0][0].challenge()) +
                            " is not the one derived from replica_id and seed (" + std::to_string(expected[0]) + ")");
  }
  {
    // Synthetic PoRep: the challenges depend on comm_r as well as the seed.
    auto synth = make_synthetic_c1(registered_seal_proof("StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), 4);
    EXPECT_NO_THROW(validate_c1_output(synth));
    synth.seed[5] ^= 1;
    const auto expected = porep_challenges(*synth.registered_proof, synth.replica_id, synth.comm_r, synth.seed, 0);
    if (expected[0] != synth.vanilla_proofs[0][0].challenge()) {
      expect_c1_error(synth, kP + "[0][0].labeling_proofs[0].node: challenge " +
                                 std::to_string(synth.vanilla_proofs[0][0].challenge()) +
                                 " is not the one derived from replica_id, comm_r and seed (synthetic) (" +
                                 std::to_string(expected[0]) + ")");
    } else {
      ADD_FAILURE() << "the flipped seed selected the same first challenge; pick another flip";
    }
  }
  c1 = good;
  c1.vanilla_proofs[0][1].labeling_proofs[1].node += 1;
  expect_c1_error(c1, kP + "[0][1].labeling_proofs[1].node: expected the challenged node " +
                          std::to_string(good.vanilla_proofs[0][1].challenge()) + ", got " +
                          std::to_string(good.vanilla_proofs[0][1].challenge() + 1));
  c1 = good;
  c1.vanilla_proofs[0][1].comm_d_proofs.root[0] ^= 1;
  expect_c1_error(c1, kP + "[0][1].comm_d_proofs.data.Single.root: does not equal comm_d");
  c1 = good;
  c1.vanilla_proofs[0][0].comm_d_proofs.base[0].index ^= 1;
  expect_c1_error(c1, kP + "[0][0].comm_d_proofs.data.Single.path: proves leaf " +
                          std::to_string(good.vanilla_proofs[0][0].challenge() ^ 1) + ", not the challenge " +
                          std::to_string(good.vanilla_proofs[0][0].challenge()));
  c1 = good;
  c1.vanilla_proofs[0][1].replica_column_proofs.exp_parents[4].column.index ^= 1;
  {
    const uint32_t idx = good.vanilla_proofs[0][1].replica_column_proofs.exp_parents[4].column.index;
    expect_c1_error(c1, kP +
                            "[0][1].replica_column_proofs.exp_parents[4].inclusion_proof.data.Single.path: proves "
                            "leaf " +
                            std::to_string(idx) + ", but the column is node " + std::to_string(idx ^ 1));
  }
  c1 = good;
  c1.vanilla_proofs[0][1].replica_column_proofs.c_x.column.rows[1][0] ^= 1;
  expect_c1_error(c1, kP + "[0][1].replica_column_proofs.c_x.inclusion_proof.data.Single.leaf: is not the Poseidon "
                           "hash of the column's rows");
  c1 = good;
  c1.vanilla_proofs[0][0].comm_r_last_proof.leaf[0] ^= 1;
  expect_c1_error(c1, kP + "[0][0].comm_r_last_proof.data.Single.leaf: is not the last layer's label plus the data "
                           "leaf (the encoded node)");
  c1 = good;
  c1.vanilla_proofs[0][1].comm_r_last_proof.root[0] ^= 1;
  expect_c1_error(c1, kP + "[0][1].comm_r_last_proof.data.Single.root: differs from the tree-R root of " + kP +
                          "[0][0].comm_r_last_proof (one tree per sector)");
  c1 = good;
  c1.comm_r[0] ^= 1;
  // comm_r also feeds nothing else in interactive PoRep, so the Poseidon check is what catches it.
  expect_c1_error(c1, "comm_r: is not Poseidon(comm_c, comm_r_last) of the vanilla proofs");
}

TEST(C1Parse, SchemaErrors) {
  const auto good = make_synthetic_c1(k2KiB());
  const std::string json = to_json(good);
  auto parse = [](const std::string& s) { return [s] { (void)parse_c1_output(s); }; };

  expect_error(parse(replace_once(json, "\"StackedDrg2KiBV1_1\"", "\"StackedDrg8MiBV1_1\"")),
               "vanilla_proofs: variant \"StackedDrg2KiBV1\" does not match registered_proof StackedDrg8MiBV1_1 "
               "(expected \"StackedDrg8MiBV1\")");
  expect_error(
      parse(replace_once(json, "\"StackedDrg2KiBV1_1\"", "\"StackedDrg2KiBV9\"")),
      "registered_proof: unknown registered seal proof \"StackedDrg2KiBV9\" (known: " +
          [] {
            std::string s;
            for (const auto& p : registered_seal_proofs()) s += (s.empty() ? "" : ", ") + std::string(p.name);
            return s;
          }() +
          ")");
  // A 50 MB registered_proof is quoted by a short prefix and its length, never whole.
  try {
    (void)parse_c1_output(replace_once(json, "\"StackedDrg2KiBV1_1\"", "\"" + std::string(50'000'000, 'S') + "\""));
    ADD_FAILURE() << "a 50 MB registered_proof was accepted";
  } catch (const C1Error& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 2000u);
    EXPECT_NE(what.find("... (50000000 bytes)"), std::string::npos) << what.substr(0, 2000);
  }
  const std::string ticket = ",\"ticket\":" + json.substr(json.find("\"ticket\":") + 9);
  expect_error(parse(replace_once(json, ticket, "}")), "(document): missing field \"ticket\"");
  expect_error(parse(replace_once(json, "\"layer_index\":1,", "")),
               kP + "[0][0].labeling_proofs[0]: missing field \"layer_index\"");
  expect_error(parse(replace_once(json, "\"registered_proof\"", "\"extra\":1,\"registered_proof\"")),
               "(document): unknown field \"extra\" (expected registered_proof, vanilla_proofs, comm_r, comm_d, "
               "replica_id, seed, ticket)");
  expect_error(parse(replace_once(json, "\"layer_index\":1,", "\"layer_index\":1,\"layer_index\":1,")),
               kP + "[0][0].labeling_proofs[0]: duplicate field \"layer_index\"");
  const std::string seed = "\"seed\":[" + std::to_string(good.seed[0]) + ",";
  expect_error(parse(replace_once(json, seed, "\"seed\":[700,")), "seed[0]: 700 is out of range (max 255)");
  expect_error(parse(replace_once(json, seed, "\"seed\":[")), "seed: expected 32 bytes, got 31");
  expect_error_prefix(parse(replace_once(json, seed, "\"seed\":[-1,")), "seed[0]: expected an unsigned integer (");
  expect_error_prefix(parse(replace_once(json, "\"comm_r\":[", "\"comm_r\":{\"a\":[")), "comm_r: expected an array (");
  expect_error_prefix(parse(replace_once(json, "{\"Single\":", "{\"Double\":")),
                      kP + "[0][0].comm_d_proofs.data: unknown field \"Double\" (expected Single, Sub, Top)");
  expect_error(parse(replace_once(json, "\"_h\":null", "\"_h\":null,\"rows\":[]")),
               kP + "[0][0].replica_column_proofs.c_x.column: duplicate field \"rows\"");
  expect_error(parse(json + " {}"), "(document): unexpected content after the top-level object");
  expect_error_prefix(parse(json + " 5"), "(document): expected a JSON object (");
  expect_error_prefix(parse("[1,2]"), "(document): expected a JSON object (");
  expect_error_prefix(parse(""), "(document): ");
  expect_error(parse("{}"), "(document): missing field \"registered_proof\"");
  expect_error(parse(replace_once(json, "\"vanilla_proofs\":{", "\"vanilla_proofs\":{\"X\":[],")),
               "vanilla_proofs: expected exactly one VanillaSealProof variant, got a second one \"StackedDrg2KiBV1\"");
}

TEST(C1Parse, WrapperErrors) {
  const auto good = make_synthetic_c1(k2KiB());
  const std::string w = to_wrapper_json(good, 9);
  auto parse = [](const std::string& s) { return [s] { (void)parse_c1_wrapper(s); }; };
  expect_error(parse(replace_once(w, "\"SectorSize\":2048", "\"SectorSize\":8388608")),
               "SectorSize: 8388608 does not match registered_proof StackedDrg2KiBV1_1 (2048 bytes)");
  expect_error(parse(replace_once(w, "\"Phase1Out\":\"", "\"Phase1Out\":\"!!!!")),
               "Phase1Out: invalid base64: character 0x21 at offset 0");
  expect_error(parse(replace_once(w, ",\"SectorSize\":2048", "")), "(document): missing field \"SectorSize\"");
  expect_error_prefix(parse(replace_once(w, "\"SectorNum\":9", "\"SectorNum\":\"9\"")),
                      "SectorNum: expected an unsigned integer (");
  expect_error_prefix(parse(replace_once(w, "\"SectorNum\":9", "\"SectorNum\":-1")),
                      "SectorNum: expected an unsigned integer (");
  expect_error_prefix(parse(replace_once(w, "\"SectorNum\":9", "\"SectorNum\":9223372036854775808")), "SectorNum: ");
  EXPECT_EQ(parse_c1_wrapper(replace_once(w, "\"SectorNum\":9", "\"SectorNum\":9223372036854775807")).sector_num,
            9223372036854775807u);
  // Errors inside the decoded document are reported under Phase1Out/.
  auto bad = good;
  bad.vanilla_proofs[0][1].comm_d_proofs.base[5].hashes.clear();
  expect_error(parse(to_wrapper_json(bad, 9)),
               "Phase1Out/" + kP + "[0][1].comm_d_proofs.data.Single.path.path[5].hashes: expected 1 sibling, got 0");
  bad = good;
  bad.comm_d = Bytes32{};
  expect_error(parse(to_wrapper_json(bad, 9)), "Phase1Out/comm_d: is zero (C2 rejects a zero comm_d)");
  // A non-JSON payload.
  const std::string junk = "{\"SectorNum\":1,\"Phase1Out\":\"" +
                           base64_encode(reinterpret_cast<const uint8_t*>("nope"), 4) + "\",\"SectorSize\":2048}";
  expect_error_prefix(parse(junk), "Phase1Out: ");
}

// Fuzz-style: truncations and byte flips of a valid input never crash; each either parses to a
// valid output or throws a C1Error (ASan/UBSan builds check the "never crash" part).
TEST(C1Parse, TruncationsAndFlipsFailCleanly) {
  const auto good = make_synthetic_c1(k2KiB(), 11);
  const std::string json = to_json(good);
  const std::string wrapper = to_wrapper_json(good, 3);
  std::mt19937_64 rng(99);
  size_t rejected = 0, runs = 0;
  auto attempt = [&](const std::string& text) {
    ++runs;
    try {
      (void)parse_c1_any(text);
    } catch (const C1Error&) {
      ++rejected;
    }
  };
  for (size_t len = 0; len < json.size(); len += 1 + len / 8) attempt(json.substr(0, len));
  for (size_t len = 0; len < wrapper.size(); len += 1 + len / 4) attempt(wrapper.substr(0, len));
  const std::string specials = "{}[],:\"0-9e.\\ \x00\xff";
  for (int i = 0; i < 1500; ++i) {
    std::string t = (i % 3 == 0) ? wrapper : json;
    const size_t flips = 1 + rng() % 3;
    for (size_t f = 0; f < flips; ++f) {
      const size_t at = rng() % t.size();
      t[at] = (rng() & 1) ? specials[rng() % specials.size()] : static_cast<char>(t[at] ^ (1 << (rng() % 8)));
    }
    attempt(t);
  }
  // Nearly all of them must be rejected (a flip inside an unchecked sibling hash may stay valid).
  EXPECT_GT(rejected, runs * 9 / 10);
}

TEST(MerkleTrees, NodeHashKnownAnswers) {
  // Notes §6, tree D: the zero-subtree ladder; level 1 = H(0, 0) starts f5a5fd42, level 6 (the
  // empty 2 KiB sector's comm_d, filecoin-proofs tests/pieces.rs) starts fc7e9282.
  Bytes32 node{};
  node = sha256_tree_node(node, node);
  EXPECT_EQ(to_hex(node).substr(0, 8), "f5a5fd42");
  for (int level = 2; level <= 6; ++level) node = sha256_tree_node(node, node);
  EXPECT_EQ(to_hex(node).substr(0, 8), "fc7e9282");
  // Notes §6, filecoin-hashers test_poseidon_hasher: a binary Poseidon tree over [1, 0, 0, 1].
  const Bytes32 one = to_bytes(Fr::one()), zero{};
  const Bytes32 n10 = poseidon_tree_node(std::vector<Bytes32>{one, zero});
  EXPECT_EQ(to_fr(n10), *Fr::from_hex("0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e"));
  const Bytes32 root =
      poseidon_tree_node(std::vector<Bytes32>{n10, poseidon_tree_node(std::vector<Bytes32>{zero, one})});
  EXPECT_EQ(to_fr(root), *Fr::from_hex("0x1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671"));
}

TEST(C1Validate, MerklePathsHashUpToTheirRoots) {
  // A 2 KiB synthetic C1 has real trees, so every path verifies.
  const C1ValidateOptions verify{.verify_merkle_paths = true};
  const auto good = make_synthetic_c1(k2KiB(), 8);
  EXPECT_NO_THROW(validate_c1_output(good, verify));
  EXPECT_NO_THROW((void)parse_c1_wrapper(to_wrapper_json(good, 1), verify));
  const Bytes32 other = to_bytes(Fr::from_u64(12345));

  auto bad = good;
  bad.vanilla_proofs[0][1].comm_d_proofs.base[3].hashes[0] = other;
  EXPECT_NO_THROW(validate_c1_output(bad));  // the structural checks cannot see it
  expect_error([&] { validate_c1_output(bad, verify); },
               kP + "[0][1].comm_d_proofs.data.Single.root: the leaf and the path's siblings hash to a different root");
  bad = good;
  bad.vanilla_proofs[0][0].replica_column_proofs.exp_parents[6].inclusion_proof.base[1].hashes[6] = other;
  expect_error([&] { validate_c1_output(bad, verify); },
               kP + "[0][0].replica_column_proofs.exp_parents[6].inclusion_proof.data.Single.root: the leaf and the "
                    "path's siblings hash to a different root");
  bad = good;
  bad.vanilla_proofs[0][0].comm_r_last_proof.base[0].hashes[2] = other;
  expect_error([&] { (void)parse_c1_output(to_json(bad), verify); },
               kP + "[0][0].comm_r_last_proof.data.Single.root: the leaf and the path's siblings hash to a different "
                    "root");
}

}  // namespace
