#pragma once
// The public inputs of one FallbackPoSt partition circuit, as a verifier computes them
// (storage-proofs-post src/fallback/compound.rs generate_public_inputs), in the circuit's
// alloc_input order: for each circuit sector, comm_r, then each challenge's packed path bits
// (one field element: the challenged leaf, recomputed from the randomness and the sector id,
// post_challenges.hpp). A partition with fewer sectors than the circuit repeats the last sector's
// inputs. Groth16's leading ONE is not included (groth16::verify takes the inputs without it), so
// a 32 GiB WindowPoSt partition has 25,839 inputs and a WinningPoSt one 132.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"

namespace cuzk::filecoin {

// vanilla.rs PublicSector.
struct PostPublicSector {
  uint64_t sector_id = 0;
  Bytes32 comm_r{};
};

// compound.rs exactly: `sectors` is the partition's chunk of the verifier's sector list (1 up to
// shape.sectors entries); a sector's index in the whole list, partition_index * shape.sectors + i,
// picks its challenges under ApiVersion 1.0 / 1.1.
std::vector<Fr> post_public_inputs(const PostCircuitShape& shape, const ApiVersion& api, const Bytes32& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition_index);

// For a registered proof, with the sectors of one request: WindowPoSt, the partition's sectors;
// WinningPoSt, the one winning sector, listed 66 times as filecoin-proofs winning_post.rs
// verify_winning_post lists it (so circuit sector i is challenged with index i).
std::vector<Fr> post_public_inputs(const RegisteredPostProof& proof, const Bytes32& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition_index);

// The sectors (id, comm_r) of parsed vanilla proofs, in order.
std::vector<PostPublicSector> post_public_sectors(std::span<const FallbackPostSectorProof> proofs);

}  // namespace cuzk::filecoin
