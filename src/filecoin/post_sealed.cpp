#include "filecoin/post_sealed.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/post_validate.hpp"
#include "filecoin/seal.hpp"

namespace cuzk::filecoin {

namespace {

// A sector sealed for `proof` (tree R kept) and its proof of the challenges at `sector_index`.
FallbackPostSectorProof seal_and_prove(const PostVanillaRequest& req, uint64_t sector_id, uint64_t sector_index) {
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

}  // namespace

std::vector<FallbackPostSectorProof> sealed_post_vanilla(const PostVanillaRequest& req) {
  if (req.proof != nullptr && req.proof->shape.nodes > (uint64_t{1} << 24)) {
    throw std::invalid_argument("sector size: " + sector_size_name(req.proof->shape.sector_size) +
                                " sectors are not sealed here (2KiB, 8MiB and 512MiB are; `cuzk synth-post` makes "
                                "synthetic vanilla proofs of any size)");
  }
  std::vector<FallbackPostSectorProof> out;
  for (const PostSectorSlot& s : post_request_sectors(req))
    out.push_back(seal_and_prove(req, s.sector_id, s.sector_index));
  validate_post_vanilla(post_request_context(req), out);
  return out;
}

}  // namespace cuzk::filecoin
