// Semantic validation of a parsed C1 output: everything C2 relies on that the JSON schema does not
// already guarantee. Each failure names the JSON path of the field, as the parser does.
#include <optional>
#include <string>
#include <vector>

#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/challenges.hpp"
#include "filecoin/label.hpp"  // kTotalParents: the labeling proofs carry the parents repeated to 37
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/stacked_graph.hpp"
#include "gadgets/poseidon_native.hpp"

namespace cuzk::filecoin {
namespace {

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void check_canonical(const Bytes32& b, const JsonPath& p) {
  if (!is_canonical_fr(b)) p.fail("not a canonical field element (>= the BLS12-381 scalar modulus): " + to_hex(b));
}

void check_path(const std::vector<PathElement>& path, size_t levels, uint32_t arity, const JsonPath& p) {
  if (path.size() != levels)
    p.fail("expected " + plural(levels, "element", "elements") + ", got " + std::to_string(path.size()));
  for (size_t i = 0; i < path.size(); ++i) {
    const JsonPath e = p.at(i);
    const auto& el = path[i];
    if (el.hashes.size() != arity - 1) {
      e.field("hashes").fail("expected " + plural(arity - 1, "sibling", "siblings") + ", got " +
                             std::to_string(el.hashes.size()));
    }
    if (el.index >= arity)
      e.field("index").fail(std::to_string(el.index) + " is not below the arity " + std::to_string(arity));
    for (size_t j = 0; j < el.hashes.size(); ++j) check_canonical(el.hashes[j], e.field("hashes").at(j));
  }
}

struct TreeShape {
  uint32_t base_arity, base_levels, sub_arity, top_arity;
  MerkleShape shape() const {
    return top_arity > 0 ? MerkleShape::kTop : sub_arity > 0 ? MerkleShape::kSub : MerkleShape::kSingle;
  }
};

// Checks a proof against its tree's shape and returns the leaf index it proves.
uint64_t check_merkle(const MerkleProof& mp, const TreeShape& t, const JsonPath& p, bool verify, TreeHasher hasher) {
  const JsonPath data = p.field("data");
  if (mp.shape != t.shape()) {
    data.fail(std::string("expected a ") + merkle_variant_name(t.shape()) + " proof for this tree, got " +
              merkle_variant_name(mp.shape));
  }
  const JsonPath d = data.field(merkle_variant_name(mp.shape));
  if (mp.shape == MerkleShape::kSingle) {
    check_path(mp.base, t.base_levels, t.base_arity, d.field("path").field("path"));
  } else {
    check_path(mp.base, t.base_levels, t.base_arity, d.field("base_proof").field("path"));
    check_path(mp.sub, 1, t.sub_arity, d.field("sub_proof").field("path"));
    if (mp.shape == MerkleShape::kTop) check_path(mp.top, 1, t.top_arity, d.field("top_proof").field("path"));
  }
  check_canonical(mp.root, d.field("root"));
  check_canonical(mp.leaf, d.field("leaf"));
  if (verify && merkle_proof_root(mp, hasher) != mp.root) {
    d.field("root").fail("the leaf and the path's siblings hash to a different root");
  }
  return mp.path_index(t.base_arity, t.sub_arity, t.top_arity);
}

// Fails at the path of the proof's leaf-index digits (the base path).
[[noreturn]] void fail_index(const MerkleProof& mp, const JsonPath& p, const std::string& problem) {
  const JsonPath data = p.field("data");
  const JsonPath d = data.field(merkle_variant_name(mp.shape));
  (mp.shape == MerkleShape::kSingle ? d.field("path") : d.field("base_proof")).fail(problem);
}

// A root every proof of one tree must share (tree R: comm_r_last; tree C: comm_c).
struct SharedRoot {
  const char* what;
  std::optional<Bytes32> value;
  std::string first_path;
  void check(const MerkleProof& mp, const JsonPath& p) {
    if (!value) {
      value = mp.root;
      first_path = p.str();
      return;
    }
    if (*value != mp.root) {
      p.field("data")
          .field(merkle_variant_name(mp.shape))
          .field("root")
          .fail(std::string("differs from the ") + what + " root of " + first_path + " (one tree per sector)");
    }
  }
};

struct Validator {
  const SealCommitPhase1Output& c1;
  const RegisteredSealProof& rp;
  TreeShape tree_d, tree_rc;
  bool verify_paths;
  SharedRoot comm_r_last{"tree-R", {}, {}};
  SharedRoot comm_c{"tree-C", {}, {}};
  // The SDR graph, for the parents C2 opens (its public inputs name them: a verifier derives them
  // from the graph, so columns of other nodes could never verify).
  StackedGraph graph{rp.shape.nodes, porep_id(rp), rp.api_version};

  void check_labeling(const LabelingProof& lp, uint32_t layer, uint64_t challenge, const JsonPath& p) {
    if (lp.layer_index != layer) {
      p.field("layer_index")
          .fail("expected layer " + std::to_string(layer) + ", got " + std::to_string(lp.layer_index));
    }
    if (lp.node != challenge) {
      p.field("node").fail("expected the challenged node " + std::to_string(challenge) + ", got " +
                           std::to_string(lp.node));
    }
    if (lp.parents.size() != kTotalParents) {
      p.field("parents").fail("expected 37 parent labels, got " + std::to_string(lp.parents.size()));
    }
    for (size_t i = 0; i < lp.parents.size(); ++i) check_canonical(lp.parents[i], p.field("parents").at(i));
  }

  // Returns the column's rows as field elements after checking the column and its tree-C proof.
  std::vector<Fr> check_column(const ColumnProof& cp, const JsonPath& p) {
    const JsonPath col = p.field("column");
    if (cp.column.index >= rp.shape.nodes) {
      col.field("index").fail("node " + std::to_string(cp.column.index) + " is not below the " +
                              std::to_string(rp.shape.nodes) + " nodes of the sector");
    }
    if (cp.column.rows.size() != rp.shape.layers) {
      col.field("rows").fail("expected " + std::to_string(rp.shape.layers) + " rows (one per layer), got " +
                             std::to_string(cp.column.rows.size()));
    }
    std::vector<Fr> rows;
    for (size_t i = 0; i < cp.column.rows.size(); ++i) {
      check_canonical(cp.column.rows[i], col.field("rows").at(i));
      rows.push_back(to_fr(cp.column.rows[i]));
    }
    const JsonPath ip = p.field("inclusion_proof");
    const uint64_t leaf_index = check_merkle(cp.inclusion_proof, tree_rc, ip, verify_paths, TreeHasher::kPoseidon);
    if (leaf_index != cp.column.index) {
      fail_index(
          cp.inclusion_proof, ip,
          "proves leaf " + std::to_string(leaf_index) + ", but the column is node " + std::to_string(cp.column.index));
    }
    // Tree C's leaves are the Poseidon hashes (arity = layers) of the columns.
    if (to_bytes(gadgets::poseidon_hash(rows.size(), rows)) != cp.inclusion_proof.leaf) {
      ip.field("data")
          .field(merkle_variant_name(cp.inclusion_proof.shape))
          .field("leaf")
          .fail("is not the Poseidon hash of the column's rows");
    }
    comm_c.check(cp.inclusion_proof, ip);
    return rows;
  }

  // The challenge the proof answers: one labeling proof per layer, in range, and the one derived
  // from the C1's randomness. Returns it.
  uint64_t check_challenge_node(const VanillaProof& vp, uint64_t expected, const JsonPath& p) {
    const JsonPath lps = p.field("labeling_proofs");
    if (vp.labeling_proofs.size() != rp.shape.layers) {
      lps.fail("expected " + std::to_string(rp.shape.layers) + " labeling proofs (one per layer), got " +
               std::to_string(vp.labeling_proofs.size()));
    }
    const uint64_t c = vp.challenge();
    if (c == 0 || c >= rp.shape.nodes) {
      lps.at(0).field("node").fail("challenge " + std::to_string(c) + " is outside [1, " +
                                   std::to_string(rp.shape.nodes) + ")");
    }
    if (c != expected) {
      const char* from = rp.challenge_mode == ChallengeMode::kInteractive ? "replica_id and seed"
                         : rp.challenge_mode == ChallengeMode::kNonInteractive
                             ? "replica_id and comm_r"
                             : "replica_id, comm_r and seed (synthetic)";
      lps.at(0).field("node").fail("challenge " + std::to_string(c) + " is not the one derived from " + from + " (" +
                                   std::to_string(expected) + ")");
    }
    return c;
  }

  // Tree D: the data leaf at the challenge, under comm_d.
  void check_tree_d(const VanillaProof& vp, uint64_t c, const JsonPath& p) {
    const JsonPath dp = p.field("comm_d_proofs");
    const uint64_t d_index = check_merkle(vp.comm_d_proofs, tree_d, dp, verify_paths, TreeHasher::kSha256);
    const JsonPath ddata = dp.field("data");
    const JsonPath dsingle = ddata.field("Single");
    if (d_index != c)
      dsingle.field("path").fail("proves leaf " + std::to_string(d_index) + ", not the challenge " + std::to_string(c));
    if (vp.comm_d_proofs.root != c1.comm_d) dsingle.field("root").fail("does not equal comm_d");
  }

  // Columns: the challenged one, then its 6 DRG and 8 expander parents, each at the node the SDR
  // graph says. Returns the challenged column's rows.
  std::vector<Fr> check_columns(const VanillaProof& vp, uint64_t c, const JsonPath& p) {
    const JsonPath rcp = p.field("replica_column_proofs");
    const auto& cols = vp.replica_column_proofs;
    std::vector<Fr> cx_rows = check_column(cols.c_x, rcp.field("c_x"));
    if (cols.c_x.column.index != c) {
      rcp.field("c_x").field("column").field("index").fail("expected the challenged node " + std::to_string(c) +
                                                           ", got " + std::to_string(cols.c_x.column.index));
    }
    if (cols.drg_parents.size() != rp.shape.drg_degree) {
      rcp.field("drg_parents")
          .fail("expected " + std::to_string(rp.shape.drg_degree) + " DRG parent columns, got " +
                std::to_string(cols.drg_parents.size()));
    }
    if (cols.exp_parents.size() != rp.shape.expansion_degree) {
      rcp.field("exp_parents")
          .fail("expected " + std::to_string(rp.shape.expansion_degree) + " expander parent columns, got " +
                std::to_string(cols.exp_parents.size()));
    }
    for (size_t i = 0; i < cols.drg_parents.size(); ++i)
      check_column(cols.drg_parents[i], rcp.field("drg_parents").at(i));
    for (size_t i = 0; i < cols.exp_parents.size(); ++i)
      check_column(cols.exp_parents[i], rcp.field("exp_parents").at(i));
    auto check_parents = [&](const std::vector<ColumnProof>& got, const auto& want, const char* field,
                             const char* kind) {
      for (size_t i = 0; i < want.size(); ++i) {
        if (got[i].column.index != want[i]) {
          rcp.field(field).at(i).field("column").field("index").fail(
              "is node " + std::to_string(got[i].column.index) + ", but " + kind + " parent " + std::to_string(i) +
              " of node " + std::to_string(c) + " in the SDR graph is " + std::to_string(want[i]));
        }
      }
    };
    check_parents(cols.drg_parents, graph.base_parents(c), "drg_parents", "DRG");
    check_parents(cols.exp_parents, graph.expanded_parents(c), "exp_parents", "expander");
    return cx_rows;
  }

  // Tree R: the replica node at the challenge, i.e. the last layer's label plus the data (the
  // "encode" step the circuit re-does), under comm_r_last.
  void check_tree_r(const VanillaProof& vp, uint64_t c, const std::vector<Fr>& cx_rows, const JsonPath& p) {
    const JsonPath rp_path = p.field("comm_r_last_proof");
    const uint64_t r_index = check_merkle(vp.comm_r_last_proof, tree_rc, rp_path, verify_paths, TreeHasher::kPoseidon);
    if (r_index != c) {
      fail_index(vp.comm_r_last_proof, rp_path,
                 "proves leaf " + std::to_string(r_index) + ", not the challenge " + std::to_string(c));
    }
    if (!cx_rows.empty()) {
      const Fr encoded = cx_rows.back() + to_fr(vp.comm_d_proofs.leaf);
      if (to_bytes(encoded) != vp.comm_r_last_proof.leaf) {
        rp_path.field("data")
            .field(merkle_variant_name(vp.comm_r_last_proof.shape))
            .field("leaf")
            .fail("is not the last layer's label plus the data leaf (the encoded node)");
      }
    }
    comm_r_last.check(vp.comm_r_last_proof, rp_path);
  }

  void check_challenge(const VanillaProof& vp, uint64_t expected, const JsonPath& p) {
    const uint64_t c = check_challenge_node(vp, expected, p);
    const JsonPath lps = p.field("labeling_proofs");
    for (size_t l = 0; l < vp.labeling_proofs.size(); ++l) {
      check_labeling(vp.labeling_proofs[l], static_cast<uint32_t>(l + 1), c, lps.at(l));
    }
    check_labeling(vp.encoding_proof, rp.shape.layers, c, p.field("encoding_proof"));
    check_tree_d(vp, c, p);
    const std::vector<Fr> cx_rows = check_columns(vp, c, p);
    check_tree_r(vp, c, cx_rows, p);
  }

  void run() {
    const JsonPath root;
    if (is_zero(c1.comm_d)) root.field("comm_d").fail("is zero (C2 rejects a zero comm_d)");
    if (is_zero(c1.comm_r)) root.field("comm_r").fail("is zero (C2 rejects a zero comm_r)");
    if (is_zero(c1.seed)) root.field("seed").fail("is zero (C2 rejects a zero seed)");
    check_canonical(c1.comm_d, root.field("comm_d"));
    check_canonical(c1.comm_r, root.field("comm_r"));
    check_canonical(c1.replica_id, root.field("replica_id"));

    // The variant name is a string literal, so the path may point at it.
    const JsonPath vroot = root.field("vanilla_proofs");
    const JsonPath vps = vroot.field(rp.vanilla_proof_variant().data());
    if (c1.vanilla_proofs.size() != rp.partitions) {
      vps.fail("expected " + plural(rp.partitions, "partition", "partitions") + " for " + std::string(rp.name) +
               ", got " + std::to_string(c1.vanilla_proofs.size()));
    }
    for (uint32_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
      const auto& part = c1.vanilla_proofs[k];
      const JsonPath pp = vps.at(k);
      if (part.size() != rp.challenges_per_partition) {
        pp.fail("expected " + plural(rp.challenges_per_partition, "challenge", "challenges") + " per partition, got " +
                std::to_string(part.size()));
      }
      const std::vector<uint64_t> expected = porep_challenges(rp, c1.replica_id, c1.comm_r, c1.seed, k);
      for (size_t i = 0; i < part.size(); ++i) check_challenge(part[i], expected[i], pp.at(i));
    }
    // comm_r = Poseidon2(comm_c, comm_r_last) (storage-proofs-porep stacked/vanilla/proof_scheme.rs
    // verify_all_partitions; the circuit checks the same).
    if (comm_c.value && comm_r_last.value) {
      if (comm_r_from(*comm_c.value, *comm_r_last.value) != c1.comm_r)
        root.field("comm_r").fail("is not Poseidon(comm_c, comm_r_last) of the vanilla proofs");
    }
  }
};

}  // namespace

void validate_c1_output(const SealCommitPhase1Output& c1, const C1ValidateOptions& options) {
  if (c1.registered_proof == nullptr) JsonPath().field("registered_proof").fail("missing");
  const auto& rp = *c1.registered_proof;
  Validator v{c1, rp, TreeShape{2, rp.shape.tree_d_levels(), 0, 0},
              TreeShape{rp.shape.base_arity, rp.shape.base_path_levels(), rp.shape.sub_arity, rp.shape.top_arity},
              options.verify_merkle_paths};
  v.run();
}

}  // namespace cuzk::filecoin
