#pragma once
// Proof of retrievability: the Merkle inclusion-proof circuit of storage-proofs-core
// src/gadgets/por.rs (PoRCircuit::synthesize), over any MerkleHasher.
//
// Per level ("merkle tree hash i" under "base", "sub" or "top"): the index bits ("index bit j",
// AllocatedBit, least significant first, log2(arity) of them), the arity−1 siblings ("path element
// j"), insert (insertion.hpp) of the current node at the index, and the hasher's
// hash_multi_leaf_circuit ("computation of commitment hash"). Then all index bits are packed into
// public inputs ("path"; they spell the challenged leaf), the root is allocated ("root_value")
// unless it is an existing variable, the computed root is constrained equal to it, and unless the
// root is private it is made a public input ("root").
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gadgets/constraint.hpp"
#include "gadgets/insertion.hpp"
#include "gadgets/merkle_tree.hpp"
#include "gadgets/multipack.hpp"

namespace cuzk::gadgets {

// A value that is either already in the circuit (Root::Var) or still to be allocated, with its
// value when known (Root::Val); storage-proofs-core src/gadgets/variables.rs.
class Root {
 public:
  static Root var(AllocatedNum n) { return Root(std::move(n)); }
  static Root val(std::optional<Fr> v) { return Root(v); }

  // The existing variable, or a new one ("num") under the caller's namespace.
  template <ConstraintSystem CS>
  AllocatedNum allocated(CS& cs) const {
    if (const auto* n = std::get_if<AllocatedNum>(&v_)) return *n;
    return AllocatedNum::alloc(cs, std::get<std::optional<Fr>>(v_));
  }

 private:
  explicit Root(AllocatedNum n) : v_(std::move(n)) {}
  explicit Root(std::optional<Fr> v) : v_(v) {}
  std::variant<AllocatedNum, std::optional<Fr>> v_;
};

// One level of the path as the circuit sees it: values are absent in a blank circuit.
struct PathElement {
  std::vector<std::optional<Fr>> hashes;  // arity − 1 siblings
  std::optional<uint64_t> index;
};

struct AuthPath {
  MerkleShape shape;
  std::vector<PathElement> base, sub, top;

  // Every value unknown (for RecordingCS and parameter generation): base_path_length(leaves) base
  // levels plus one sub and one top level where the shape has them.
  static AuthPath blank(const MerkleShape& shape, size_t leaves) {
    AuthPath p{shape, {}, {}, {}};
    p.base.assign(shape.base_path_length(leaves),
                  PathElement{std::vector<std::optional<Fr>>(shape.base_arity - 1), {}});
    if (shape.sub_arity != 0) p.sub.push_back({std::vector<std::optional<Fr>>(shape.sub_arity - 1), {}});
    if (shape.top_arity != 0) p.top.push_back({std::vector<std::optional<Fr>>(shape.top_arity - 1), {}});
    return p;
  }
  static AuthPath from_proof(const MerkleProof& proof) {
    auto conv = [](const std::vector<MerklePathLevel>& levels) {
      std::vector<PathElement> out;
      for (const MerklePathLevel& l : levels) {
        out.push_back({std::vector<std::optional<Fr>>(l.siblings.begin(), l.siblings.end()), l.index});
      }
      return out;
    };
    return {proof.shape, conv(proof.base), conv(proof.sub), conv(proof.top)};
  }
};

// One sub-path (por.rs SubPath::synthesize): climbs from cur through `path` with the given arity
// and appends the index bits to `bits`. Returns the node reached.
template <MerkleHasher H, ConstraintSystem CS>
AllocatedNum por_subpath(CS& cs, size_t arity, std::span<const PathElement> path, AllocatedNum cur,
                         std::vector<Boolean>& bits) {
  if (path.empty()) return cur;
  const size_t nbits = static_cast<size_t>(std::countr_zero(arity));
  for (size_t i = 0; i < path.size(); ++i) {
    const PathElement& el = path[i];
    if (el.hashes.size() + 1 != arity) {
      throw std::invalid_argument("PoR path level " + std::to_string(i) + " has " + std::to_string(el.hashes.size()) +
                                  " siblings; arity " + std::to_string(arity) + " needs " + std::to_string(arity - 1));
    }
    auto level = cs.namespace_([&] { return "merkle tree hash " + std::to_string(i); });
    std::vector<Boolean> index_bits;
    for (size_t j = 0; j < nbits; ++j) {
      auto ns = cs.namespace_([&] { return "index bit " + std::to_string(j); });
      index_bits.push_back(
          AllocatedBit::alloc(cs, el.index ? std::optional<bool>((*el.index >> j) & 1) : std::nullopt));
    }
    bits.insert(bits.end(), index_bits.begin(), index_bits.end());
    std::vector<AllocatedNum> siblings;
    for (size_t j = 0; j < el.hashes.size(); ++j) {
      auto ns = cs.namespace_([&] { return "path element " + std::to_string(j); });
      siblings.push_back(AllocatedNum::alloc(cs, el.hashes[j]));
    }
    const std::vector<AllocatedNum> inserted =
        insert(cs, cur, std::span<const Boolean>(index_bits), std::span<const AllocatedNum>(siblings));
    auto ns = cs.namespace_([] { return "computation of commitment hash"; });
    cur = H::hash_multi_leaf_circuit(cs, std::span<const AllocatedNum>(inserted), i);
  }
  return cur;
}

// The whole PoR circuit: value (the leaf), path, root; private_root keeps the root out of the
// public inputs. Public inputs: the packed challenge (the leaf index), then the root unless
// private.
template <MerkleHasher H, ConstraintSystem CS>
void por_circuit(CS& cs, const Root& value, const AuthPath& path, const Root& root, bool private_root) {
  path.shape.validate();
  AllocatedNum cur;
  {
    auto ns = cs.namespace_([] { return "value"; });
    cur = value.allocated(cs);
  }
  std::vector<Boolean> bits;
  {
    auto ns = cs.namespace_([] { return "base"; });
    cur = por_subpath<H>(cs, path.shape.base_arity, path.base, cur, bits);
  }
  {
    auto ns = cs.namespace_([] { return "sub"; });
    cur = por_subpath<H>(cs, path.shape.sub_arity, path.sub, cur, bits);
  }
  {
    auto ns = cs.namespace_([] { return "top"; });
    cur = por_subpath<H>(cs, path.shape.top_arity, path.top, cur, bits);
  }
  {
    auto ns = cs.namespace_([] { return "path"; });
    pack_into_inputs(cs, std::span<const Boolean>(bits));
  }
  AllocatedNum rt;
  {
    auto ns = cs.namespace_([] { return "root_value"; });
    rt = root.allocated(cs);
  }
  enforce_equal_nums(
      cs, [] { return "enforce root is correct"; }, cur, rt);
  if (!private_root) {
    auto ns = cs.namespace_([] { return "root"; });
    rt.inputize(cs);
  }
}

// storage-proofs-core por.rs por_no_challenge_input (SnapDeals): the same climb, but the caller
// supplies the challenge bits (little-endian, consumed log2(arity) per level), the leaf, the
// siblings of every level (base levels, then sub, then top) and the root as existing variables;
// no public input, and the root check is computed · ONE = root. Per level: insert ("merkle proof
// insert (height=h)"), then the hash ("merkle proof hash (height=h)").
template <MerkleHasher H, ConstraintSystem CS>
void por_no_challenge_input(CS& cs, const MerkleShape& shape, std::span<const Boolean> challenge_bits,
                            const AllocatedNum& leaf, const std::vector<std::vector<AllocatedNum>>& path_values,
                            const AllocatedNum& root) {
  shape.validate();
  const size_t extra = (shape.sub_arity != 0 ? 1 : 0) + (shape.top_arity != 0 ? 1 : 0);
  if (path_values.size() < extra) throw std::invalid_argument("por_no_challenge_input: path too short for the shape");
  const size_t base_len = path_values.size() - extra;
  auto log2 = [](size_t a) { return a == 0 ? size_t{0} : static_cast<size_t>(std::countr_zero(a)); };
  if (challenge_bits.size() != base_len * log2(shape.base_arity) + log2(shape.sub_arity) + log2(shape.top_arity)) {
    throw std::invalid_argument("por_no_challenge_input: " + std::to_string(challenge_bits.size()) +
                                " challenge bits do not match the path's " + std::to_string(path_values.size()) +
                                " levels");
  }
  AllocatedNum cur = leaf;
  size_t height = 0, bit = 0;
  auto climb = [&](size_t arity, const std::vector<AllocatedNum>& siblings) {
    if (siblings.size() + 1 != arity) {
      throw std::invalid_argument("por_no_challenge_input: level " + std::to_string(height) + " has " +
                                  std::to_string(siblings.size()) + " siblings; arity " + std::to_string(arity) +
                                  " needs " + std::to_string(arity - 1));
    }
    const auto nbits = static_cast<size_t>(std::countr_zero(arity));
    std::vector<AllocatedNum> preimage;
    {
      auto ns = cs.namespace_([&] { return "merkle proof insert (height=" + std::to_string(height) + ")"; });
      preimage = insert(cs, cur, challenge_bits.subspan(bit, nbits), std::span<const AllocatedNum>(siblings));
    }
    bit += nbits;
    auto ns = cs.namespace_([&] { return "merkle proof hash (height=" + std::to_string(height) + ")"; });
    cur = H::hash_multi_leaf_circuit(cs, std::span<const AllocatedNum>(preimage), height);
    ++height;
  };
  for (size_t i = 0; i < base_len; ++i) climb(shape.base_arity, path_values[i]);
  if (shape.sub_arity != 0) climb(shape.sub_arity, path_values[base_len]);
  if (shape.top_arity != 0) climb(shape.top_arity, path_values[base_len + 1]);
  enforce_equal_nums(
      cs, [] { return "calculated root == provided root"; }, cur, root);
}

// The verifier's public inputs for por_circuit: the challenge, then the root unless private
// (PoRCompound::generate_public_inputs).
inline std::vector<Fr> por_public_inputs(uint64_t challenge, std::optional<Fr> root) {
  std::vector<Fr> out{Fr::from_u64(challenge)};
  if (root) out.push_back(*root);
  return out;
}

}  // namespace cuzk::gadgets
