#include "filecoin/post_vanilla_gen.hpp"

#include <vector>

#include "filecoin/post_challenges.hpp"
#include "gadgets/poseidon_native.hpp"

namespace cuzk::filecoin {

FallbackPostSectorProof build_post_sector_proof(const DenseTree& tree_r, const Bytes32& comm_c, uint64_t sector_id,
                                                std::span<const uint64_t> challenges) {
  FallbackPostSectorProof p;
  p.sector_id = sector_id;
  PostSectorProof sp;
  sp.comm_c = comm_c;
  sp.comm_r_last = tree_r.root();
  for (uint64_t c : challenges) sp.inclusion_proofs.push_back(tree_r.prove(c));
  p.comm_r = to_bytes(gadgets::poseidon_hash(2, std::vector<Fr>{to_fr(comm_c), to_fr(sp.comm_r_last)}));
  p.sectors.push_back(std::move(sp));
  return p;
}

FallbackPostSectorProof build_post_sector_proof(const RegisteredPostProof& proof, const DenseTree& tree_r,
                                                const Bytes32& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                uint64_t sector_index) {
  const std::vector<uint64_t> challenges = post_leaf_challenges(proof.api_version, randomness, sector_id, sector_index,
                                                                proof.challenge_count, proof.shape.nodes);
  return build_post_sector_proof(tree_r, comm_c, sector_id, challenges);
}

}  // namespace cuzk::filecoin
