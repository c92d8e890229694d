#include "filecoin/merkle_tree_hash.hpp"

#include <stdexcept>
#include <vector>

#include "gadgets/poseidon_constants.hpp"
#include "gadgets/poseidon_native.hpp"
#include "gadgets/poseidon_x8.hpp"
#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {

Bytes32 sha256_tree_node(const Bytes32& left, const Bytes32& right) {
  uint8_t msg[64];
  std::copy(left.begin(), left.end(), msg);
  std::copy(right.begin(), right.end(), msg + 32);
  Bytes32 h = gadgets::sha256_native(msg);
  h[31] &= 0x3f;  // keep it a field element
  return h;
}

Bytes32 poseidon_tree_node(std::span<const Bytes32> children) {
  std::vector<Fr> in;
  in.reserve(children.size());
  for (const auto& c : children) in.push_back(to_fr(c));
  return to_bytes(gadgets::poseidon_hash(in.size(), in));
}

Bytes32 comm_r_from(const Bytes32& comm_c, const Bytes32& comm_r_last) {
  return to_bytes(gadgets::poseidon_hash(2, std::vector<Fr>{to_fr(comm_c), to_fr(comm_r_last)}));
}

namespace {

Bytes32 climb(Bytes32 node, const std::vector<PathElement>& path, TreeHasher hasher) {
  std::vector<Bytes32> children;
  for (const auto& el : path) {
    if (el.index > el.hashes.size()) throw std::invalid_argument("merkle_proof_root: path index beyond its siblings");
    children = el.hashes;
    children.insert(children.begin() + static_cast<std::ptrdiff_t>(el.index), node);
    if (hasher == TreeHasher::kSha256) {
      if (children.size() != 2) throw std::invalid_argument("merkle_proof_root: SHA-256 trees are binary");
      node = sha256_tree_node(children[0], children[1]);
    } else {
      node = poseidon_tree_node(children);
    }
  }
  return node;
}

bool well_formed(const MerkleProof& p) {
  if (!is_canonical_fr(p.leaf)) return false;
  for (const auto* part : {&p.base, &p.sub, &p.top}) {
    for (const PathElement& el : *part) {
      if (el.hashes.empty() || el.hashes.size() > 10 || el.index > el.hashes.size()) return false;
      for (const Bytes32& h : el.hashes) {
        if (!is_canonical_fr(h)) return false;
      }
    }
  }
  return true;
}

bool same_shape(const MerkleProof& a, const MerkleProof& b) {
  auto same = [](const std::vector<PathElement>& x, const std::vector<PathElement>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].hashes.size() != y[i].hashes.size()) return false;
    }
    return true;
  };
  return same(a.base, b.base) && same(a.sub, b.sub) && same(a.top, b.top);
}

// One level of a run of proofs: node[b] := Poseidon(the siblings with node[b] at its index).
void climb_level(std::span<const MerkleProof* const> run, const std::vector<PathElement> MerkleProof::*part,
                 size_t level, std::vector<Fr>& node, std::vector<Fr>& states) {
  const size_t arity = ((*run[0]).*part)[level].hashes.size() + 1, width = arity + 1;
  const gadgets::PoseidonConstants& c = gadgets::poseidon_constants(arity);
  const Fr tag = gadgets::PoseidonHashType::merkle_tree().domain_tag(arity);
  states.assign(run.size() * width, Fr::zero());
  for (size_t b = 0; b < run.size(); ++b) {
    const PathElement& el = ((*run[b]).*part)[level];
    Fr* s = &states[b * width];
    s[0] = tag;
    for (size_t k = 0, sib = 0; k < arity; ++k) s[1 + k] = k == el.index ? node[b] : to_fr(el.hashes[sib++]);
  }
  if (!gadgets::poseidon_permute_x8(c, states, run.size())) {
    for (size_t b = 0; b < run.size(); ++b) {
      gadgets::poseidon_permute_optimized(c, std::span<Fr>(states).subspan(b * width, width));
    }
  }
  for (size_t b = 0; b < run.size(); ++b) node[b] = states[b * width + 1];
}

}  // namespace

std::vector<std::optional<Bytes32>> poseidon_proof_roots(std::span<const MerkleProof* const> proofs) {
  std::vector<std::optional<Bytes32>> roots(proofs.size());
  std::vector<const MerkleProof*> run;
  std::vector<size_t> at;
  std::vector<Fr> node, states;
  auto flush = [&] {
    if (run.empty()) return;
    node.clear();
    for (const MerkleProof* p : run) node.push_back(to_fr(p->leaf));
    for (auto part : {&MerkleProof::base, &MerkleProof::sub, &MerkleProof::top}) {
      for (size_t level = 0; level < ((*run[0]).*part).size(); ++level) climb_level(run, part, level, node, states);
    }
    for (size_t b = 0; b < run.size(); ++b) roots[at[b]] = to_bytes(node[b]);
    run.clear();
    at.clear();
  };
  for (size_t i = 0; i < proofs.size(); ++i) {
    if (proofs[i] == nullptr || !well_formed(*proofs[i])) continue;
    const MerkleProof& p = *proofs[i];
    if (run.size() == 8 || (!run.empty() && !same_shape(*run[0], p))) flush();
    run.push_back(&p);
    at.push_back(i);
  }
  flush();
  return roots;
}

Bytes32 merkle_proof_root(const MerkleProof& proof, TreeHasher hasher) {
  Bytes32 node = climb(proof.leaf, proof.base, hasher);
  node = climb(node, proof.sub, hasher);
  return climb(node, proof.top, hasher);
}

}  // namespace cuzk::filecoin
