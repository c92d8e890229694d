#include "filecoin/snap_validate.hpp"

#include <exception>
#include <stdexcept>
#include <string>

#include "filecoin/c1_error.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/snap_error.hpp"
#include "filecoin/snap_native.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

uint32_t h_of(const SnapRequestContext& ctx) {
  return ctx.h == 0 ? ctx.shape.h_default() : ctx.h;
}

// One partition's checks; `fail` carries the partition.
struct PartitionChecker {
  const SnapRequestContext& ctx;
  const SnapPartitionProof& p;
  uint32_t k;

  [[noreturn]] void fail(const JsonPath& field, const std::string& problem) const {
    throw SnapVanillaError(k, field.str(), problem);
  }
  void canonical(const Bytes32& b, const JsonPath& field) const {
    if (!is_canonical_fr(b)) {
      fail(field, "not a canonical field element (>= the BLS12-381 scalar modulus): " + to_hex(b));
    }
  }

  void levels(const std::vector<PathElement>& path, size_t expected, uint32_t arity, const JsonPath& ip) const {
    const JsonPath f = ip.field("path");
    if (path.size() != expected) {
      fail(f, "expected " + std::to_string(expected) + " levels, got " + std::to_string(path.size()));
    }
    for (size_t i = 0; i < path.size(); ++i) {
      const JsonPath e = f.at(i);
      const JsonPath hashes = e.field("hashes");
      if (path[i].hashes.size() + 1 != arity) {
        fail(hashes, "expected " + std::to_string(arity - 1) + " siblings (arity " + std::to_string(arity) + "), got " +
                         std::to_string(path[i].hashes.size()));
      }
      if (path[i].index >= arity) {
        fail(e.field("index"), std::to_string(path[i].index) + " is not below the arity " + std::to_string(arity));
      }
      for (size_t j = 0; j < path[i].hashes.size(); ++j) canonical(path[i].hashes[j], hashes.at(j));
    }
  }

  // A tree-R proof of leaf c under `root` (the first challenge's root when null).
  void tree_r(const MerkleProof& mp, uint64_t c, const Bytes32* root, const JsonPath& at) const {
    const gadgets::MerkleShape& s = ctx.shape.tree_r;
    const MerkleShape want = s.top_arity ? MerkleShape::kTop : s.sub_arity ? MerkleShape::kSub : MerkleShape::kSingle;
    const JsonPath data = at.field("data");
    if (mp.shape != want) {
      fail(data, std::string("expected a ") + merkle_variant_name(want) + " proof for tree R of " +
                     ctx.shape.describe() + ", got " + merkle_variant_name(mp.shape));
    }
    const JsonPath d = data.field(merkle_variant_name(mp.shape));
    const auto base_arity = static_cast<uint32_t>(s.base_arity);
    levels(mp.base, s.base_path_length(ctx.shape.nodes), base_arity,
           d.field(mp.shape == MerkleShape::kSingle ? "path" : "base_proof"));
    if (mp.shape != MerkleShape::kSingle) levels(mp.sub, 1, static_cast<uint32_t>(s.sub_arity), d.field("sub_proof"));
    if (mp.shape == MerkleShape::kTop) levels(mp.top, 1, static_cast<uint32_t>(s.top_arity), d.field("top_proof"));
    canonical(mp.root, d.field("root"));
    canonical(mp.leaf, d.field("leaf"));
    if (root != nullptr && mp.root != *root) fail(d.field("root"), "differs from challenge_proofs[0]'s root");
    if (merkle_proof_root(mp, TreeHasher::kPoseidon) != mp.root) {
      fail(d.field("root"), "the leaf and the path's siblings hash to a different root");
    }
    const uint64_t leaf =
        mp.path_index(base_arity, static_cast<uint32_t>(s.sub_arity), static_cast<uint32_t>(s.top_arity));
    if (leaf != c)
      fail(d.field("leaf"), "proves node " + std::to_string(leaf) + ", the challenge is node " + std::to_string(c));
  }

  // The tree-D proof of leaf c, against comm_d_new, the apex tree and challenge 0's partition path.
  void tree_d(const MerkleProof& mp, uint64_t c, const std::vector<std::vector<Bytes32>>& apex,
              const MerkleProof* first, const JsonPath& at) const {
    const SnapCircuitShape& s = ctx.shape;
    const JsonPath data = at.field("data");
    if (mp.shape != MerkleShape::kSingle) {
      fail(data, std::string("expected a Single proof for the binary tree D, got ") + merkle_variant_name(mp.shape));
    }
    const JsonPath d = data.field("Single");
    const JsonPath ip = d.field("path");
    const JsonPath path = ip.field("path");
    levels(mp.base, s.challenge_bits(), 2, ip);
    canonical(mp.root, d.field("root"));
    canonical(mp.leaf, d.field("leaf"));
    if (mp.root != ctx.comm_d_new) fail(d.field("root"), "is not comm_d_new " + to_hex(ctx.comm_d_new));
    const uint64_t leaf = mp.path_index(2, 0, 0);
    if (leaf != c)
      fail(d.field("leaf"), "proves node " + std::to_string(leaf) + ", the challenge is node " + std::to_string(c));
    const uint32_t apex_row = s.tree_d_levels(), apex_bits = s.apex_bits();
    Bytes32 node = mp.leaf;
    for (uint32_t level = 0; level < mp.base.size(); ++level) {
      const PathElement& e = mp.base[level];
      const Bytes32& sib = e.hashes[0];
      if (level == apex_row) {
        const uint64_t i = (c >> apex_row) & (s.apex_leaves - 1);
        if (node != p.apex_leafs[i]) {
          fail(path.at(level), "the path reaches a node that is not apex_leafs[" + std::to_string(i) + "]");
        }
      }
      if (level >= apex_row && level < apex_row + apex_bits) {
        const uint64_t row_index = ((c >> level) & ((uint64_t{1} << (apex_row + apex_bits - level)) - 1)) ^ 1;
        if (sib != apex[level - apex_row][row_index]) {
          fail(path.at(level).field("hashes").at(0), "is not the apex tree's node");
        }
      }
      if (level >= apex_row + apex_bits && first != nullptr && sib != first->base[level].hashes[0]) {
        fail(path.at(level).field("hashes").at(0), "the partition path differs from challenge_proofs[0]'s");
      }
      node = e.index == 0 ? sha256_tree_node(node, sib) : sha256_tree_node(sib, node);
    }
    if (node != mp.root) fail(d.field("root"), "the leaf and the path's siblings hash to a different root");
  }

  void check() const {
    const SnapCircuitShape& s = ctx.shape;
    const JsonPath root;
    canonical(p.comm_c, root.field("comm_c"));
    const JsonPath apex_path = root.field("apex_leafs");
    if (p.apex_leafs.size() != s.apex_leaves) {
      fail(apex_path, "expected " + std::to_string(s.apex_leaves) + " apex leaves for " + s.describe() + ", got " +
                          std::to_string(p.apex_leafs.size()));
    }
    for (size_t i = 0; i < p.apex_leafs.size(); ++i) canonical(p.apex_leafs[i], apex_path.at(i));
    const JsonPath cps = root.field("challenge_proofs");
    if (p.challenge_proofs.size() != s.challenges) {
      fail(cps, "expected " + std::to_string(s.challenges) + " challenge proofs for " + s.describe() + ", got " +
                    std::to_string(p.challenge_proofs.size()));
    }
    // The apex tree's rows, leaves first (vanilla.rs verify).
    std::vector<std::vector<Bytes32>> apex{p.apex_leafs};
    while (apex.back().size() > 1) {
      const std::vector<Bytes32>& below = apex.back();
      std::vector<Bytes32> up(below.size() / 2);
      for (size_t i = 0; i < up.size(); ++i) up[i] = sha256_tree_node(below[2 * i], below[2 * i + 1]);
      apex.push_back(std::move(up));
    }
    const std::vector<uint64_t> challenges = snap_challenges(s, to_fr(ctx.comm_r_new), k);
    const Fr phi = snap_phi(to_fr(ctx.comm_d_new), to_fr(ctx.comm_r_old));
    const uint32_t h = h_of(ctx);
    const SnapChallengeProof& first = p.challenge_proofs[0];
    for (size_t j = 0; j < challenges.size(); ++j) {
      const SnapChallengeProof& cp = p.challenge_proofs[j];
      const JsonPath at = cps.at(j);
      const uint64_t c = challenges[j];
      tree_r(cp.proof_r_old, c, j == 0 ? nullptr : &first.proof_r_old.root, at.field("proof_r_old"));
      tree_r(cp.proof_r_new, c, j == 0 ? nullptr : &first.proof_r_new.root, at.field("proof_r_new"));
      tree_d(cp.proof_d_new, c, apex, j == 0 ? nullptr : &first.proof_d_new, at.field("proof_d_new"));
      if (j == 0) {
        if (comm_r_from(p.comm_c, cp.proof_r_old.root) != ctx.comm_r_old) {
          fail(root.field("comm_c"),
               "Poseidon2(comm_c, proof_r_old's root) is not comm_r_old " + to_hex(ctx.comm_r_old));
        }
        if (comm_r_from(p.comm_c, cp.proof_r_new.root) != ctx.comm_r_new) {
          fail(at.field("proof_r_new"), "Poseidon2(comm_c, its root) is not comm_r_new " + to_hex(ctx.comm_r_new));
        }
      }
      const Fr rho = snap_rho(phi, snap_high_bits(s, c, h));
      if (to_fr(cp.proof_r_old.leaf) + to_fr(cp.proof_d_new.leaf) * rho != to_fr(cp.proof_r_new.leaf)) {
        fail(at.field("proof_r_new"),
             "its leaf is not the encoding leaf_r_old + leaf_d_new * rho of node " + std::to_string(c));
      }
    }
  }
};

void check_request(const SnapRequestContext& ctx, size_t count) {
  ctx.shape.validate();
  if (ctx.shape.tree_d != SnapTreeD::kSha256) {
    throw std::invalid_argument("SnapDeals request: the Poseidon tree-D shape has no vanilla proofs here");
  }
  const std::pair<const char*, const Bytes32*> comms[] = {
      {"comm_r_old", &ctx.comm_r_old}, {"comm_d_new", &ctx.comm_d_new}, {"comm_r_new", &ctx.comm_r_new}};
  for (const auto& [name, b] : comms) {
    if (!is_canonical_fr(*b))
      throw std::invalid_argument(std::string(name) + ": not a canonical field element: " + to_hex(*b));
  }
  snap_selector(ctx.shape, 0, h_of(ctx));  // throws unless h is one of the size's
  if (count != ctx.shape.partitions) {
    throw std::invalid_argument("vanilla_proofs: " + std::to_string(count) + " partition proofs; " +
                                ctx.shape.describe() + " needs " + std::to_string(ctx.shape.partitions) +
                                " (one per partition, in order)");
  }
}

}  // namespace

void validate_snap_vanilla(const SnapRequestContext& ctx, std::span<const SnapPartitionProof> proofs) {
  check_request(ctx, proofs.size());
  // Partitions are independent (86 challenges x ~20 Poseidon and 30 SHA-256 hashes each at 32
  // GiB); report the first failure by partition so the message does not depend on scheduling.
  std::vector<std::exception_ptr> errors(proofs.size());
  ThreadPool::global().parallel_for(proofs.size(), [&](size_t i) {
    try {
      PartitionChecker{ctx, proofs[i], static_cast<uint32_t>(i)}.check();
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<SnapPartitionProof> parse_snap_vanilla(const SnapRequestContext& ctx,
                                                   std::span<const std::vector<uint8_t>> blobs) {
  check_request(ctx, blobs.size());
  std::vector<SnapPartitionProof> out;
  out.reserve(blobs.size());
  for (size_t i = 0; i < blobs.size(); ++i) out.push_back(parse_snap_partition_proof(blobs[i], i));
  validate_snap_vanilla(ctx, out);
  return out;
}

SnapPublicInputs snap_request_public_inputs(const SnapRequestContext& ctx, uint32_t k) {
  return {k, h_of(ctx), to_fr(ctx.comm_r_old), to_fr(ctx.comm_d_new), to_fr(ctx.comm_r_new)};
}

namespace {

SnapPath siblings(const MerkleProof& mp, size_t max_levels) {
  SnapPath out;
  for (const auto* part : {&mp.base, &mp.sub, &mp.top}) {
    for (const PathElement& e : *part) {
      if (out.size() == max_levels) return out;
      std::vector<std::optional<Fr>> level;
      for (const Bytes32& b : e.hashes) level.emplace_back(to_fr(b));
      out.push_back(std::move(level));
    }
  }
  return out;
}

}  // namespace

SnapPartitionWitness snap_partition_witness(const SnapRequestContext& ctx, const SnapPartitionProof& proof,
                                            uint32_t k) {
  const SnapCircuitShape& s = ctx.shape;
  if (proof.challenge_proofs.size() != s.challenges) {
    throw SnapVanillaError(k, "challenge_proofs", "not validated: run validate_snap_vanilla first");
  }
  const SnapPublicInputs pub = snap_request_public_inputs(ctx, k);
  SnapPartitionWitness w;
  w.selector = snap_selector(s, k, pub.h);
  w.comm_r_old = pub.comm_r_old;
  w.comm_d_new = pub.comm_d_new;
  w.comm_r_new = pub.comm_r_new;
  w.comm_c = to_fr(proof.comm_c);
  const SnapChallengeProof& first = proof.challenge_proofs.front();
  w.root_r_old = to_fr(first.proof_r_old.root);
  w.root_r_new = to_fr(first.proof_r_new.root);
  for (const Bytes32& b : proof.apex_leafs) w.apex_leaves.emplace_back(to_fr(b));
  // The partition path: tree D's levels above the apex root, shared by the challenges.
  const size_t top = s.tree_d_levels() + s.apex_bits();
  for (size_t level = top; level < first.proof_d_new.base.size(); ++level) {
    w.partition_path.emplace_back(to_fr(first.proof_d_new.base[level].hashes.at(0)));
  }
  for (const SnapChallengeProof& cp : proof.challenge_proofs) {
    SnapChallengeWitness c;
    c.leaf_r_old = to_fr(cp.proof_r_old.leaf);
    c.leaf_d_new = to_fr(cp.proof_d_new.leaf);
    c.leaf_r_new = to_fr(cp.proof_r_new.leaf);
    c.path_r_old = siblings(cp.proof_r_old, s.tree_r_levels());
    c.path_r_new = siblings(cp.proof_r_new, s.tree_r_levels());
    c.path_d_new = siblings(cp.proof_d_new, s.tree_d_levels());
    w.challenges.push_back(std::move(c));
  }
  snap_detail::check_witness(s, w);
  return w;
}

}  // namespace cuzk::filecoin
