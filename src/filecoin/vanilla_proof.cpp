#include "filecoin/vanilla_proof.hpp"

#include "filecoin/challenges.hpp"
#include "filecoin/label.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

ColumnProof column_proof(const VanillaProofSource& src, uint32_t layers, uint64_t node) {
  ColumnProof cp;
  cp.column.index = static_cast<uint32_t>(node);
  for (uint32_t l = 1; l <= layers; ++l) cp.column.rows.push_back(src.label(l, node));
  cp.inclusion_proof = src.tree_c_proof(node);
  return cp;
}

}  // namespace

VanillaProof build_vanilla_proof(const StackedGraph& g, uint32_t layers, const VanillaProofSource& src,
                                 uint64_t challenge) {
  VanillaProof vp;
  vp.comm_d_proofs = src.tree_d_proof(challenge);
  vp.comm_r_last_proof = src.tree_r_proof(challenge);
  const auto parents = g.parents(challenge);
  auto& cols = vp.replica_column_proofs;
  cols.c_x = column_proof(src, layers, challenge);
  for (size_t i = 0; i < kBaseDegree; ++i) cols.drg_parents.push_back(column_proof(src, layers, parents[i]));
  for (size_t i = kBaseDegree; i < kDegree; ++i) cols.exp_parents.push_back(column_proof(src, layers, parents[i]));
  for (uint32_t layer = 1; layer <= layers; ++layer) {
    std::vector<gadgets::NodeBytes> distinct;
    for (size_t i = 0; i < kBaseDegree; ++i) distinct.push_back(src.label(layer, parents[i]));
    if (layer > 1) {
      for (size_t i = kBaseDegree; i < kDegree; ++i) distinct.push_back(src.label(layer - 1, parents[i]));
    }
    vp.labeling_proofs.push_back(LabelingProof{repeat_parents(distinct), layer, challenge});
  }
  vp.encoding_proof = vp.labeling_proofs.back();
  return vp;
}

std::vector<std::vector<VanillaProof>> build_vanilla_proofs(const RegisteredSealProof& proof, const StackedGraph& g,
                                                            const VanillaProofSource& src, const Bytes32& replica_id,
                                                            const Bytes32& comm_r, const Bytes32& seed) {
  std::vector<std::vector<VanillaProof>> out;
  for (uint32_t k = 0; k < proof.partitions; ++k) {
    const std::vector<uint64_t> challenges = porep_challenges(proof, replica_id, comm_r, seed, k);
    std::vector<VanillaProof> part(challenges.size());
    ThreadPool::global().parallel_for(
        challenges.size(), [&](size_t i) { part[i] = build_vanilla_proof(g, proof.shape.layers, src, challenges[i]); });
    out.push_back(std::move(part));
  }
  return out;
}

}  // namespace cuzk::filecoin
