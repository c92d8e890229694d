#include "filecoin/porep_circuit.hpp"

#include <bit>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

gadgets::MerkleShape tree_d_shape() {
  return gadgets::MerkleShape{2, 0, 0};
}

std::vector<gadgets::PathElement> to_path(const std::vector<PathElement>& levels) {
  std::vector<gadgets::PathElement> out;
  out.reserve(levels.size());
  for (const PathElement& l : levels) {
    gadgets::PathElement e;
    e.hashes.reserve(l.hashes.size());
    for (const Bytes32& h : l.hashes) e.hashes.emplace_back(to_fr(h));
    e.index = l.index;
    out.push_back(std::move(e));
  }
  return out;
}

gadgets::AuthPath to_auth_path(const MerkleProof& p, const gadgets::MerkleShape& shape) {
  return gadgets::AuthPath{shape, to_path(p.base), to_path(p.sub), to_path(p.top)};
}

PorepColumnWitness to_column(const ColumnProof& c, const gadgets::MerkleShape& shape) {
  PorepColumnWitness w;
  w.rows.reserve(c.column.rows.size());
  for (const Bytes32& r : c.column.rows) w.rows.emplace_back(to_fr(r));
  w.path = to_auth_path(c.inclusion_proof, shape);
  return w;
}

}  // namespace

PorepCircuitShape PorepCircuitShape::of(const RegisteredSealProof& proof) {
  const PorepShape& s = proof.shape;
  PorepCircuitShape out;
  out.nodes = s.nodes;
  out.layers = s.layers;
  out.challenges = proof.challenges_per_partition;
  out.tree = gadgets::MerkleShape{s.base_arity, s.sub_arity, s.top_arity};
  out.validate();
  return out;
}

PorepCircuitShape PorepCircuitShape::reference_test(const gadgets::MerkleShape& tree) {
  tree.validate();
  PorepCircuitShape out;
  out.nodes = 8 * tree.base_tree_count();
  out.layers = 2;
  out.challenges = 1;
  out.tree = tree;
  out.validate();
  return out;
}

void PorepCircuitShape::validate() const {
  if (nodes < 2 || !std::has_single_bit(nodes) || nodes > (uint64_t{1} << 40)) {
    throw std::invalid_argument("PoRep circuit: nodes = " + std::to_string(nodes) +
                                " must be a power of two in 2..2^40");
  }
  if (layers != 2 && layers != 11) {
    // hash.rs hash_single_column supports columns of 2 and 11 labels only.
    throw std::invalid_argument("PoRep circuit: " + std::to_string(layers) +
                                " layers; the column hash supports 2 or 11 (hash.rs hash_single_column)");
  }
  if (challenges == 0 || challenges > 1024) {
    throw std::invalid_argument("PoRep circuit: " + std::to_string(challenges) + " challenges (1..1024 allowed)");
  }
  tree.validate();
  tree.base_path_length(nodes);  // throws unless the nodes fill the tree's shape
}

std::string PorepCircuitShape::describe() const {
  return std::to_string(nodes) + " nodes, " + std::to_string(layers) + " layers, " + std::to_string(challenges) +
         " challenge(s), tree " + tree.name();
}

PorepCircuitWitness PorepCircuitWitness::blank(const PorepCircuitShape& shape) {
  shape.validate();
  PorepChallengeWitness c;
  c.comm_d_path = gadgets::AuthPath::blank(tree_d_shape(), shape.nodes);
  c.comm_r_last_path = gadgets::AuthPath::blank(shape.tree, shape.nodes);
  c.comm_c_path = c.comm_r_last_path;
  const PorepColumnWitness column{std::vector<std::optional<Fr>>(shape.layers), c.comm_c_path};
  c.drg_parents.assign(kBaseDegree, column);
  c.exp_parents.assign(kExpDegree, column);
  PorepCircuitWitness w;
  w.challenges.assign(shape.challenges, c);
  return w;
}

PorepCircuitWitness porep_circuit_witness(const SealCommitPhase1Output& c1, uint32_t partition) {
  if (c1.registered_proof == nullptr) throw std::invalid_argument("PoRep witness: C1 output has no registered proof");
  if (partition >= c1.vanilla_proofs.size()) {
    throw std::out_of_range("PoRep witness: partition " + std::to_string(partition) + " of a C1 output with " +
                            std::to_string(c1.vanilla_proofs.size()) + " partitions");
  }
  const PorepCircuitShape shape = PorepCircuitShape::of(*c1.registered_proof);
  const std::vector<VanillaProof>& proofs = c1.vanilla_proofs[partition];
  if (proofs.empty())
    throw std::invalid_argument("PoRep witness: partition " + std::to_string(partition) + " has no proofs");
  PorepCircuitWitness w;
  w.replica_id = to_fr(c1.replica_id);
  w.comm_d = to_fr(c1.comm_d);
  w.comm_r = to_fr(c1.comm_r);
  // StackedCompound::circuit: comm_r_last and comm_c from the first proof, the same in all.
  const Bytes32 comm_r_last = proofs.front().comm_r_last_proof.root;
  const Bytes32 comm_c = proofs.front().replica_column_proofs.c_x.inclusion_proof.root;
  w.comm_r_last = to_fr(comm_r_last);
  w.comm_c = to_fr(comm_c);
  for (size_t i = 0; i < proofs.size(); ++i) {
    const VanillaProof& p = proofs[i];
    if (p.comm_r_last_proof.root != comm_r_last) {
      throw std::invalid_argument("PoRep witness: inconsistent comm_r_last in partition " + std::to_string(partition) +
                                  ", challenge " + std::to_string(i));
    }
    if (p.replica_column_proofs.c_x.inclusion_proof.root != comm_c) {
      throw std::invalid_argument("PoRep witness: inconsistent comm_c in partition " + std::to_string(partition) +
                                  ", challenge " + std::to_string(i));
    }
    if (p.labeling_proofs.empty()) {
      throw std::invalid_argument("PoRep witness: challenge " + std::to_string(i) + " has no labeling proofs");
    }
    PorepChallengeWitness c;
    c.data_leaf = to_fr(p.comm_d_proofs.leaf);
    c.challenge = p.labeling_proofs.front().node;
    c.comm_d_path = to_auth_path(p.comm_d_proofs, tree_d_shape());
    c.comm_r_last_path = to_auth_path(p.comm_r_last_proof, shape.tree);
    c.comm_c_path = to_auth_path(p.replica_column_proofs.c_x.inclusion_proof, shape.tree);
    for (const ColumnProof& col : p.replica_column_proofs.drg_parents)
      c.drg_parents.push_back(to_column(col, shape.tree));
    for (const ColumnProof& col : p.replica_column_proofs.exp_parents)
      c.exp_parents.push_back(to_column(col, shape.tree));
    w.challenges.push_back(std::move(c));
  }
  porep_detail::check_witness(shape, w);
  return w;
}

namespace porep_detail {

void check_path(const gadgets::AuthPath& path, const gadgets::MerkleShape& shape, uint64_t leaves, const char* what) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument(std::string("PoRep witness: ") + what + " path " + why);
  };
  if (path.shape.base_arity != shape.base_arity || path.shape.sub_arity != shape.sub_arity ||
      path.shape.top_arity != shape.top_arity) {
    fail("has tree shape " + path.shape.name() + ", the circuit needs " + shape.name());
  }
  auto check_levels = [&](const std::vector<gadgets::PathElement>& levels, size_t expected, size_t arity,
                          const char* part) {
    if (levels.size() != expected) {
      fail("has " + std::to_string(levels.size()) + " " + part + " levels, the circuit needs " +
           std::to_string(expected));
    }
    for (size_t i = 0; i < levels.size(); ++i) {
      if (levels[i].hashes.size() + 1 != arity) {
        fail(std::string(part) + " level " + std::to_string(i) + " has " + std::to_string(levels[i].hashes.size()) +
             " siblings, arity " + std::to_string(arity) + " needs " + std::to_string(arity - 1));
      }
      if (levels[i].index && *levels[i].index >= arity) {
        fail(std::string(part) + " level " + std::to_string(i) + " has index " + std::to_string(*levels[i].index) +
             " >= arity " + std::to_string(arity));
      }
    }
  };
  check_levels(path.base, shape.base_path_length(leaves), shape.base_arity, "base");
  check_levels(path.sub, shape.sub_arity != 0 ? 1 : 0, shape.sub_arity, "sub");
  check_levels(path.top, shape.top_arity != 0 ? 1 : 0, shape.top_arity, "top");
}

void check_witness(const PorepCircuitShape& shape, const PorepCircuitWitness& w) {
  if (w.challenges.size() != shape.challenges) {
    throw std::invalid_argument("PoRep witness: " + std::to_string(w.challenges.size()) + " challenges, the circuit (" +
                                shape.describe() + ") needs " + std::to_string(shape.challenges));
  }
  for (const PorepChallengeWitness& c : w.challenges) {
    check_path(c.comm_d_path, tree_d_shape(), shape.nodes, "tree D");
    check_path(c.comm_r_last_path, shape.tree, shape.nodes, "tree R");
    check_path(c.comm_c_path, shape.tree, shape.nodes, "tree C");
    if (c.drg_parents.size() != kBaseDegree || c.exp_parents.size() != kExpDegree) {
      throw std::invalid_argument("PoRep witness: " + std::to_string(c.drg_parents.size()) + " DRG and " +
                                  std::to_string(c.exp_parents.size()) + " expander parent columns (6 and 8 needed)");
    }
    for (const auto* cols : {&c.drg_parents, &c.exp_parents}) {
      for (const PorepColumnWitness& col : *cols) {
        if (col.rows.size() != shape.layers) {
          throw std::invalid_argument("PoRep witness: a parent column has " + std::to_string(col.rows.size()) +
                                      " rows, the circuit has " + std::to_string(shape.layers) + " layers");
        }
        check_path(col.path, shape.tree, shape.nodes, "parent column");
      }
    }
  }
}

}  // namespace porep_detail
}  // namespace cuzk::filecoin
