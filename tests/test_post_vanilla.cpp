// PoSt vanilla proofs (issue #20 item 2): the bincode FallbackPoStSectorProof parser against a
// proof the reference implementation made (curio lib/proof/testgolden/post.vproof), truncated,
// oversized and malformed input; validation refusing tampered proofs with the sector and the
// field named; V1 / V1_1 challenge indexing; synthetic vanilla proofs (post_synthetic.hpp) at every
// tree shape passing that validator.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/post_challenges.hpp"
#include "filecoin/post_error.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_synthetic.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/replica_id.hpp"
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

PostVanillaRequest synthetic_request(const RegisteredPostProof& proof, std::vector<uint64_t> sectors) {
  PostVanillaRequest req;
  req.proof = &proof;
  req.prover_id = prover_1000();
  req.randomness = synthetic_post_randomness(7);
  req.sector_ids = std::move(sectors);
  req.rng_seed = 3;
  return req;
}

// Every tree R shape: 2 KiB Single, 8 MiB and 32 GiB Sub (2^30 leaves), 64 GiB Top; both kinds.
// The proofs pass the strict validator, also read back from a request file as the daemon gets
// them, and are refused under other randomness (their leaves are the challenged ones, no others).
TEST(PostSynthetic, EverySizeAndKindPassesTheValidator) {
  for (const char* size : {"2KiB", "8MiB", "32GiB", "64GiB"}) {
    for (const PostType type : {PostType::kWindow, PostType::kWinning}) {
      const RegisteredPostProof& proof = default_post_proof(type, parse_sector_size(size));
      SCOPED_TRACE(std::string(proof.name));
      const PostVanillaRequest req = synthetic_request(proof, {5, 6});
      const std::vector<FallbackPostSectorProof> proofs = synthetic_post_vanilla(req);
      ASSERT_EQ(proofs.size(), type == PostType::kWindow ? 2u : 1u);
      const MerkleShape want = proof.shape.top_arity   ? MerkleShape::kTop
                               : proof.shape.sub_arity ? MerkleShape::kSub
                                                       : MerkleShape::kSingle;
      EXPECT_EQ(proofs[0].sectors.at(0).inclusion_proofs.at(0).shape, want);
      const PostRequestContext ctx = post_request_context(req);
      EXPECT_NO_THROW(validate_post_vanilla(ctx, proofs));
      PostRequestFile f{&proof, 1000, req.randomness, 0, {}};
      for (const auto& p : proofs) f.vanilla_proofs.push_back(to_bincode(p));
      const PostRequestFile back = parse_post_request_file(to_json(f));
      EXPECT_NO_THROW(parse_post_vanilla(ctx, back.vanilla_proofs));
      PostRequestContext other = ctx;
      other.randomness = synthetic_post_randomness(8);
      EXPECT_THROW(validate_post_vanilla(other, proofs), PostVanillaError);
    }
  }
}

// The same seed gives the same bytes; another seed other content. Siblings are random, not one
// default per level, and sectors do not share them.
TEST(PostSynthetic, DeterministicInTheSeedWithDistinctContent) {
  const RegisteredPostProof& proof = registered_post_proof("StackedDrgWindow32GiBV1_1");
  PostVanillaRequest req = synthetic_request(proof, {1, 2});
  const std::vector<FallbackPostSectorProof> a = synthetic_post_vanilla(req);
  const std::vector<FallbackPostSectorProof> b = synthetic_post_vanilla(req);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(to_bincode(a[0]), to_bincode(b[0]));
  EXPECT_EQ(to_bincode(a[1]), to_bincode(b[1]));
  EXPECT_NE(a[0].comm_r, a[1].comm_r);
  req.rng_seed = 4;
  EXPECT_NE(synthetic_post_vanilla(req)[0].comm_r, a[0].comm_r);
  const std::vector<PathElement>& p0 = a[0].sectors[0].inclusion_proofs[0].base;
  const std::vector<PathElement>& p1 = a[1].sectors[0].inclusion_proofs[0].base;
  ASSERT_EQ(p0.size(), 9u);  // 8^9 x 8 = 2^30 leaves
  for (size_t h = 0; h < p0.size(); ++h) {
    EXPECT_NE(p0[h].hashes[0], p0[h].hashes[1]) << "level " << h;
    EXPECT_NE(p0[h].hashes[0], p1[h].hashes[0]) << "level " << h;
  }
}

// V1 indexing (the sector's position in the whole proof): a partition-1 set is valid there only.
// WinningPoSt proves the sector drawn from the set with the prover id.
TEST(PostSynthetic, ChallengesFollowTheRegisteredProof) {
  PostVanillaRequest req = synthetic_request(registered_post_proof("StackedDrgWindow32GiBV1"), {1, 2, 3});
  req.partition_index = 1;
  const std::vector<FallbackPostSectorProof> v1 = synthetic_post_vanilla(req);
  EXPECT_NO_THROW(validate_post_vanilla(post_request_context(req), v1));
  PostRequestContext p0 = post_request_context(req);
  p0.partition_index = 0;
  EXPECT_THROW(validate_post_vanilla(p0, v1), PostVanillaError);

  req = synthetic_request(registered_post_proof("StackedDrgWinning32GiBV1"), {10, 11, 12, 13, 14});
  const std::vector<FallbackPostSectorProof> w = synthetic_post_vanilla(req);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].sector_id, 10 + winning_post_sector_challenge(req.randomness, req.prover_id, 0, 5));
  EXPECT_EQ(w[0].sectors[0].inclusion_proofs.size(), 66u);
}

TEST(PostSynthetic, RequestsTheProofDoesNotAllowAreRefused) {
  const RegisteredPostProof& w2k = registered_post_proof("StackedDrgWindow2KiBV1_1");
  EXPECT_THROW(synthetic_post_vanilla(synthetic_request(w2k, {1, 2, 3})), std::invalid_argument);  // 2 per partition
  EXPECT_THROW(synthetic_post_vanilla(synthetic_request(w2k, {})), std::invalid_argument);
  EXPECT_THROW(synthetic_post_vanilla(synthetic_request(w2k, {4, 4})), std::invalid_argument);
  PostVanillaRequest winning = synthetic_request(registered_post_proof("StackedDrgWinning2KiBV1"), {1});
  winning.partition_index = 1;
  EXPECT_THROW(synthetic_post_vanilla(winning), std::invalid_argument);
}

// A filled sparse tree proves only leaves on its known paths.
TEST(PostSynthetic, AFilledSparseTreeProvesOnlyKnownPaths) {
  const TreeLayout layout = tree_rc_layout(registered_post_proof("StackedDrgWindow2KiBV1_1").shape);
  const SparseTree::Fill fill = [](size_t level, uint64_t index) { return test::random_fr_bytes(level * 64 + index); };
  const SparseTree t(layout, {{9, fill(0, 9)}}, fill);
  EXPECT_EQ(merkle_proof_root(t.prove(9), TreeHasher::kPoseidon), t.root());
  EXPECT_EQ(merkle_proof_root(t.prove(8), TreeHasher::kPoseidon), t.root());  // 9's sibling: its path is known
  EXPECT_THROW(t.prove(30), std::out_of_range);
  EXPECT_THROW(SparseTree(layout, {}, fill), std::invalid_argument);
}

// The batched roots (eight paths per vector permutation) equal merkle_proof_root path for path:
// proofs of three tree shapes interleaved (runs break where the shape changes), more than eight of
// one shape, a tampered sibling (a root that differs, both ways alike), and no root for a null
// entry, an index beyond the siblings and a non-canonical sibling.
TEST(PostSynthetic, BatchedRootsEqualScalarRoots) {
  std::vector<MerkleProof> all;
  for (const char* name : {"StackedDrgWindow32GiBV1_1", "StackedDrgWindow2KiBV1_1", "StackedDrgWindow64GiBV1_1"}) {
    const RegisteredPostProof& proof = registered_post_proof(name);
    const std::vector<uint64_t> ids =
        proof.sector_count >= 3 ? std::vector<uint64_t>{4, 5, 6} : std::vector<uint64_t>{4, 5};
    for (const FallbackPostSectorProof& p : synthetic_post_vanilla(synthetic_request(proof, ids))) {
      for (const MerkleProof& mp : p.sectors[0].inclusion_proofs) all.push_back(mp);
    }
  }
  ASSERT_GT(all.size(), 40u);
  // The shapes in order (runs of 30, 20 and 30: capped at 8), then interleaved (short runs).
  std::vector<MerkleProof> mixed = all;
  for (size_t i = 0; i < all.size(); ++i) mixed.push_back(all[(i * 7) % all.size()]);
  mixed[3].base[2].hashes[1][0] ^= 1;  // tampered: hashes to another root
  const Bytes32 modulus = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                           0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                           0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};  // r itself
  ASSERT_FALSE(is_canonical_fr(modulus));
  mixed[5].base[0].hashes[0] = modulus;
  mixed[9].base[1].index = static_cast<uint32_t>(mixed[9].base[1].hashes.size() + 1);
  std::vector<const MerkleProof*> ptrs;
  for (const MerkleProof& mp : mixed) ptrs.push_back(&mp);
  ptrs[12] = nullptr;
  const std::vector<std::optional<Bytes32>> roots = poseidon_proof_roots(ptrs);
  ASSERT_EQ(roots.size(), ptrs.size());
  for (size_t i = 0; i < ptrs.size(); ++i) {
    if (i == 5 || i == 9 || i == 12) {
      EXPECT_FALSE(roots[i].has_value()) << i;
      continue;
    }
    ASSERT_TRUE(roots[i].has_value()) << i;
    EXPECT_EQ(*roots[i], merkle_proof_root(*ptrs[i], TreeHasher::kPoseidon)) << i;
    EXPECT_EQ(*roots[i] == ptrs[i]->root, i != 3) << i;
  }
}

TEST(PostSynthetic, ActorIdFromProverIdInvertsItsEncoding) {
  for (const uint64_t id : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{1000}, ~uint64_t{0}}) {
    EXPECT_EQ(actor_id_from_prover_id(prover_id_from_actor_id(id)), id);
  }
  Bytes32 b = prover_1000();
  b[5] = 1;  // a byte after the varint
  EXPECT_EQ(actor_id_from_prover_id(b), std::nullopt);
  b = Bytes32{};
  b[0] = 0x80;  // 0 written in two bytes: not the shortest encoding
  EXPECT_EQ(actor_id_from_prover_id(b), std::nullopt);
  b.fill(0xff);
  EXPECT_EQ(actor_id_from_prover_id(b), std::nullopt);
}

}  // namespace
}  // namespace cuzk::filecoin
