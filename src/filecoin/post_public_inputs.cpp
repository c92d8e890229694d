#include "filecoin/post_public_inputs.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/post_challenges.hpp"

namespace cuzk::filecoin {

std::vector<Fr> post_public_inputs(const PostCircuitShape& shape, const ApiVersion& api, const Bytes32& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition_index) {
  shape.validate();
  if (sectors.empty() || sectors.size() > shape.sectors) {
    throw std::invalid_argument("PoSt public inputs: " + std::to_string(sectors.size()) +
                                " sectors for a partition of " + std::to_string(shape.sectors));
  }
  const size_t per_sector = 1 + size_t{shape.challenges};
  std::vector<Fr> in;
  in.reserve(shape.sectors * per_sector);
  for (size_t i = 0; i < sectors.size(); ++i) {
    in.push_back(to_fr(sectors[i].comm_r));
    const uint64_t sector_index = uint64_t{partition_index} * shape.sectors + i;
    for (uint64_t leaf :
         post_leaf_challenges(api, randomness, sectors[i].sector_id, sector_index, shape.challenges, shape.nodes)) {
      in.push_back(Fr::from_u64(leaf));  // por.rs: the path bits, packed, spell the leaf index
    }
  }
  // compound.rs: "duplicate last one if too little sectors available".
  const std::vector<Fr> last(in.end() - static_cast<std::ptrdiff_t>(per_sector), in.end());
  while (in.size() < shape.sectors * per_sector) in.insert(in.end(), last.begin(), last.end());
  return in;
}

std::vector<Fr> post_public_inputs(const RegisteredPostProof& proof, const Bytes32& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition_index) {
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  if (proof.type == PostType::kWindow) {
    return post_public_inputs(shape, proof.api_version, randomness, sectors, partition_index);
  }
  if (sectors.size() != kWinningPostSectorCount || partition_index != 0) {
    throw std::invalid_argument("WinningPoSt public inputs: one sector in partition 0, got " +
                                std::to_string(sectors.size()) + " sectors in partition " +
                                std::to_string(partition_index));
  }
  const std::vector<PostPublicSector> listed(shape.sectors, sectors.front());
  return post_public_inputs(shape, proof.api_version, randomness, listed, 0);
}

std::vector<PostPublicSector> post_public_sectors(std::span<const FallbackPostSectorProof> proofs) {
  std::vector<PostPublicSector> out;
  out.reserve(proofs.size());
  for (const FallbackPostSectorProof& p : proofs) out.push_back({p.sector_id, p.comm_r});
  return out;
}

}  // namespace cuzk::filecoin
