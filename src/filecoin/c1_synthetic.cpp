#include "filecoin/c1_synthetic.hpp"

#include <random>
#include <vector>

#include "filecoin/challenges.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/stacked_graph.hpp"
#include "gadgets/poseidon_native.hpp"

namespace cuzk::filecoin {
namespace {

// Builds a C1 output for `proof` that passes validation: challenges derived as C2 derives them,
// tree-C leaves the Poseidon hashes of their columns, tree-R leaves label + data, one comm_c and
// one comm_r_last with comm_r = Poseidon(comm_c, comm_r_last), paths whose digits spell their leaf
// index. Sectors of at most 1024 nodes (2 KiB) get real trees D, C and R over random data and
// labels, so every path also hashes up to its root; larger ones get random siblings.
class Builder {
 public:
  explicit Builder(const RegisteredSealProof& proof, uint64_t seed = 1) : rp_(proof), rng_(seed) {}

  SealCommitPhase1Output build() {
    SealCommitPhase1Output c1;
    c1.registered_proof = &rp_;
    if (real_) {
      build_trees();
      c1.comm_d = tree_d_.back()[0];
      comm_c_ = tree_c_.back()[0];
      comm_r_last_ = tree_r_.back()[0];
    } else {
      c1.comm_d = random_fr_bytes();
      comm_c_ = random_fr_bytes();
      comm_r_last_ = random_fr_bytes();
    }
    c1.ticket = random_bytes();
    c1.seed = random_bytes();
    c1.replica_id = replica_id(prover_id_from_actor_id(1000), 7, c1.ticket, c1.comm_d, porep_id(rp_));
    c1.comm_r = comm_r_from(comm_c_, comm_r_last_);
    for (uint32_t k = 0; k < rp_.partitions; ++k) {
      const std::vector<uint64_t> challenges = porep_challenges(rp_, c1.replica_id, c1.comm_r, c1.seed, k);
      std::vector<VanillaProof> part;
      for (uint64_t c : challenges) part.push_back(vanilla(c1, c));
      c1.vanilla_proofs.push_back(std::move(part));
    }
    return c1;
  }

 private:
  uint64_t nodes() const { return rp_.shape.nodes; }

  Bytes32 random_bytes() {
    Bytes32 b;
    for (auto& x : b) x = static_cast<uint8_t>(rng_());
    return b;
  }
  Bytes32 random_fr_bytes() {
    Bytes32 b = random_bytes();
    b[31] &= 0x3f;  // < 2^254 < r
    return b;
  }
  std::vector<Bytes32> random_list(size_t n) {
    std::vector<Bytes32> v;
    for (size_t i = 0; i < n; ++i) v.push_back(random_fr_bytes());
    return v;
  }
  using Levels = std::vector<std::vector<Bytes32>>;

  // A whole tree, leaves first, root last.
  static Levels build_tree(std::vector<Bytes32> leaves, uint32_t arity, bool sha) {
    Levels levels{std::move(leaves)};
    while (levels.back().size() > 1) {
      const auto& below = levels.back();
      std::vector<Bytes32> up;
      for (size_t i = 0; i < below.size(); i += arity) {
        const std::span<const Bytes32> group(below.data() + i, arity);
        up.push_back(sha ? sha256_tree_node(group[0], group[1]) : poseidon_tree_node(group));
      }
      levels.push_back(std::move(up));
    }
    return levels;
  }
  void build_trees() {
    const auto& s = rp_.shape;
    for (uint64_t n = 0; n < s.nodes; ++n) data_.push_back(random_fr_bytes());
    labels_.assign(s.layers, {});
    for (auto& layer : labels_) layer = random_list(s.nodes);
    std::vector<Bytes32> c_leaves, r_leaves;
    for (uint64_t n = 0; n < s.nodes; ++n) {
      c_leaves.push_back(column_hash(column_rows(n)));
      r_leaves.push_back(to_bytes(to_fr(labels_.back()[n]) + to_fr(data_[n])));
    }
    tree_d_ = build_tree(data_, 2, true);
    tree_c_ = build_tree(c_leaves, s.base_arity, false);
    tree_r_ = build_tree(r_leaves, s.base_arity, false);
  }
  std::vector<Bytes32> column_rows(uint64_t node) const {
    std::vector<Bytes32> rows;
    for (const auto& layer : labels_) rows.push_back(layer[node]);
    return rows;
  }
  static Bytes32 column_hash(const std::vector<Bytes32>& rows) {
    std::vector<Fr> f;
    for (const auto& r : rows) f.push_back(to_fr(r));
    return to_bytes(gadgets::poseidon_hash(f.size(), f));
  }
  // The path of a leaf in a real tree.
  static std::vector<PathElement> real_path(const Levels& tree, uint64_t index, uint32_t arity) {
    std::vector<PathElement> p;
    for (size_t l = 0; l + 1 < tree.size(); ++l) {
      PathElement e;
      e.index = index % arity;
      const uint64_t first = index - e.index;
      for (uint64_t i = first; i < first + arity; ++i) {
        if (i != index) e.hashes.push_back(tree[l][i]);
      }
      p.push_back(std::move(e));
      index /= arity;
    }
    return p;
  }

  std::vector<PathElement> path(uint64_t& index, size_t levels, uint32_t arity) {
    std::vector<PathElement> p;
    for (size_t i = 0; i < levels; ++i) {
      p.push_back(PathElement{random_list(arity - 1), index % arity});
      index /= arity;
    }
    return p;
  }
  MerkleProof tree_rc_proof(uint64_t leaf_index, const Bytes32& root, const Bytes32& leaf) {
    const auto& s = rp_.shape;
    MerkleProof mp;
    mp.shape = s.top_arity ? MerkleShape::kTop : s.sub_arity ? MerkleShape::kSub : MerkleShape::kSingle;
    mp.root = root;
    mp.leaf = leaf;
    mp.base = path(leaf_index, s.base_path_levels(), s.base_arity);
    if (s.sub_arity) mp.sub = path(leaf_index, 1, s.sub_arity);
    if (s.top_arity) mp.top = path(leaf_index, 1, s.top_arity);
    return mp;
  }
  ColumnProof column(uint64_t node) {
    ColumnProof cp;
    cp.column.index = static_cast<uint32_t>(node);
    cp.column.rows = real_ ? column_rows(node) : random_list(rp_.shape.layers);
    cp.inclusion_proof = tree_rc_proof(node, comm_c_, column_hash(cp.column.rows));
    if (real_) cp.inclusion_proof.base = real_path(tree_c_, node, rp_.shape.base_arity);
    return cp;
  }
  LabelingProof labeling(uint32_t layer, uint64_t node) { return LabelingProof{random_list(37), layer, node}; }

  VanillaProof vanilla(const SealCommitPhase1Output& c1, uint64_t c) {
    VanillaProof vp;
    uint64_t idx = c;
    vp.comm_d_proofs.shape = MerkleShape::kSingle;
    vp.comm_d_proofs.root = c1.comm_d;
    vp.comm_d_proofs.leaf = real_ ? data_[c] : random_fr_bytes();
    vp.comm_d_proofs.base = real_ ? real_path(tree_d_, c, 2) : path(idx, rp_.shape.tree_d_levels(), 2);
    auto& cols = vp.replica_column_proofs;
    cols.c_x = column(c);
    for (uint32_t p : graph_.base_parents(c)) cols.drg_parents.push_back(column(p));
    for (uint32_t p : graph_.expanded_parents(c)) cols.exp_parents.push_back(column(p));
    const Fr encoded = to_fr(cols.c_x.column.rows.back()) + to_fr(vp.comm_d_proofs.leaf);
    vp.comm_r_last_proof = tree_rc_proof(c, comm_r_last_, to_bytes(encoded));
    if (real_) vp.comm_r_last_proof.base = real_path(tree_r_, c, rp_.shape.base_arity);
    for (uint32_t l = 1; l <= rp_.shape.layers; ++l) vp.labeling_proofs.push_back(labeling(l, c));
    vp.encoding_proof = labeling(rp_.shape.layers, c);
    return vp;
  }

  const RegisteredSealProof& rp_;
  const StackedGraph graph_{rp_.shape.nodes, porep_id(rp_), rp_.api_version};
  std::mt19937_64 rng_;
  // Real trees only where they are small and have no sub/top levels.
  const bool real_ = rp_.shape.nodes <= 1024 && rp_.shape.sub_arity == 0 && rp_.shape.top_arity == 0;
  Bytes32 comm_c_{}, comm_r_last_{};
  std::vector<Bytes32> data_;
  Levels labels_, tree_d_, tree_c_, tree_r_;
};

}  // namespace

SealCommitPhase1Output make_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed) {
  return Builder(proof, rng_seed).build();
}

}  // namespace cuzk::filecoin
