#include "filecoin/post_synthetic.hpp"

#include <unordered_map>

#include "filecoin/post_challenges.hpp"
#include "filecoin/sector_tree.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Every value of a sector comes from its own stream keyed by its place, so the content does not
// depend on the order (or the threads) it is made in.
struct SectorContent {
  uint64_t key;

  Bytes32 node(size_t level, uint64_t index) const {
    Xoshiro256 rng(splitmix(splitmix(key + level) ^ index));
    return random_fr_bytes(rng);
  }
  Bytes32 comm_c() const {
    Xoshiro256 rng(splitmix(key ^ 0xc0aac0aac0aac0aaULL));
    return random_fr_bytes(rng);
  }
};

}  // namespace

FallbackPostSectorProof synthetic_post_sector_proof(const RegisteredPostProof& proof, uint64_t sector_id,
                                                    const Bytes32& randomness, uint64_t sector_index,
                                                    uint64_t rng_seed) {
  const std::vector<uint64_t> challenges = post_leaf_challenges(proof.api_version, randomness, sector_id, sector_index,
                                                                proof.challenge_count, proof.shape.nodes);
  const SectorContent content{splitmix(rng_seed) ^ splitmix(~sector_id)};
  const SparseTree::Fill fill = [&content](size_t level, uint64_t index) { return content.node(level, index); };
  std::unordered_map<uint64_t, Bytes32> leaves;
  for (uint64_t c : challenges) leaves.emplace(c, fill(0, c));
  const SparseTree tree_r(tree_rc_layout(proof.shape), leaves, fill);
  return build_post_sector_proof(tree_r, content.comm_c(), sector_id, challenges);
}

std::vector<FallbackPostSectorProof> synthetic_post_vanilla(const PostVanillaRequest& req) {
  const std::vector<PostSectorSlot> slots = post_request_sectors(req);
  std::vector<FallbackPostSectorProof> out(slots.size());
  ThreadPool::global().parallel_for(slots.size(), [&](size_t i) {
    out[i] = synthetic_post_sector_proof(*req.proof, slots[i].sector_id, req.randomness, slots[i].sector_index,
                                         req.rng_seed);
  });
  return out;
}

Bytes32 synthetic_post_randomness(uint64_t rng_seed) {
  Xoshiro256 rng(splitmix(rng_seed ^ 0x7a9d0f5e3b1c2d4eULL));
  return random_fr_bytes(rng);
}

}  // namespace cuzk::filecoin
