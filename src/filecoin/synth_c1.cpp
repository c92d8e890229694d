#include "filecoin/synth_c1.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "filecoin/challenges.hpp"
#include "filecoin/label.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sector_tree.hpp"
#include "filecoin/stacked_graph.hpp"
#include "filecoin/vanilla_proof.hpp"
#include "gadgets/poseidon_native.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

Bytes32 column_hash(const std::vector<Bytes32>& rows) {
  std::vector<Fr> f;
  for (const auto& r : rows) f.push_back(to_fr(r));
  return to_bytes(gadgets::poseidon_hash(f.size(), f));
}

class SparseSector final : public VanillaProofSource {
 public:
  SparseSector(const SparseTree& d, const SparseTree& c, const SparseTree& r,
               const std::map<uint64_t, std::vector<Bytes32>>& columns)
      : d_(d), c_(c), r_(r), columns_(columns) {}
  MerkleProof tree_d_proof(uint64_t node) const override { return d_.prove(node); }
  MerkleProof tree_c_proof(uint64_t node) const override { return c_.prove(node); }
  MerkleProof tree_r_proof(uint64_t node) const override { return r_.prove(node); }
  Bytes32 label(uint32_t layer, uint64_t node) const override {
    const auto it = columns_.find(node);
    if (it == columns_.end()) throw std::logic_error("synth_c1: no column for node " + std::to_string(node));
    return it->second.at(layer - 1);
  }

 private:
  const SparseTree &d_, &c_, &r_;
  const std::map<uint64_t, std::vector<Bytes32>>& columns_;
};

}  // namespace

Bytes32 uniform_sector_comm_d(const RegisteredSealProof& proof, const Bytes32& data_value) {
  return SparseTree(tree_d_layout(proof.shape), data_value, {}).root();
}

SparseSectorProofs sparse_sector_proofs(const RegisteredSealProof& proof, const Bytes32& replica_id,
                                        const Bytes32& data_value, const std::vector<uint64_t>& challenges,
                                        uint64_t rng_seed) {
  const PorepShape& s = proof.shape;
  const StackedGraph g(s.nodes, porep_id(proof), proof.api_version);
  Xoshiro256 rng(rng_seed ^ 0x5eedc011u);
  SparseSectorProofs out;

  // One column per node shown: challenges (labels computed below) and their parents.
  const std::set<uint64_t> challenged(challenges.begin(), challenges.end());
  std::map<uint64_t, std::array<uint32_t, kDegree>> parents;
  for (uint64_t c : challenged) {
    if (c == 0 || c >= s.nodes)
      throw std::invalid_argument("synth_c1: challenge " + std::to_string(c) + " out of range");
    parents.emplace(c, g.parents(c));
  }
  for (const auto& [c, ps] : parents) {
    for (uint32_t p : ps) out.columns.emplace(p, std::vector<Bytes32>{});
  }
  for (uint64_t c : challenged) out.columns.emplace(c, std::vector<Bytes32>{});
  // Random labels for every column in node order (so they depend on the seed only); the
  // challenged nodes' rows are overwritten below.
  for (auto& [node, rows] : out.columns) {
    for (uint32_t l = 0; l < s.layers; ++l) rows.push_back(random_fr_bytes(rng));
  }
  for (uint32_t layer = 1; layer <= s.layers; ++layer) {
    for (uint64_t c : challenged) {  // increasing: a DRG parent that is a challenge is done first
      const auto& ps = parents.at(c);
      std::vector<gadgets::NodeBytes> distinct;
      for (size_t i = 0; i < kBaseDegree; ++i) distinct.push_back(out.columns.at(ps[i])[layer - 1]);
      if (layer > 1) {
        for (size_t i = kBaseDegree; i < kDegree; ++i) distinct.push_back(out.columns.at(ps[i])[layer - 2]);
      }
      out.columns.at(c)[layer - 1] = label_from_parents(replica_id, layer, c, repeat_parents(distinct));
    }
  }

  // Trees: D all default; C over the column hashes shown; R over the challenged replica nodes.
  const SparseTree tree_d(tree_d_layout(s), data_value, {});
  std::vector<uint64_t> col_nodes;
  for (const auto& kv : out.columns) col_nodes.push_back(kv.first);
  std::vector<Bytes32> col_hashes(col_nodes.size());
  ThreadPool::global().parallel_for(col_nodes.size(),
                                    [&](size_t i) { col_hashes[i] = column_hash(out.columns.at(col_nodes[i])); });
  std::unordered_map<uint64_t, Bytes32> c_leaves, r_leaves;
  for (size_t i = 0; i < col_nodes.size(); ++i) c_leaves.emplace(col_nodes[i], col_hashes[i]);
  for (uint64_t c : challenged) {
    r_leaves.emplace(c, to_bytes(to_fr(out.columns.at(c).back()) + to_fr(data_value)));
  }
  const SparseTree tree_c(tree_rc_layout(s), random_fr_bytes(rng), c_leaves);
  const SparseTree tree_r(tree_rc_layout(s), random_fr_bytes(rng), r_leaves);
  out.comm_d = tree_d.root();
  out.comm_c = tree_c.root();
  out.comm_r_last = tree_r.root();
  out.comm_r = comm_r_from(out.comm_c, out.comm_r_last);

  const SparseSector sector(tree_d, tree_c, tree_r, out.columns);
  out.proofs.resize(challenges.size());
  ThreadPool::global().parallel_for(
      challenges.size(), [&](size_t i) { out.proofs[i] = build_vanilla_proof(g, s.layers, sector, challenges[i]); });
  return out;
}

SealCommitPhase1Output make_valid_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed) {
  return make_valid_synthetic_c1(proof, rng_seed, prover_id_from_actor_id(1000), 1);
}

SealCommitPhase1Output make_valid_synthetic_c1(const RegisteredSealProof& proof, uint64_t rng_seed,
                                               const Bytes32& prover_id, uint64_t sector_id) {
  Xoshiro256 rng(rng_seed);
  const Bytes32 data_value = random_fr_bytes(rng);
  SealParams params;
  params.prover_id = prover_id;
  params.sector_id = sector_id;
  for (auto* b : {&params.ticket, &params.seed}) {
    *b = random_fr_bytes(rng);
    (*b)[31] |= 0x01;  // non-zero
  }
  if (proof.challenge_mode != ChallengeMode::kInteractive) {
    if (proof.shape.nodes > (uint64_t{1} << 24)) {
      throw std::invalid_argument(std::string(proof.name) +
                                  ": a valid synthetic C1 needs interactive challenges (V1 or V1_1 proofs) at this "
                                  "size; non-interactive and synthetic-PoRep challenges depend on comm_r, so the "
                                  "whole sector must be sealed (`cuzk seal`, up to 512 MiB)");
    }
    return seal_sector(proof, random_sector_data(proof.shape.nodes, rng()), params).c1;
  }

  SealCommitPhase1Output c1;
  c1.registered_proof = &proof;
  c1.comm_d = uniform_sector_comm_d(proof, data_value);
  c1.ticket = params.ticket;
  c1.seed = params.seed;
  c1.replica_id = replica_id(params.prover_id, params.sector_id, c1.ticket, c1.comm_d, porep_id(proof));
  std::vector<uint64_t> all;
  for (uint32_t k = 0; k < proof.partitions; ++k) {
    const auto cs =
        interactive_challenges(proof.shape.nodes, c1.replica_id, c1.seed, proof.challenges_per_partition, k);
    all.insert(all.end(), cs.begin(), cs.end());
  }
  SparseSectorProofs sp = sparse_sector_proofs(proof, c1.replica_id, data_value, all, rng());
  if (sp.comm_d != c1.comm_d) throw std::logic_error("synth_c1: tree D root changed");
  c1.comm_r = sp.comm_r;
  size_t next = 0;
  for (uint32_t k = 0; k < proof.partitions; ++k) {
    std::vector<VanillaProof> part;
    for (uint32_t i = 0; i < proof.challenges_per_partition; ++i) part.push_back(std::move(sp.proofs[next++]));
    c1.vanilla_proofs.push_back(std::move(part));
  }
  return c1;
}

}  // namespace cuzk::filecoin
