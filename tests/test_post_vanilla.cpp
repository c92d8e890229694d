// PoSt vanilla proofs (issue #20 item 2): the bincode FallbackPoStSectorProof parser against a
// proof the reference implementation made (curio lib/proof/testgolden/post.vproof), truncated,
// oversized and malformed input; validation refusing tampered proofs with the sector and the
// field named; V1 / V1_1 challenge indexing.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "filecoin/post_challenges.hpp"
#include "filecoin/post_error.hpp"
#include "filecoin/post_validate.hpp"
#include "post_fixture.hpp"

namespace cuzk::filecoin {
namespace {

using test::bytes_of;

std::vector<uint8_t> read_vector(const char* name) {
  std::ifstream f(std::string(CUZK_VECTORS_DIR) + "/post/" + name, std::ios::binary);
  EXPECT_TRUE(f.good()) << name;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// make_prover_id(1000): the actor id's LEB128 bytes, left-aligned in 32 zero bytes.
Bytes32 prover_1000() {
  Bytes32 b{};
  b[0] = 0xe8;
  b[1] = 0x07;
  return b;
}

template <class F>
PostVanillaError expect_vanilla_error(F&& f) {
  try {
    f();
  } catch (const PostVanillaError& e) {
    return e;
  }
  ADD_FAILURE() << "no PostVanillaError";
  return PostVanillaError(0, {}, "", "");
}

// The golden proof: WindowPoSt 32 GiB (StackedDrgWindow32GiBV1, id 8), sector 1 of miner 1000,
// randomness zero (curio lib/proof/testgolden/postpub.json); comm_r is the digest of its CID
// bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl.
TEST(PostVanilla, ReferenceProofParsesAndValidates) {
  const std::vector<uint8_t> bytes = read_vector("curio-window-32gib.vproof");
  ASSERT_EQ(bytes.size(), 24'960u);
  const FallbackPostSectorProof p = parse_post_sector_proof(bytes, 0);
  EXPECT_EQ(p.sector_id, 1u);
  EXPECT_EQ(to_hex(p.comm_r), "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b");
  ASSERT_EQ(p.sectors.size(), 1u);
  ASSERT_EQ(p.sectors[0].inclusion_proofs.size(), 10u);
  EXPECT_EQ(p.sectors[0].inclusion_proofs[0].shape, MerkleShape::kSub);
  EXPECT_EQ(to_bincode(p), bytes);

  PostRequestContext ctx{&registered_post_proof(8), Bytes32{}, prover_1000(), 0};
  EXPECT_EQ(ctx.proof->name, "StackedDrgWindow32GiBV1");
  const std::vector<std::vector<uint8_t>> blobs{bytes};
  EXPECT_NO_THROW(parse_post_vanilla(ctx, blobs));
  // The first sector's challenges are the same under 1.2.0's indexing.
  ctx.proof = &registered_post_proof("StackedDrgWindow32GiBV1_1");
  EXPECT_NO_THROW(parse_post_vanilla(ctx, blobs));
  // In partition 1 (V1: challenge index 23490 + n) or with other randomness, the leaves differ.
  ctx.proof = &registered_post_proof(8);
  ctx.partition_index = 1;
  PostVanillaError e = expect_vanilla_error([&] { parse_post_vanilla(ctx, blobs); });
  EXPECT_EQ(e.sector_id(), 1u);
  EXPECT_EQ(e.field(), "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof");
  EXPECT_NE(e.problem().find("challenge 23490"), std::string::npos) << e.what();
  ctx.partition_index = 0;
  ctx.randomness = bytes_of(1);
  e = expect_vanilla_error([&] { parse_post_vanilla(ctx, blobs); });
  EXPECT_NE(std::string(e.what()).find("vanilla_proofs[0] (sector 1): "), std::string::npos) << e.what();
}

TEST(PostVanilla, TruncatedOversizedAndMalformedInputAreRefused) {
  const std::vector<uint8_t> bytes = read_vector("curio-window-32gib.vproof");
  // Proper prefixes: every one up to 600 bytes (the header, the first proof's levels), then every
  // 7th: a short read or a length that cannot fit.
  for (size_t n = 0; n < bytes.size(); n += (n < 600 ? 1 : 7)) {
    const std::span<const uint8_t> prefix(bytes.data(), n);
    const PostVanillaError e = expect_vanilla_error([&] { parse_post_sector_proof(prefix, 3); });
    const bool short_read = e.problem().find("truncated") != std::string::npos;
    EXPECT_TRUE(short_read || e.problem().find("cannot fit") != std::string::npos) << n << ": " << e.what();
    EXPECT_EQ(e.index(), 3u);
    if (n >= 8) {
      EXPECT_EQ(e.sector_id(), 1u);
    }
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  PostVanillaError e = expect_vanilla_error([&] { parse_post_sector_proof(longer, 0); });
  EXPECT_NE(e.problem().find("1 bytes after the end"), std::string::npos) << e.what();

  // A forged length is refused before anything is allocated: inclusion_proofs at byte 48.
  std::vector<uint8_t> forged = bytes;
  forged[48 + 7] = 0x10;
  e = expect_vanilla_error([&] { parse_post_sector_proof(forged, 0); });
  EXPECT_EQ(e.field(), "vanilla_proof.sectors[0].inclusion_proofs");
  EXPECT_NE(e.problem().find("cannot fit"), std::string::npos) << e.what();

  // The first MerkleProof's variant index (byte 56): 3 is none of Single, Sub, Top.
  std::vector<uint8_t> variant = bytes;
  variant[56] = 3;
  e = expect_vanilla_error([&] { parse_post_sector_proof(variant, 0); });
  EXPECT_EQ(e.field(), "vanilla_proof.sectors[0].inclusion_proofs[0].data");
  // Single instead of Sub: parses (the layouts differ) or not, but never validates.
  variant[56] = 0;
  PostRequestContext ctx{&registered_post_proof(8), Bytes32{}, prover_1000(), 0};
  EXPECT_THROW(parse_post_vanilla(ctx, std::vector<std::vector<uint8_t>>{variant}), PostVanillaError);
}

// A 2 KiB sector (tree R 8-0-0 over 64 leaves) and its valid WindowPoSt proofs.
struct Window2KiB {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow2KiBV1_1");
  Bytes32 randomness = test::random_fr_bytes(77);
  DenseTree tree = test::random_tree_r({8, 0, 0}, 64, 5);
  Bytes32 comm_c = test::random_fr_bytes(99);

  FallbackPostSectorProof make(uint64_t sector_id, uint64_t sector_index, const RegisteredPostProof* p = nullptr) {
    return build_post_sector_proof(p ? *p : proof, tree, comm_c, sector_id, randomness, sector_index);
  }
  PostRequestContext ctx(uint32_t partition = 0) const { return {&proof, randomness, Bytes32{}, partition}; }
};

TEST(PostVanilla, GeneratedProofsRoundTripAndValidate) {
  Window2KiB w;
  const std::vector<FallbackPostSectorProof> proofs{w.make(10, 0), w.make(11, 1)};
  for (const FallbackPostSectorProof& p : proofs) {
    const FallbackPostSectorProof back = parse_post_sector_proof(to_bincode(p), 0);
    EXPECT_EQ(to_bincode(back), to_bincode(p));
  }
  EXPECT_NO_THROW(validate_post_vanilla(w.ctx(), proofs));
  EXPECT_NO_THROW(validate_post_vanilla(w.ctx(), std::span(proofs).first(1)));
}

TEST(PostVanilla, TamperedProofsAreRefusedNamingSectorAndField) {
  Window2KiB w;
  const std::vector<FallbackPostSectorProof> good{w.make(10, 0), w.make(11, 1)};
  auto refuse = [&](const std::function<void(std::vector<FallbackPostSectorProof>&)>& tamper) {
    std::vector<FallbackPostSectorProof> proofs = good;
    tamper(proofs);
    return expect_vanilla_error([&] { validate_post_vanilla(w.ctx(), proofs); });
  };
  const std::string ip3 = "vanilla_proof.sectors[0].inclusion_proofs[3].data.Single.";
  // A sibling changed: the path no longer reaches comm_r_last.
  PostVanillaError e = refuse([](auto& p) { p[1].sectors[0].inclusion_proofs[3].base[1].hashes[2][0] ^= 1; });
  EXPECT_EQ(e.index(), 1u);
  EXPECT_EQ(e.sector_id(), 11u);
  EXPECT_EQ(e.field(), ip3 + "root");
  EXPECT_NE(std::string(e.what()).find("vanilla_proofs[1] (sector 11): " + ip3 + "root: "), std::string::npos);
  // A non-canonical sibling (all ones: far above the modulus).
  e = refuse([](auto& p) { p[0].sectors[0].inclusion_proofs[3].base[0].hashes[6].fill(0xff); });
  EXPECT_EQ(e.field(), ip3 + "path.path[0].hashes[6]");
  EXPECT_NE(e.problem().find("canonical"), std::string::npos);
  e = refuse([](auto& p) { p[0].sectors[0].inclusion_proofs[3].base[0].index = 8; });
  EXPECT_EQ(e.field(), ip3 + "path.path[0].index");
  e = refuse([](auto& p) { p[0].sectors[0].inclusion_proofs[3].base.pop_back(); });
  EXPECT_EQ(e.field(), ip3 + "path.path");
  e = refuse([](auto& p) { p[0].sectors[0].inclusion_proofs.pop_back(); });
  EXPECT_EQ(e.field(), "vanilla_proof.sectors[0].inclusion_proofs");
  e = refuse([](auto& p) { p[0].comm_r[0] ^= 1; });
  EXPECT_EQ(e.field(), "comm_r");
  e = refuse([](auto& p) { p[1].sectors[0].comm_c[0] ^= 1; });
  EXPECT_EQ(e.field(), "comm_r");
  e = refuse([](auto& p) { p[1].sectors.push_back(p[1].sectors[0]); });
  EXPECT_EQ(e.field(), "vanilla_proof.sectors");
  e = refuse([](auto& p) { p[1].sector_id = 10; });
  EXPECT_EQ(e.field(), "sector_id");
  // A valid path, but to the leaf after the challenged one.
  e = refuse([&](auto& p) {
    MerkleProof& mp = p[1].sectors[0].inclusion_proofs[0];
    mp = w.tree.prove((mp.path_index(8, 0, 0) + 1) % 64);
  });
  EXPECT_EQ(e.field(), "vanilla_proof.sectors[0].inclusion_proofs[0].data.Single.path");
}

TEST(PostVanilla, RequestFieldsAreChecked) {
  Window2KiB w;
  const std::vector<FallbackPostSectorProof> three{w.make(1, 0), w.make(2, 1), w.make(3, 2)};
  EXPECT_THROW(validate_post_vanilla(w.ctx(), three), std::invalid_argument);  // 2 sectors per partition
  EXPECT_THROW(validate_post_vanilla(w.ctx(), {}), std::invalid_argument);
  PostRequestContext bad = w.ctx();
  bad.randomness.fill(0xff);
  EXPECT_THROW(validate_post_vanilla(bad, std::span(three).first(1)), std::invalid_argument);
  bad = w.ctx();
  bad.prover_id.fill(0xff);
  EXPECT_THROW(validate_post_vanilla(bad, std::span(three).first(1)), std::invalid_argument);
  const RegisteredPostProof& winning = registered_post_proof("StackedDrgWinning2KiBV1");
  const FallbackPostSectorProof wp = w.make(1, 0, &winning);
  EXPECT_EQ(wp.sectors[0].inclusion_proofs.size(), 66u);
  PostRequestContext wctx{&winning, w.randomness, Bytes32{}, 0};
  EXPECT_NO_THROW(validate_post_vanilla(wctx, std::span(&wp, 1)));
  wctx.partition_index = 1;
  EXPECT_THROW(validate_post_vanilla(wctx, std::span(&wp, 1)), std::invalid_argument);
}

// V1 (ApiVersion 1.0.0) indexes a sector's challenges by its position in the whole proof, V1_1
// (1.2.0) does not: the second sector's (and partition 1's) proofs differ.
TEST(PostVanilla, ChallengeIndexingDependsOnTheApiVersion) {
  const RegisteredPostProof& v1 = registered_post_proof("StackedDrgWindow2KiBV1");
  const RegisteredPostProof& v11 = registered_post_proof("StackedDrgWindow2KiBV1_1");
  EXPECT_EQ(v1.api_version, ApiVersion::V1_0_0);
  EXPECT_EQ(v11.api_version, ApiVersion::V1_2_0);
  EXPECT_EQ(post_challenge_index(v1.api_version, 3, 10, 4), 34u);
  EXPECT_EQ(post_challenge_index(v11.api_version, 3, 10, 4), 4u);
  Window2KiB w;
  const std::vector<FallbackPostSectorProof> p1{w.make(1, 2, &v1), w.make(2, 3, &v1)};
  const std::vector<FallbackPostSectorProof> p11{w.make(1, 2, &v11), w.make(2, 3, &v11)};
  EXPECT_NO_THROW(validate_post_vanilla({&v1, w.randomness, Bytes32{}, 1}, p1));
  EXPECT_NO_THROW(validate_post_vanilla({&v11, w.randomness, Bytes32{}, 1}, p11));
  EXPECT_NO_THROW(validate_post_vanilla({&v11, w.randomness, Bytes32{}, 0}, p11));
  EXPECT_THROW(validate_post_vanilla({&v1, w.randomness, Bytes32{}, 0}, p1), PostVanillaError);
  EXPECT_THROW(validate_post_vanilla({&v1, w.randomness, Bytes32{}, 1}, p11), PostVanillaError);
}

TEST(PostVanilla, WinningSectorChallengeIsReducedModTheSetSize) {
  const uint64_t c = winning_post_sector_challenge(Bytes32{}, prover_1000(), 0, 7);
  EXPECT_LT(c, 7u);
  EXPECT_THROW(winning_post_sector_challenge(Bytes32{}, prover_1000(), 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::filecoin
