#pragma once
// The StackedDrg PoRep circuit of one partition (storage-proofs-porep src/stacked/circuit/proof.rs
// StackedCircuit::synthesize and params.rs Proof::synthesize), over any ConstraintSystem, in the
// reference's allocation and constraint order (filecoin-circuits.md 1.3, 1.4, 2.5):
//
//   replica_id (aux, input, 255 bits + unpacking, bit numbering reversed), comm_d (aux, input),
//   comm_r (aux, input), comm_r_last, comm_c (aux), comm_r == Poseidon2(comm_c, comm_r_last);
//   then per challenge:
//     data_leaf; its tree-D inclusion (SHA-256, private root comm_d);
//     for the 6 DRG then 8 expander parents: the column (L aux), its Poseidon_L hash, the hash's
//       tree-C inclusion (root comm_c);
//     the challenge as UInt64 (64 bits) packed into one input;
//     for each layer 1..L: the parents' labels as bits (DRG parents of this layer, and for L > 1
//       the expander parents of the previous layer), recomputed every layer, expanded to 37, and
//       create_label_circuit;
//     encoded = label_L + data_leaf and its tree-R inclusion (root comm_r_last);
//     Poseidon_L of the challenged node's labels and its tree-C inclusion.
//
// Every inclusion proof packs its path bits into one public input, so a partition has
// 4 + 18 · challenges inputs (ONE included), in the order of porep_public_inputs.hpp.
//
// The witness is optional throughout: a blank witness (PorepCircuitWitness::blank) synthesizes the
// structure only (RecordingCS, counting), a witness from C1 (porep_circuit_witness) the values.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "filecoin/c1_output.hpp"
#include "filecoin/create_label_circuit.hpp"
#include "filecoin/registered_proof.hpp"
#include "gadgets/num.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/sha256_hasher.hpp"

namespace cuzk::filecoin {

// What fixes the circuit's structure: the graph size, layers, challenges per partition and the
// shape of trees R and C (tree D is always binary SHA-256 over `nodes` leaves).
struct PorepCircuitShape {
  uint64_t nodes = 0;
  uint32_t layers = 0;
  uint32_t challenges = 0;
  gadgets::MerkleShape tree;

  // The production circuit of a registered proof's sector size.
  static PorepCircuitShape of(const RegisteredSealProof& proof);
  // The reference test circuit (storage-proofs-porep tests/stacked_circuit.rs): 2 layers, one
  // challenge, nodes = 8 · base_tree_count of the shape.
  static PorepCircuitShape reference_test(const gadgets::MerkleShape& tree);

  // Throws std::invalid_argument naming the field (nodes a power of two that fills the tree, 1 or
  // more layers, 2 or 11 layers for the column hash, ...).
  void validate() const;
  size_t num_inputs() const { return 4 + 18 * static_cast<size_t>(challenges); }  // ONE included
  std::string describe() const;
};

// One parent column: its L labels and the tree-C path of its hash.
struct PorepColumnWitness {
  std::vector<std::optional<Fr>> rows;
  gadgets::AuthPath path;
};

struct PorepChallengeWitness {
  std::optional<Fr> data_leaf;
  std::optional<uint64_t> challenge;
  gadgets::AuthPath comm_d_path, comm_r_last_path, comm_c_path;
  std::vector<PorepColumnWitness> drg_parents, exp_parents;
};

struct PorepCircuitWitness {
  std::optional<Fr> replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<PorepChallengeWitness> challenges;

  // Every value unknown (StackedCompound::blank_circuit).
  static PorepCircuitWitness blank(const PorepCircuitShape& shape);
};

// The witness of `partition` from a validated C1 output (StackedCompound::circuit and
// From<VanillaProof> for Proof: labeling and encoding proofs are not used, labels are recomputed
// in the circuit). Throws std::out_of_range for a partition C1 does not have and
// std::invalid_argument if the proofs disagree on comm_c / comm_r_last.
PorepCircuitWitness porep_circuit_witness(const SealCommitPhase1Output& c1, uint32_t partition);

namespace porep_detail {

// AuthPath::blank checks that the path fits; a witness path of the wrong length would change the
// circuit, so it is an error.
void check_path(const gadgets::AuthPath& path, const gadgets::MerkleShape& shape, uint64_t leaves, const char* what);

template <r1cs::ConstraintSystem CS>
gadgets::AllocatedNum alloc_num(CS& cs, const char* name, const std::optional<Fr>& value) {
  auto ns = cs.namespace_([name] { return name; });
  return gadgets::AllocatedNum::alloc(cs, value);
}

// params.rs enforce_inclusion: a PoR with the leaf and root as existing variables, private root.
template <gadgets::MerkleHasher H, r1cs::ConstraintSystem CS>
void enforce_inclusion(CS& cs, const gadgets::AuthPath& path, const gadgets::AllocatedNum& root,
                       const gadgets::AllocatedNum& leaf) {
  gadgets::por_circuit<H>(cs, gadgets::Root::var(leaf), path, gadgets::Root::var(root), true);
}

template <r1cs::ConstraintSystem CS>
std::vector<gadgets::AllocatedNum> alloc_column(CS& cs, const PorepColumnWitness& col) {
  auto ns = cs.namespace_([] { return "column"; });
  std::vector<gadgets::AllocatedNum> rows;
  rows.reserve(col.rows.size());
  for (size_t i = 0; i < col.rows.size(); ++i) {
    auto row = cs.namespace_([i] { return "column_num_row_" + std::to_string(i); });
    rows.push_back(gadgets::AllocatedNum::alloc(cs, col.rows[i]));
  }
  return rows;
}

// hash.rs hash_single_column: Poseidon of arity L (2 or 11) over the column.
template <r1cs::ConstraintSystem CS>
gadgets::AllocatedNum hash_column(CS& cs, const std::vector<gadgets::AllocatedNum>& rows) {
  return gadgets::poseidon_hash_circuit(cs, rows.size(), std::span<const gadgets::AllocatedNum>(rows));
}

template <r1cs::ConstraintSystem CS>
void challenge_circuit(CS& cs, const PorepCircuitShape& shape, const PorepChallengeWitness& w,
                       const gadgets::AllocatedNum& comm_d, const gadgets::AllocatedNum& comm_c,
                       const gadgets::AllocatedNum& comm_r_last, const std::vector<gadgets::Boolean>& replica_id) {
  using gadgets::AllocatedNum;
  using gadgets::Boolean;
  const AllocatedNum data_leaf = alloc_num(cs, "data_leaf", w.data_leaf);
  {
    auto ns = cs.namespace_([] { return "comm_d_inclusion"; });
    enforce_inclusion<gadgets::Sha256Hasher>(cs, w.comm_d_path, comm_d, data_leaf);
  }
  // The parents' columns, each hashed and opened in tree C.
  auto open_columns = [&](const std::vector<PorepColumnWitness>& cols, const char* kind) {
    std::vector<std::vector<AllocatedNum>> out;
    out.reserve(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      std::vector<AllocatedNum> rows;
      {
        auto ns = cs.namespace_([&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_num"; });
        rows = alloc_column(cs, cols[i]);
      }
      AllocatedNum hash;
      {
        auto ns = cs.namespace_([&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_constraint"; });
        hash = hash_column(cs, rows);
      }
      {
        auto ns = cs.namespace_([&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_inclusion"; });
        enforce_inclusion<gadgets::PoseidonHasher>(cs, cols[i].path, comm_c, hash);
      }
      out.push_back(std::move(rows));
    }
    return out;
  };
  const std::vector<std::vector<AllocatedNum>> drg = open_columns(w.drg_parents, "drg");
  const std::vector<std::vector<AllocatedNum>> exp = open_columns(w.exp_parents, "exp");

  gadgets::UInt64 challenge;
  {
    auto ns = cs.namespace_([] { return "challenge"; });
    challenge = gadgets::UInt64::alloc(cs, w.challenge);
  }
  {
    auto ns = cs.namespace_([] { return "challenge input"; });
    challenge.pack_into_input(cs);
  }

  std::vector<AllocatedNum> labels;
  labels.reserve(shape.layers);
  for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
    auto ns = cs.namespace_([layer] { return "labeling_" + std::to_string(layer); });
    std::vector<std::vector<Boolean>> parents;
    parents.reserve(kTotalParents);
    auto add_bits = [&](const AllocatedNum& v, const char* kind) {
      auto bits_ns =
          cs.namespace_([&] { return std::string(kind) + "_parent_" + std::to_string(parents.size()) + "_bits"; });
      parents.push_back(gadgets::reverse_bit_numbering(v.to_bits_le(cs)));
    };
    for (const std::vector<AllocatedNum>& col : drg) add_bits(col[layer - 1], "drg");
    if (layer > 1) {
      for (const std::vector<AllocatedNum>& col : exp) add_bits(col[layer - 2], "exp");
    }
    // The label hashes 37 parents: layer 1 repeats the 6 DRG parents six times and then the first;
    // later layers the 14 parents twice and then the first 9 (vanilla graph.rs
    // copy_parents_data_inner{,_exp}).
    const size_t distinct = parents.size();
    for (size_t i = 0; parents.size() < kTotalParents; i = (i + 1) % distinct) parents.push_back(parents[i]);
    auto label_ns = cs.namespace_([] { return "create_label"; });
    labels.push_back(create_label_circuit(cs, std::span<const Boolean>(replica_id), parents,
                                          gadgets::UInt32::constant(layer), challenge));
  }

  {
    AllocatedNum encoded;
    {
      auto ns = cs.namespace_([] { return "encode_node"; });
      encoded = labels.back().add(cs, data_leaf);  // encode.rs: key + value
    }
    auto ns = cs.namespace_([] { return "comm_r_last_data_inclusion"; });
    enforce_inclusion<gadgets::PoseidonHasher>(cs, w.comm_r_last_path, comm_r_last, encoded);
  }
  AllocatedNum column_hash;
  {
    auto ns = cs.namespace_([] { return "c_x_column_hash"; });
    column_hash = hash_column(cs, labels);
  }
  auto ns = cs.namespace_([] { return "c_x_inclusion"; });
  enforce_inclusion<gadgets::PoseidonHasher>(cs, w.comm_c_path, comm_c, column_hash);
}

// Checks that a witness has the shape's structure (counts and path lengths), so that every
// witness synthesizes the same circuit as the blank one.
void check_witness(const PorepCircuitShape& shape, const PorepCircuitWitness& w);

}  // namespace porep_detail

// Called after each challenge's sub-circuit with (challenges done, challenges in all).
using PorepProgress = std::function<void(size_t, size_t)>;

namespace porep_detail {

// What every challenge's sub-circuit uses of the top part.
struct TopVars {
  std::vector<gadgets::Boolean> replica_id_bits;
  gadgets::AllocatedNum comm_d, comm_c, comm_r_last;
};

// proof.rs StackedCircuit::synthesize up to the challenges: replica_id, comm_d, comm_r (inputs),
// comm_r_last, comm_c, and comm_r == Poseidon2(comm_c, comm_r_last).
template <r1cs::ConstraintSystem CS>
TopVars top_circuit(CS& cs, const PorepCircuitWitness& w) {
  using gadgets::AllocatedNum;
  TopVars t;
  const AllocatedNum replica_id = alloc_num(cs, "replica_id", w.replica_id);
  {
    auto ns = cs.namespace_([] { return "replica_id_input"; });
    replica_id.inputize(cs);
  }
  {
    auto ns = cs.namespace_([] { return "replica_id_bits"; });
    t.replica_id_bits = gadgets::reverse_bit_numbering(replica_id.to_bits_le(cs));
  }
  t.comm_d = alloc_num(cs, "comm_d", w.comm_d);
  {
    auto ns = cs.namespace_([] { return "comm_d_input"; });
    t.comm_d.inputize(cs);
  }
  const AllocatedNum comm_r = alloc_num(cs, "comm_r", w.comm_r);
  {
    auto ns = cs.namespace_([] { return "comm_r_input"; });
    comm_r.inputize(cs);
  }
  t.comm_r_last = alloc_num(cs, "comm_r_last", w.comm_r_last);
  t.comm_c = alloc_num(cs, "comm_c", w.comm_c);
  AllocatedNum h;
  {
    auto ns = cs.namespace_([] { return "H_comm_c_comm_r_last"; });
    h = gadgets::PoseidonHasher::hash2_circuit(cs, t.comm_c, t.comm_r_last);
  }
  gadgets::enforce_equal_nums(
      cs, [] { return "enforce comm_r = H(comm_c || comm_r_last)"; }, comm_r, h);
  return t;
}

// Challenge i's sub-circuit, in its namespace.
template <r1cs::ConstraintSystem CS>
void challenge_at(CS& cs, const PorepCircuitShape& shape, const PorepCircuitWitness& w, size_t i, const TopVars& t) {
  auto ns = cs.namespace_([i] { return "challenge_" + std::to_string(i); });
  challenge_circuit(cs, shape, w.challenges[i], t.comm_d, t.comm_c, t.comm_r_last, t.replica_id_bits);
}

}  // namespace porep_detail

// The whole partition circuit. Does not call cs.finalize(): the caller (prover, PCE extraction)
// appends the input constraints.
template <r1cs::ConstraintSystem CS>
void porep_circuit(CS& cs, const PorepCircuitShape& shape, const PorepCircuitWitness& w,
                   const PorepProgress& progress = {}) {
  porep_detail::check_witness(shape, w);
  const porep_detail::TopVars top = porep_detail::top_circuit(cs, w);
  for (size_t i = 0; i < w.challenges.size(); ++i) {
    porep_detail::challenge_at(cs, shape, w, i, top);
    if (progress) progress(i + 1, w.challenges.size());
  }
}

}  // namespace cuzk::filecoin
