// PoSt vanilla proofs (bincode FallbackPoStSectorProof): the parser, then the validation against
// the WindowPoSt 32 GiB proof type the seed was made for (tests/vectors/post/README.md). Errors
// must be PostVanillaError; what parses must serialize back to the same bytes (the reader is strict).
#include <cstdlib>
#include <vector>

#include "filecoin/post_error.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/replica_id.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuzk::filecoin;
  FallbackPostSectorProof proof;
  try {
    proof = parse_post_sector_proof(cuzk::fuzz::bytes(data, size), 0);
  } catch (const PostVanillaError&) {
    return 0;
  }
  if (to_bincode(proof) != std::vector<uint8_t>(data, data + size)) std::abort();
  PostRequestContext ctx;
  ctx.proof = &registered_post_proof(8);  // StackedDrgWindow32GiBV1
  ctx.prover_id = prover_id_from_actor_id(1000);
  try {
    validate_post_vanilla(ctx, std::span<const FallbackPostSectorProof>(&proof, 1));
  } catch (const PostVanillaError&) {
  }
  return 0;
}
