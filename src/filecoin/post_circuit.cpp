#include "filecoin/post_circuit.hpp"

#include <bit>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

std::vector<gadgets::PathElement> to_levels(const std::vector<PathElement>& levels) {
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

[[noreturn]] void fail_post_witness(const std::string& what) {
  throw std::invalid_argument("PoSt witness: " + what);
}

void check_levels(const std::vector<gadgets::PathElement>& levels, size_t expected, size_t arity, const char* part,
                  size_t sector, size_t challenge) {
  const std::string where = "sector " + std::to_string(sector) + ", challenge " + std::to_string(challenge) + ": ";
  if (levels.size() != expected) {
    fail_post_witness(where + std::to_string(levels.size()) + " " + part + " levels, the circuit needs " +
                      std::to_string(expected));
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].hashes.size() + 1 != arity) {
      fail_post_witness(where + part + " level " + std::to_string(i) + " has " +
                        std::to_string(levels[i].hashes.size()) + " siblings, arity " + std::to_string(arity) +
                        " needs " + std::to_string(arity - 1));
    }
    if (levels[i].index && *levels[i].index >= arity) {
      fail_post_witness(where + part + " level " + std::to_string(i) + " has index " +
                        std::to_string(*levels[i].index));
    }
  }
}

}  // namespace

PostCircuitShape PostCircuitShape::of(const RegisteredPostProof& proof) {
  const PorepShape& s = proof.shape;
  PostCircuitShape out;
  out.nodes = s.nodes;
  out.sectors = proof.circuit_sectors;
  out.challenges = proof.circuit_challenges;
  out.tree = gadgets::MerkleShape{s.base_arity, s.sub_arity, s.top_arity};
  out.validate();
  return out;
}

PostCircuitShape PostCircuitShape::reference_test(const gadgets::MerkleShape& tree, uint32_t sectors,
                                                  uint32_t challenges) {
  tree.validate();
  PostCircuitShape out;
  out.nodes = 64 * tree.base_tree_count();
  out.sectors = sectors;
  out.challenges = challenges;
  out.tree = tree;
  out.validate();
  return out;
}

void PostCircuitShape::validate() const {
  if (nodes < 2 || !std::has_single_bit(nodes) || nodes > (uint64_t{1} << 40)) {
    throw std::invalid_argument("PoSt circuit: nodes = " + std::to_string(nodes) +
                                " must be a power of two in 2..2^40");
  }
  if (sectors == 0 || sectors > 100'000) {
    throw std::invalid_argument("PoSt circuit: " + std::to_string(sectors) + " sectors (1..100000 allowed)");
  }
  if (challenges == 0 || challenges > 1'000) {
    throw std::invalid_argument("PoSt circuit: " + std::to_string(challenges) + " challenges (1..1000 allowed)");
  }
  tree.validate();
  tree.base_path_length(nodes);  // throws unless the leaves fill the tree's shape
}

std::string PostCircuitShape::describe() const {
  return std::to_string(nodes) + " nodes, " + std::to_string(sectors) + " sector(s) x " + std::to_string(challenges) +
         " challenge(s), tree " + tree.name();
}

PostCircuitWitness PostCircuitWitness::blank(const PostCircuitShape& shape) {
  shape.validate();
  PostSectorWitness s;
  s.leaves.assign(shape.challenges, std::nullopt);
  s.paths.assign(shape.challenges, gadgets::AuthPath::blank(shape.tree, shape.nodes));
  PostCircuitWitness w;
  w.sectors.assign(shape.sectors, s);
  return w;
}

PostCircuitWitness post_circuit_witness(const PostCircuitShape& shape,
                                        std::span<const FallbackPostSectorProof> proofs) {
  shape.validate();
  PostCircuitWitness w;
  for (const FallbackPostSectorProof& p : proofs) {
    for (const PostSectorProof& sp : p.sectors) {
      if (sp.inclusion_proofs.size() % shape.challenges != 0) {
        fail_post_witness(
            "sector " + std::to_string(p.sector_id) + " has " + std::to_string(sp.inclusion_proofs.size()) +
            " inclusion proofs, not a multiple of the circuit's " + std::to_string(shape.challenges) + " challenges");
      }
      for (size_t first = 0; first < sp.inclusion_proofs.size(); first += shape.challenges) {
        PostSectorWitness s;
        s.comm_r = to_fr(p.comm_r);
        s.comm_c = to_fr(sp.comm_c);
        s.comm_r_last = to_fr(sp.comm_r_last);
        for (size_t j = first; j < first + shape.challenges; ++j) {
          const MerkleProof& mp = sp.inclusion_proofs[j];
          s.leaves.emplace_back(to_fr(mp.leaf));
          s.paths.push_back(gadgets::AuthPath{shape.tree, to_levels(mp.base), to_levels(mp.sub), to_levels(mp.top)});
        }
        w.sectors.push_back(std::move(s));
      }
    }
  }
  if (w.sectors.empty()) fail_post_witness("no sector proofs");
  if (w.sectors.size() > shape.sectors) {
    fail_post_witness(std::to_string(w.sectors.size()) + " circuit sectors, the circuit (" + shape.describe() +
                      ") has " + std::to_string(shape.sectors));
  }
  // vanilla.rs / post_util.rs: "we duplicate the last one to pad the proof out".
  while (w.sectors.size() < shape.sectors) w.sectors.push_back(w.sectors.back());
  post_detail::check_witness(shape, w);
  return w;
}

namespace post_detail {

void check_witness(const PostCircuitShape& shape, const PostCircuitWitness& w) {
  if (w.sectors.size() != shape.sectors) {
    fail_post_witness(std::to_string(w.sectors.size()) + " sectors, the circuit (" + shape.describe() + ") needs " +
                      std::to_string(shape.sectors));
  }
  const size_t base_levels = shape.tree.base_path_length(shape.nodes);
  for (size_t i = 0; i < w.sectors.size(); ++i) {
    const PostSectorWitness& s = w.sectors[i];
    if (s.leaves.size() != shape.challenges || s.paths.size() != shape.challenges) {
      fail_post_witness("sector " + std::to_string(i) + " has " + std::to_string(s.leaves.size()) + " leaves and " +
                        std::to_string(s.paths.size()) + " paths, the circuit needs " +
                        std::to_string(shape.challenges));
    }
    for (size_t j = 0; j < s.paths.size(); ++j) {
      const gadgets::AuthPath& p = s.paths[j];
      if (p.shape.base_arity != shape.tree.base_arity || p.shape.sub_arity != shape.tree.sub_arity ||
          p.shape.top_arity != shape.tree.top_arity) {
        fail_post_witness("sector " + std::to_string(i) + ", challenge " + std::to_string(j) + ": tree shape " +
                          p.shape.name() + ", the circuit needs " + shape.tree.name());
      }
      check_levels(p.base, base_levels, shape.tree.base_arity, "base", i, j);
      check_levels(p.sub, shape.tree.sub_arity != 0 ? 1 : 0, shape.tree.sub_arity, "sub", i, j);
      check_levels(p.top, shape.tree.top_arity != 0 ? 1 : 0, shape.tree.top_arity, "top", i, j);
    }
  }
}

}  // namespace post_detail
}  // namespace cuzk::filecoin
