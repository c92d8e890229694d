#include "filecoin/post_vanilla_gen.hpp"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/post_challenges.hpp"

namespace cuzk::filecoin {

namespace {

template <class Tree>
FallbackPostSectorProof proof_from_tree(const Tree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                        std::span<const uint64_t> challenges) {
  FallbackPostSectorProof p;
  p.sector_id = sector_id;
  PostSectorProof sp;
  sp.comm_c = comm_c;
  sp.comm_r_last = tree_r.root();
  for (uint64_t c : challenges) sp.inclusion_proofs.push_back(tree_r.prove(c));
  p.comm_r = comm_r_from(comm_c, sp.comm_r_last);
  p.sectors.push_back(std::move(sp));
  return p;
}

}  // namespace

FallbackPostSectorProof build_post_sector_proof(const DenseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges) {
  return proof_from_tree(tree_r, comm_c, sector_id, challenges);
}

FallbackPostSectorProof build_post_sector_proof(const SparseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges) {
  return proof_from_tree(tree_r, comm_c, sector_id, challenges);
}

FallbackPostSectorProof build_post_sector_proof(const RegisteredPostProof& proof, const DenseTree& tree_r,
                                                const Bytes32& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                uint64_t sector_index) {
  const std::vector<uint64_t> challenges = post_leaf_challenges(proof.api_version, randomness, sector_id, sector_index,
                                                                proof.challenge_count, proof.shape.nodes);
  return build_post_sector_proof(tree_r, comm_c, sector_id, challenges);
}

std::vector<PostSectorSlot> post_request_sectors(const PostVanillaRequest& req) {
  if (req.proof == nullptr) throw std::invalid_argument("PoSt vanilla: no registered proof");
  const RegisteredPostProof& proof = *req.proof;
  if (req.sector_ids.empty()) throw std::invalid_argument("sectors: at least one sector is needed");
  if (std::set<uint64_t>(req.sector_ids.begin(), req.sector_ids.end()).size() != req.sector_ids.size()) {
    throw std::invalid_argument("sectors: a sector id is listed twice");
  }
  if (proof.type == PostType::kWinning) {
    if (req.partition_index != 0) throw std::invalid_argument("partition_index: WinningPoSt has one partition");
    const uint64_t drawn = winning_post_sector_challenge(req.randomness, req.prover_id, 0, req.sector_ids.size());
    return {PostSectorSlot{req.sector_ids.at(drawn), 0}};
  }
  if (req.sector_ids.size() > proof.sector_count) {
    throw std::invalid_argument("sectors: " + std::to_string(req.sector_ids.size()) + " sectors, but a " +
                                std::string(proof.name) + " partition has at most " +
                                std::to_string(proof.sector_count));
  }
  std::vector<PostSectorSlot> out;
  const uint64_t first = uint64_t{req.partition_index} * proof.sector_count;
  for (size_t i = 0; i < req.sector_ids.size(); ++i) out.push_back(PostSectorSlot{req.sector_ids[i], first + i});
  return out;
}

PostRequestContext post_request_context(const PostVanillaRequest& req) {
  PostRequestContext ctx;
  ctx.proof = req.proof;
  ctx.prover_id = req.prover_id;
  ctx.randomness = req.randomness;
  ctx.partition_index = req.partition_index;
  return ctx;
}

}  // namespace cuzk::filecoin
