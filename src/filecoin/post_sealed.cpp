#include "filecoin/post_sealed.hpp"

#include <set>
#include <stdexcept>
#include <string>

#include "filecoin/post_challenges.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/post_vanilla_gen.hpp"
#include "filecoin/seal.hpp"

namespace cuzk::filecoin {

namespace {

// A sector sealed for `proof` (tree R kept) and its proof of the challenges at `sector_index`.
FallbackPostSectorProof seal_and_prove(const SealedPostRequest& req, uint64_t sector_id, uint64_t sector_index) {
  const RegisteredPostProof& proof = *req.proof;
  const RegisteredSealProof& seal = default_seal_proof(proof.shape.sector_size);
  SealParams sp;
  sp.prover_id = req.prover_id;
  sp.sector_id = sector_id;
  sp.ticket.fill(1);
  sp.seed.fill(2);
  sp.keep_tree_r = true;
  const SealResult sealed = seal_sector(seal, random_sector_data(seal.shape.nodes, req.rng_seed + sector_id), sp);
  return build_post_sector_proof(proof, *sealed.tree_r, sealed.comm_c, sector_id, req.randomness, sector_index);
}

void check_request(const SealedPostRequest& req) {
  if (req.proof == nullptr) throw std::invalid_argument("PoSt vanilla: no registered proof");
  if (req.proof->shape.nodes > (uint64_t{1} << 24)) {
    throw std::invalid_argument("sector size: " + sector_size_name(req.proof->shape.sector_size) +
                                " sectors are not sealed here (2KiB, 8MiB and 512MiB are)");
  }
  if (req.sector_ids.empty()) throw std::invalid_argument("sectors: at least one sector is needed");
  if (std::set<uint64_t>(req.sector_ids.begin(), req.sector_ids.end()).size() != req.sector_ids.size()) {
    throw std::invalid_argument("sectors: a sector id is listed twice");
  }
  if (req.proof->type == PostType::kWindow && req.sector_ids.size() > req.proof->sector_count) {
    throw std::invalid_argument("sectors: " + std::to_string(req.sector_ids.size()) + " sectors, but a " +
                                std::string(req.proof->name) + " partition has at most " +
                                std::to_string(req.proof->sector_count));
  }
  if (req.proof->type == PostType::kWinning && req.partition_index != 0) {
    throw std::invalid_argument("partition_index: WinningPoSt has one partition");
  }
}

}  // namespace

std::vector<FallbackPostSectorProof> sealed_post_vanilla(const SealedPostRequest& req) {
  check_request(req);
  std::vector<FallbackPostSectorProof> out;
  if (req.proof->type == PostType::kWinning) {
    // filecoin-proofs winning_post.rs: the one challenged sector of the set, challenged as sector 0.
    const uint64_t drawn = winning_post_sector_challenge(req.randomness, req.prover_id, 0, req.sector_ids.size());
    out.push_back(seal_and_prove(req, req.sector_ids.at(drawn), 0));
  } else {
    const uint64_t first = uint64_t{req.partition_index} * req.proof->sector_count;
    for (size_t i = 0; i < req.sector_ids.size(); ++i) out.push_back(seal_and_prove(req, req.sector_ids[i], first + i));
  }
  PostRequestContext ctx;
  ctx.proof = req.proof;
  ctx.prover_id = req.prover_id;
  ctx.randomness = req.randomness;
  ctx.partition_index = req.partition_index;
  validate_post_vanilla(ctx, out);
  return out;
}

}  // namespace cuzk::filecoin
