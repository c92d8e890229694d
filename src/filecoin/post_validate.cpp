#include "filecoin/post_validate.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "filecoin/c1_error.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/post_challenges.hpp"
#include "filecoin/post_error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

// One proof's checks; `fail` carries the proof's position and sector.
struct ProofChecker {
  const PostRequestContext& ctx;
  const FallbackPostSectorProof& p;
  size_t index;
  // The roots the inclusion proofs' paths hash to, per challenge, where computed beforehand
  // (poseidon_proof_roots); the rest are computed here.
  std::span<const std::optional<Bytes32>> roots;

  [[noreturn]] void fail(const JsonPath& field, const std::string& problem) const {
    throw PostVanillaError(index, p.sector_id, field.str(), problem);
  }
  void canonical(const Bytes32& b, const JsonPath& field) const {
    if (!is_canonical_fr(b))
      fail(field, "not a canonical field element (>= the BLS12-381 scalar modulus): " + to_hex(b));
  }

  void path(const std::vector<PathElement>& levels, size_t expected, uint32_t arity, const JsonPath& ip) const {
    const JsonPath f = ip.field("path");
    if (levels.size() != expected) {
      fail(f, "expected " + std::to_string(expected) + " levels, got " + std::to_string(levels.size()));
    }
    for (size_t i = 0; i < levels.size(); ++i) {
      const JsonPath e = f.at(i);
      if (levels[i].hashes.size() + 1 != arity) {
        fail(e.field("hashes"), "expected " + std::to_string(arity - 1) + " siblings (arity " + std::to_string(arity) +
                                    "), got " + std::to_string(levels[i].hashes.size()));
      }
      if (levels[i].index >= arity) {
        fail(e.field("index"), std::to_string(levels[i].index) + " is not below the arity " + std::to_string(arity));
      }
      for (size_t j = 0; j < levels[i].hashes.size(); ++j) canonical(levels[i].hashes[j], e.field("hashes").at(j));
    }
  }

  void inclusion(const MerkleProof& mp, const Bytes32& comm_r_last, uint64_t challenge, uint64_t challenge_index,
                 const std::optional<Bytes32>& root, const JsonPath& at) const {
    const PorepShape& s = ctx.proof->shape;
    const MerkleShape want = s.top_arity ? MerkleShape::kTop : s.sub_arity ? MerkleShape::kSub : MerkleShape::kSingle;
    const JsonPath data = at.field("data");
    if (mp.shape != want) {
      fail(data, std::string("expected a ") + merkle_variant_name(want) + " proof for tree R of " +
                     std::string(ctx.proof->name) + ", got " + merkle_variant_name(mp.shape));
    }
    const JsonPath d = data.field(merkle_variant_name(mp.shape));
    const JsonPath base = d.field(mp.shape == MerkleShape::kSingle ? "path" : "base_proof");
    path(mp.base, s.base_path_levels(), s.base_arity, base);
    if (mp.shape != MerkleShape::kSingle) path(mp.sub, 1, s.sub_arity, d.field("sub_proof"));
    if (mp.shape == MerkleShape::kTop) path(mp.top, 1, s.top_arity, d.field("top_proof"));
    canonical(mp.root, d.field("root"));
    canonical(mp.leaf, d.field("leaf"));
    if (mp.root != comm_r_last) fail(d.field("root"), "differs from the sector proof's comm_r_last");
    if ((root ? *root : merkle_proof_root(mp, TreeHasher::kPoseidon)) != mp.root) {
      fail(d.field("root"), "the leaf and the path's siblings hash to a different root");
    }
    const uint64_t leaf = mp.path_index(s.base_arity, s.sub_arity, s.top_arity);
    if (leaf != challenge) {
      fail(base, "proves leaf " + std::to_string(leaf) + ", but challenge " + std::to_string(challenge_index) +
                     " (from the randomness and the sector id) is leaf " + std::to_string(challenge));
    }
  }

  // sector_index: the sector's position in the whole proof, for V1_0 challenge indexing.
  void check(uint64_t sector_index) const {
    const JsonPath root;
    canonical(p.comm_r, root.field("comm_r"));
    const JsonPath vp = root.field("vanilla_proof");
    const JsonPath sectors = vp.field("sectors");
    if (p.sectors.size() != 1) {
      fail(sectors, "expected the proof of 1 sector, got " + std::to_string(p.sectors.size()));
    }
    const PostSectorProof& sp = p.sectors.front();
    const JsonPath sp_path = sectors.at(0);
    canonical(sp.comm_c, sp_path.field("comm_c"));
    canonical(sp.comm_r_last, sp_path.field("comm_r_last"));
    if (comm_r_from(sp.comm_c, sp.comm_r_last) != p.comm_r) {
      fail(root.field("comm_r"), "is not Poseidon(comm_c, comm_r_last) of the sector proof");
    }
    const RegisteredPostProof& rp = *ctx.proof;
    const JsonPath ips = sp_path.field("inclusion_proofs");
    if (sp.inclusion_proofs.size() != rp.challenge_count) {
      fail(ips, "expected " + std::to_string(rp.challenge_count) + " inclusion proofs (one per challenge) for " +
                    std::string(rp.name) + ", got " + std::to_string(sp.inclusion_proofs.size()));
    }
    const std::vector<uint64_t> leaves = post_leaf_challenges(rp.api_version, ctx.randomness, p.sector_id, sector_index,
                                                              rp.challenge_count, rp.shape.nodes);
    for (size_t j = 0; j < leaves.size(); ++j) {
      inclusion(sp.inclusion_proofs[j], sp.comm_r_last, leaves[j],
                post_challenge_index(rp.api_version, sector_index, rp.challenge_count, j),
                j < roots.size() ? roots[j] : std::nullopt, ips.at(j));
    }
  }
};

void check_request(const PostRequestContext& ctx, size_t count) {
  if (ctx.proof == nullptr) throw std::invalid_argument("PoSt request: no registered proof");
  const RegisteredPostProof& rp = *ctx.proof;
  if (!is_canonical_fr(ctx.randomness)) {
    throw std::invalid_argument("randomness: not a canonical field element: " + to_hex(ctx.randomness));
  }
  if (!is_canonical_fr(ctx.prover_id)) {
    throw std::invalid_argument("prover_id: not a canonical field element: " + to_hex(ctx.prover_id));
  }
  if (rp.type == PostType::kWinning && ctx.partition_index != 0) {
    throw std::invalid_argument("partition_index: WinningPoSt has one partition, got " +
                                std::to_string(ctx.partition_index));
  }
  if (count == 0 || count > rp.sector_count) {
    throw std::invalid_argument("vanilla_proofs: " + std::to_string(count) + " sector proofs; " + std::string(rp.name) +
                                " takes 1.." + std::to_string(rp.sector_count) + " per request");
  }
}

}  // namespace

void validate_post_vanilla(const PostRequestContext& ctx, std::span<const FallbackPostSectorProof> proofs) {
  check_request(ctx, proofs.size());
  std::set<uint64_t> seen;
  for (size_t i = 0; i < proofs.size(); ++i) {
    if (!seen.insert(proofs[i].sector_id).second) {
      throw PostVanillaError(i, proofs[i].sector_id, "sector_id", "the request has this sector twice");
    }
  }
  // Each sector is independent (10 x 10 Poseidon hashes at 32 GiB); report the first failure by
  // position so the message does not depend on scheduling. Sectors go in groups of eight: one
  // challenge's paths across a group climb their trees together (poseidon_proof_roots), then each
  // sector's checks run in order with those roots.
  std::vector<std::exception_ptr> errors(proofs.size());
  const uint64_t first = uint64_t{ctx.partition_index} * ctx.proof->sector_count;
  const size_t challenges = ctx.proof->challenge_count;
  constexpr size_t kGroup = 8;
  ThreadPool::global().parallel_for((proofs.size() + kGroup - 1) / kGroup, [&](size_t g) {
    const size_t begin = g * kGroup, n = std::min(kGroup, proofs.size() - begin);
    std::vector<const MerkleProof*> paths(challenges * n, nullptr);  // challenge-major
    for (size_t i = 0; i < n; ++i) {
      const FallbackPostSectorProof& p = proofs[begin + i];
      if (p.sectors.size() != 1) continue;
      const auto& ips = p.sectors.front().inclusion_proofs;
      for (size_t j = 0; j < challenges && j < ips.size(); ++j) paths[j * n + i] = &ips[j];
    }
    const std::vector<std::optional<Bytes32>> roots = poseidon_proof_roots(paths);
    std::vector<std::optional<Bytes32>> mine(challenges);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < challenges; ++j) mine[j] = roots[j * n + i];
      try {
        ProofChecker{ctx, proofs[begin + i], begin + i, mine}.check(first + begin + i);
      } catch (...) {
        errors[begin + i] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<FallbackPostSectorProof> parse_post_vanilla(const PostRequestContext& ctx,
                                                        std::span<const std::vector<uint8_t>> blobs) {
  check_request(ctx, blobs.size());
  std::vector<FallbackPostSectorProof> out;
  out.reserve(blobs.size());
  for (size_t i = 0; i < blobs.size(); ++i) out.push_back(parse_post_sector_proof(blobs[i], i));
  validate_post_vanilla(ctx, out);
  return out;
}

}  // namespace cuzk::filecoin
