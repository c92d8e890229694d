#pragma once
// The SnapDeals circuit's definition (snap_circuit.hpp says what it is). Included only by
// snap_circuit_instances.cpp, which instantiates it once per constraint system: Poseidon and
// SHA-256 over a constraint system take seconds to compile, so users link instead.
//
// Names follow the reference's namespaces (TestCS checks that every path is unique). The gadgets
// are storage-proofs-update src/gadgets.rs.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "filecoin/snap_circuit.hpp"
#include "gadgets/insertion.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/sha256_hasher.hpp"

namespace cuzk::filecoin::snap_detail {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::LC;
using Path = std::vector<std::vector<AllocatedNum>>;

template <r1cs::ConstraintSystem CS, class NameFn>
AllocatedNum alloc(CS& cs, NameFn&& name, const std::optional<Fr>& v) {
  auto ns = cs.namespace_(std::forward<NameFn>(name));
  return AllocatedNum::alloc(cs, v);
}

// Poseidon2 with constants.rs POSEIDON_CONSTANTS_GEN_RANDOMNESS (Standard strength,
// HashType::Custom(Arbitrary(1))): phi, rho and the challenge digests.
template <r1cs::ConstraintSystem CS>
AllocatedNum gen_randomness_hash(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  const AllocatedNum both[2] = {a, b};
  return gadgets::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(both), gadgets::poseidon_constants(2),
                                        gadgets::PoseidonHashType::custom(1));
}

// The low n bits of a value, least significant first; unknown when the value is.
inline std::vector<std::optional<bool>> low_bits(const std::optional<Fr>& v, size_t n) {
  std::vector<std::optional<bool>> out(n);
  if (v) {
    const std::vector<bool> bits = gadgets::fr_to_bits_le(*v);
    for (size_t i = 0; i < n; ++i) out[i] = bits[i];
  }
  return out;
}

// n bits of num ("<prefix>i" or "bit i"), then "<constraint>": (sum 2^i bit_i) · ONE = num. With
// n = 255 and the "bit i" names this is gadgets.rs allocated_num_to_allocated_bits (note the
// constraint's shape differs from AllocatedNum::to_bits_le's 0 · 0 = sum − num).
template <r1cs::ConstraintSystem CS>
std::vector<AllocatedBit> decompose(CS& cs, const AllocatedNum& num, size_t n, const std::string& prefix,
                                    const char* constraint) {
  const std::vector<std::optional<bool>> values = low_bits(num.value(), n);
  std::vector<AllocatedBit> bits;
  bits.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    bits.push_back(AllocatedBit::alloc(cs, values[i]));
  }
  cs.enforce([constraint] { return constraint; },
             [&](LC lc) {
               Fr coeff = Fr::one();
               for (const AllocatedBit& b : bits) {
                 lc.add(coeff, b.var);
                 coeff = coeff + coeff;
               }
               return lc;
             },
             [](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + num.var(); });
  return bits;
}

inline std::vector<Boolean> booleans(std::span<const AllocatedBit> bits) {
  return {bits.begin(), bits.end()};
}

// One apex tree hash (row r, siblings i): hash2 of the two nodes below it.
template <r1cs::ConstraintSystem CS>
AllocatedNum apex_tree_hash(CS& cs, size_t r, size_t i, const AllocatedNum& left, const AllocatedNum& right) {
  auto ns = cs.namespace_([&] {
    return "apex_tree generation hash (tree_row=" + std::to_string(r) + ", siblings=" + std::to_string(i) + ")";
  });
  return gadgets::Sha256Hasher::hash2_circuit(cs, left, right);
}

// The partition path from the apex root up to comm_d (por_no_challenge_input, tree D).
template <r1cs::ConstraintSystem CS>
void apex_partition_por(CS& cs, const AllocatedNum& apex_root, std::span<const AllocatedBit> partition_bits,
                        const Path& partition_path, const AllocatedNum& comm_d) {
  auto ns = cs.namespace_([] { return "partition-tree por"; });
  const std::vector<Boolean> bits = booleans(partition_bits);
  gadgets::por_no_challenge_input<gadgets::Sha256Hasher>(cs, gadgets::MerkleShape{2, 0, 0}, bits, apex_root,
                                                         partition_path, comm_d);
}

// gadgets.rs apex_por: the apex tree over this partition's apex leaves (SHA-256 hash2 row by
// row), then the partition path. record_snap_circuit_parallel records the same pieces apart.
template <r1cs::ConstraintSystem CS>
void apex_por(CS& cs, std::vector<AllocatedNum> row, std::span<const AllocatedBit> partition_bits,
              const Path& partition_path, const AllocatedNum& comm_d) {
  for (size_t r = 0; row.size() > 1; ++r) {
    std::vector<AllocatedNum> next;
    next.reserve(row.size() / 2);
    for (size_t i = 0; i < row.size() / 2; ++i) next.push_back(apex_tree_hash(cs, r, i, row[2 * i], row[2 * i + 1]));
    row = std::move(next);
  }
  apex_partition_por(cs, row.front(), partition_bits, partition_path, comm_d);
}

// gadgets.rs gen_challenge_bits: per digest j, digest_index = k·digests + j (a new number, one
// constraint with the constants folded), digest = H(comm_r_new, digest_index), its 255 bits; the
// challenges take consecutive chunks of bits_per_challenge bits, floor(254 / bits) per digest.
template <r1cs::ConstraintSystem CS>
std::vector<std::vector<AllocatedBit>> gen_challenge_bits(CS& cs, const AllocatedNum& comm_r_new,
                                                          const AllocatedNum& partition, size_t challenges,
                                                          size_t bits_per_challenge) {
  const size_t per_digest = gadgets::kFrCapacity / bits_per_challenge;
  const size_t digests = (challenges + per_digest - 1) / per_digest;
  std::vector<std::vector<AllocatedBit>> out;
  out.reserve(challenges);
  for (size_t j = 0; j < digests; ++j) {
    const std::string js = std::to_string(j);
    const Fr fd = Fr::from_u64(digests), fj = Fr::from_u64(j);
    std::optional<Fr> index_value;
    if (partition.value()) index_value = *partition.value() * fd + fj;
    const AllocatedNum index = alloc(
        cs, [&] { return "digest_index_" + js; }, index_value);
    // The reference adds j·ONE even for j = 0 (a zero term, which the backends drop).
    cs.enforce([&] { return "digest_index_" + js + " == k * digests_per_partition + " + js; },
               [&](LC lc) { return lc + fd * partition.var() + fj * CS::one(); }, [](LC lc) { return lc + CS::one(); },
               [&](LC lc) { return lc + index.var(); });
    AllocatedNum digest;
    {
      auto ns = cs.namespace_([&] { return "digest_" + js; });
      digest = gen_randomness_hash(cs, comm_r_new, index);
    }
    std::vector<AllocatedBit> bits;
    {
      auto ns = cs.namespace_([&] { return "digest_" + js + "_bits"; });
      bits = decompose(cs, digest, gadgets::kFrNumBits, "bit ", "binary decomp");
    }
    const size_t take = j + 1 == digests ? challenges - out.size() : per_digest;
    for (size_t c = 0; c < take; ++c) {
      const auto first = bits.begin() + static_cast<std::ptrdiff_t>(c * bits_per_challenge);
      out.emplace_back(first, first + static_cast<std::ptrdiff_t>(bits_per_challenge));
    }
  }
  return out;
}

// gadgets.rs get_challenge_high_bits: for each h in hs, the h high bits of the challenge packed
// and multiplied by its h_select bit; their sum is the selected c_high (13 constraints).
template <r1cs::ConstraintSystem CS>
AllocatedNum challenge_high_bits(CS& cs, std::span<const AllocatedBit> c_bits,
                                 std::span<const AllocatedBit> h_select_bits, std::span<const uint32_t> hs) {
  std::vector<AllocatedNum> terms;
  for (size_t k = 0; k < hs.size(); ++k) {
    const std::string tag = "(h=" + std::to_string(hs[k]) + ", k=" + std::to_string(k) + ")";
    const std::vector<Boolean> high = booleans(c_bits.subspan(c_bits.size() - hs[k]));
    AllocatedNum c_high;
    {
      auto ns = cs.namespace_([&] { return "c_high " + tag; });
      c_high = gadgets::pack_bits(cs, std::span<const Boolean>(high));
    }
    const AllocatedBit& sel = h_select_bits[k];
    std::optional<Fr> v;
    if (sel.value) v = *sel.value ? c_high.value() : std::optional<Fr>(Fr::zero());
    const AllocatedNum or_zero = alloc(
        cs, [&] { return "c_high_or_zero " + tag; }, v);
    cs.enforce([&] { return "c_high_or_zero == c_high * h_select_bit " + tag; },
               [&](LC lc) { return lc + c_high.var(); }, [&](LC lc) { return lc + sel.var; },
               [&](LC lc) { return lc + or_zero.var(); });
    terms.push_back(or_zero);
  }
  std::optional<Fr> sum = Fr::zero();
  for (const AllocatedNum& t : terms) sum = sum && t.value() ? std::optional<Fr>(*sum + *t.value()) : std::nullopt;
  const AllocatedNum selected = alloc(
      cs, [] { return "c_high_selected"; }, sum);
  cs.enforce([] { return "c_high_selected == dot(c_highs, h_select_bits)"; },
             [&](LC lc) {
               for (const AllocatedNum& t : terms) lc.add(t.var());
               return lc;
             },
             [](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + selected.var(); });
  return selected;
}

// gadgets.rs label_r_new: leaf_r_new = leaf_r_old + leaf_d_new · rho (2 constraints).
template <r1cs::ConstraintSystem CS>
AllocatedNum label_r_new(CS& cs, const AllocatedNum& r_old, const AllocatedNum& d_new, const AllocatedNum& rho) {
  AllocatedNum product;
  {
    auto ns = cs.namespace_([] { return "label_d_new * rho"; });
    product = d_new.mul(cs, rho);
  }
  std::optional<Fr> v;
  if (r_old.value() && product.value()) v = *r_old.value() + *product.value();
  const AllocatedNum r_new = alloc(
      cs, [] { return "label_r_new"; }, v);
  cs.enforce([] { return "label_r_new == label_r_old + label_d_new * rho"; },
             [&](LC lc) { return lc + r_old.var() + product.var(); }, [](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + r_new.var(); });
  return r_new;
}

// A Merkle path's siblings, named "<what> sibling (c_index=c, tree_row=r, sibling_index=s)"; a
// tree-D path of the SHA-256 shape omits the sibling index, as the reference does.
template <r1cs::ConstraintSystem CS>
Path alloc_path(CS& cs, const SnapPath& path, const std::string& what, size_t c, bool sibling_index) {
  Path out;
  out.reserve(path.size());
  for (size_t r = 0; r < path.size(); ++r) {
    std::vector<AllocatedNum> level;
    for (size_t s = 0; s < path[r].size(); ++s) {
      level.push_back(alloc(
          cs,
          [&] {
            return what + " sibling (c_index=" + std::to_string(c) + ", tree_row=" + std::to_string(r) +
                   (sibling_index ? ", sibling_index=" + std::to_string(s) : std::string()) + ")";
          },
          path[r][s]));
    }
    out.push_back(std::move(level));
  }
  return out;
}

// What the top of the circuit allocates and every challenge uses.
struct Top {
  std::vector<AllocatedBit> partition_bits, h_select_bits;
  AllocatedNum partition;  // packed partition bits (SHA-256 tree D) or the constant-zero number
  AllocatedNum comm_r_old, comm_d_new, comm_r_new, phi;
  AllocatedNum comm_c, root_r_old, root_r_new;
  std::vector<AllocatedNum> apex_leaves;
  Path partition_path;
};

template <r1cs::ConstraintSystem CS>
AllocatedNum public_num(CS& cs, const char* name, const char* input_name, const std::optional<Fr>& v) {
  const AllocatedNum n = alloc(
      cs, [name] { return name; }, v);
  auto ns = cs.namespace_([input_name] { return input_name; });
  n.inputize(cs);
  return n;
}

// The public inputs, phi, and the private values shared by all challenges, in the reference's
// order (circuit.rs; poseidon/circuit.rs for the Poseidon tree D).
template <r1cs::ConstraintSystem CS>
Top top_circuit(CS& cs, const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  const bool sha = shape.tree_d == SnapTreeD::kSha256;
  const std::string sel = sha ? "k_and_h_select" : "h_select";
  Top t;
  const AllocatedNum selector =
      public_num(cs, sel.c_str(), sha ? "k_and_h_select (public input)" : "h_select (public input)", w.selector);
  const size_t pb = shape.partition_bits();
  std::vector<AllocatedBit> bits = decompose(cs, selector, pb + shape.hs.size(), sel + "_bit_",
                                             sha ? "k_and_h_select binary decomp" : "h_select binary decomp");
  t.partition_bits.assign(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(pb));
  t.h_select_bits.assign(bits.begin() + static_cast<std::ptrdiff_t>(pb), bits.end());
  if (sha) {
    auto ns = cs.namespace_([] { return "pack partition bits"; });
    const std::vector<Boolean> pbits = booleans(t.partition_bits);
    t.partition = gadgets::pack_bits(cs, std::span<const Boolean>(pbits));
  }
  t.comm_r_old = public_num(cs, "comm_r_old", "comm_r_old_input", w.comm_r_old);
  t.comm_d_new = public_num(cs, "comm_d_new", "comm_d_new_input", w.comm_d_new);
  t.comm_r_new = public_num(cs, "comm_r_new", "comm_r_new_input", w.comm_r_new);
  {
    auto ns = cs.namespace_([] { return "phi"; });
    t.phi = gen_randomness_hash(cs, t.comm_d_new, t.comm_r_old);
  }
  t.comm_c = alloc(
      cs, [] { return "comm_c"; }, w.comm_c);
  t.root_r_old = alloc(
      cs, [] { return "root_r_old"; }, w.root_r_old);
  t.root_r_new = alloc(
      cs, [] { return "root_r_new"; }, w.root_r_new);
  for (size_t i = 0; i < w.apex_leaves.size(); ++i) {
    t.apex_leaves.push_back(alloc(
        cs, [i] { return "apex_leaf_" + std::to_string(i); }, w.apex_leaves[i]));
  }
  for (size_t i = 0; i < w.partition_path.size(); ++i) {
    t.partition_path.push_back({alloc(
        cs, [i] { return "partition_path_sibling_" + std::to_string(i); }, w.partition_path[i])});
  }
  return t;
}

// comm_r = Poseidon2(comm_c, root_r) for the old and the new replica.
template <r1cs::ConstraintSystem CS>
void comm_r_checks(CS& cs, const Top& t) {
  AllocatedNum old_calc, new_calc;
  {
    auto ns = cs.namespace_([] { return "comm_r_old_calc"; });
    old_calc = gadgets::PoseidonHasher::hash2_circuit(cs, t.comm_c, t.root_r_old);
  }
  gadgets::enforce_equal_nums(
      cs, [] { return "enforce comm_r_old_calc == comm_r_old"; }, old_calc, t.comm_r_old);
  {
    auto ns = cs.namespace_([] { return "comm_r_new_calc"; });
    new_calc = gadgets::PoseidonHasher::hash2_circuit(cs, t.comm_c, t.root_r_new);
  }
  gadgets::enforce_equal_nums(
      cs, [] { return "enforce comm_r_new_calc == comm_r_new"; }, new_calc, t.comm_r_new);
}

// One challenge (the body of synthesize's loop): c_bits are its generated bits followed by the
// partition bits, least significant first.
template <r1cs::ConstraintSystem CS>
void challenge_circuit(CS& cs, const SnapCircuitShape& shape, const Top& t, size_t c,
                       const std::vector<AllocatedBit>& c_bits, const SnapChallengeWitness& w) {
  const std::string ci = "(c_index=" + std::to_string(c) + ")";
  AllocatedNum c_high, rho;
  {
    auto ns = cs.namespace_([&] { return "get_challenge_high_bits " + ci; });
    c_high = challenge_high_bits(cs, c_bits, t.h_select_bits, shape.hs);
  }
  {
    auto ns = cs.namespace_([&] { return "rho " + ci; });
    rho = gen_randomness_hash(cs, t.phi, c_high);
  }
  const AllocatedNum leaf_r_old = alloc(
      cs, [&] { return "leaf_r_old " + ci; }, w.leaf_r_old);
  const AllocatedNum leaf_d_new = alloc(
      cs, [&] { return "leaf_d_new " + ci; }, w.leaf_d_new);
  AllocatedNum leaf_r_new;
  {
    auto ns = cs.namespace_([&] { return "leaf_r_new " + ci; });
    leaf_r_new = label_r_new(cs, leaf_r_old, leaf_d_new, rho);
  }
  if (leaf_r_new.value() && w.leaf_r_new && *leaf_r_new.value() != *w.leaf_r_new) {
    throw std::invalid_argument("SnapDeals witness: challenge " + std::to_string(c) +
                                ": leaf_r_new is not leaf_r_old + leaf_d_new * rho");
  }
  const std::vector<Boolean> bits = booleans(c_bits);
  auto por = [&](const char* what, const Path& path, const gadgets::MerkleShape& tree, const AllocatedNum& leaf,
                 const AllocatedNum& root, size_t nbits, bool sha) {
    auto ns = cs.namespace_([&] { return std::string("por ") + what + " " + ci; });
    const std::span<const Boolean> b(bits.data(), nbits);
    if (sha) {
      gadgets::por_no_challenge_input<gadgets::Sha256Hasher>(cs, tree, b, leaf, path, root);
    } else {
      gadgets::por_no_challenge_input<gadgets::PoseidonHasher>(cs, tree, b, leaf, path, root);
    }
  };
  const size_t all = shape.challenge_bits();
  por("tree_r_old", alloc_path(cs, w.path_r_old, "path_r_old", c, true), shape.tree_r, leaf_r_old, t.root_r_old, all,
      false);
  por("tree_r_new", alloc_path(cs, w.path_r_new, "path_r_new", c, true), shape.tree_r, leaf_r_new, t.root_r_new, all,
      false);
  if (shape.tree_d == SnapTreeD::kPoseidon) {
    por("tree_d_new", alloc_path(cs, w.path_d_new, "path_d_new", c, true), shape.tree_r, leaf_d_new, t.comm_d_new, all,
        false);
    return;
  }
  const size_t to_apex = shape.tree_d_levels();
  AllocatedNum apex_leaf;
  {
    auto ns = cs.namespace_([&] { return "select_apex_leaf " + ci; });
    apex_leaf = gadgets::select(cs, std::span<const AllocatedNum>(t.apex_leaves),
                                std::span<const Boolean>(bits).subspan(to_apex, shape.apex_bits()));
  }
  por("to_apex_leaf", alloc_path(cs, w.path_d_new, "path_to_apex_leaf", c, false), gadgets::MerkleShape{2, 0, 0},
      leaf_d_new, apex_leaf, to_apex, true);
}

// Everything before the challenges in three parts: the top with the comm_r checks (and, with the
// Poseidon tree D, the zero partition number), the apex PoR (SHA-256 tree D) and each challenge's
// bits (generated, then the partition bits). The challenges use only variables of the first and
// the last, and the apex PoR only of the first, so record_snap_circuit_parallel records them apart
// (and the apex PoR itself in pieces: its hashes, then the partition path).
struct Head {
  Top top;
  AllocatedNum partition;  // gen_challenge_bits' partition number
  std::vector<std::vector<AllocatedBit>> c_bits;
};

template <r1cs::ConstraintSystem CS>
Head head_top(CS& cs, const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  Head h{top_circuit(cs, shape, w), {}, {}};
  comm_r_checks(cs, h.top);
  h.partition = h.top.partition;
  if (shape.tree_d == SnapTreeD::kPoseidon) {
    // poseidon/circuit.rs: an unconstrained number that is always zero.
    h.partition = alloc(
        cs, [] { return "gen_challenge_bits partition zero"; }, std::optional<Fr>(Fr::zero()));
  }
  return h;
}

template <r1cs::ConstraintSystem CS>
void head_apex(CS& cs, const SnapCircuitShape& shape, const Head& h) {
  if (shape.tree_d != SnapTreeD::kSha256) return;
  auto ns = cs.namespace_([] { return "apex_gadget"; });
  apex_por(cs, h.top.apex_leaves, h.top.partition_bits, h.top.partition_path, h.top.comm_d_new);
}

template <r1cs::ConstraintSystem CS>
void head_challenge_bits(CS& cs, const SnapCircuitShape& shape, Head& h) {
  {
    auto ns = cs.namespace_([] { return "gen_challenge_bits"; });
    h.c_bits = gen_challenge_bits(cs, h.top.comm_r_new, h.partition, shape.challenges, shape.random_bits());
  }
  for (std::vector<AllocatedBit>& bits : h.c_bits) {
    bits.insert(bits.end(), h.top.partition_bits.begin(), h.top.partition_bits.end());
  }
}

template <r1cs::ConstraintSystem CS>
void synthesize(CS& cs, const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  check_witness(shape, w);
  Head h = head_top(cs, shape, w);
  head_apex(cs, shape, h);
  head_challenge_bits(cs, shape, h);
  for (size_t c = 0; c < h.c_bits.size(); ++c) challenge_circuit(cs, shape, h.top, c, h.c_bits[c], w.challenges[c]);
}

}  // namespace cuzk::filecoin::snap_detail

namespace cuzk::filecoin {

template <r1cs::ConstraintSystem CS>
void snap_circuit(CS& cs, const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  snap_detail::synthesize(cs, shape, w);
}

}  // namespace cuzk::filecoin
