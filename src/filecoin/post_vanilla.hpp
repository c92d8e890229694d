#pragma once
// The vanilla proof of one sector for WindowPoSt / WinningPoSt, as Curio sends it in a request's
// `vanilla_proofs`: filecoin-proofs src/types/mod.rs FallbackPoStSectorProof, serialized with
// bincode 1.x (bincode.hpp; curio lib/proof/post_vproof_bin_decode.go reads the same layout):
//
//   sector_id u64 | comm_r [32] | vanilla_proof: sectors: u64 n, then n SectorProof
//   SectorProof (storage-proofs-post src/fallback/vanilla.rs):
//     inclusion_proofs: u64 n, then n MerkleProof | comm_c [32] | comm_r_last [32]
//   MerkleProof (storage-proofs-core src/merkle/proof.rs): ProofData, a u32 variant index:
//     0 Single { root, leaf, path }   1 Sub { base_proof, sub_proof, root, leaf }
//     2 Top { base_proof, sub_proof, top_proof, root, leaf }
//   InclusionPath: u64 n, then n PathElement { hashes: u64 m, m x [32]; index: u64 }
//
// Parsing checks the encoding only; post_validate.hpp checks the contents against the proof type,
// the randomness and the prover.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

// vanilla.rs SectorProof: the challenges' tree-R inclusion proofs and the sector's commitments.
struct PostSectorProof {
  std::vector<MerkleProof> inclusion_proofs;
  Bytes32 comm_c{};
  Bytes32 comm_r_last{};
};

struct FallbackPostSectorProof {
  uint64_t sector_id = 0;
  Bytes32 comm_r{};
  std::vector<PostSectorProof> sectors;  // vanilla_proof.sectors: one for a single sector's proof
};

// Throws PostVanillaError (post_error.hpp) naming `index` (the proof's position in the request),
// the sector once read, and the field: truncated input, a sequence longer than the bytes left, an
// unknown MerkleProof variant, or bytes after the end.
FallbackPostSectorProof parse_post_sector_proof(std::span<const uint8_t> bytes, size_t index);

// The bincode bytes the reference writes (round trips with the parser).
std::vector<uint8_t> to_bincode(const FallbackPostSectorProof& proof);

}  // namespace cuzk::filecoin
