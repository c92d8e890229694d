#pragma once
// Filecoin's registered PoSt proofs (rust-filecoin-proofs-api src/registry.rs RegisteredPoStProof,
// numbered as Curio's Go `abi` enum sends them): 0-4 WinningPoSt V1, 5-9 WindowPoSt V1, 10-14
// WindowPoSt V1_1 (the proofs API's `..._V1_2`, ApiVersion 1.2.0: the grindability fix, which
// changes only how leaf challenges are indexed). Each with its PoStConfig (filecoin-proofs
// src/constants.rs, src/parameters.rs) and the FallbackPoSt circuit's shape that config gives.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

enum class PostType { kWinning, kWindow };

// filecoin-proofs constants.rs.
constexpr uint32_t kWindowPostChallengeCount = 10;
constexpr uint32_t kWinningPostChallengeCount = 66;
constexpr uint32_t kWinningPostSectorCount = 1;

struct RegisteredPostProof {
  uint64_t id;            // the Go abi enum value
  std::string_view name;  // e.g. "StackedDrgWindow32GiBV1_1" (the FFI's name for proofs-api V1_2)
  PostType type;
  ApiVersion api_version;  // V1_0_0, or V1_2_0 for the Window V1_1 proofs
  PorepShape shape;        // the sealed sector's shape: nodes and tree R's arities
  // The PoStConfig: challenges per sector and sectors per proof request (Window: per partition).
  uint32_t challenge_count;
  uint32_t sector_count;
  // The circuit's (FallbackPoSt PublicParams): Window as above; Winning 66 circuit sectors of one
  // challenge each (parameters.rs winning_post_setup_params).
  uint32_t circuit_challenges;
  uint32_t circuit_sectors;
};

std::span<const RegisteredPostProof> registered_post_proofs();
// Look-ups; both throw std::invalid_argument naming the known values when there is no match.
const RegisteredPostProof& registered_post_proof(std::string_view name);
const RegisteredPostProof& registered_post_proof(uint64_t id);
// The V1_1 Window proof (10-14) or the Winning proof (0-4) of a sector size.
const RegisteredPostProof& default_post_proof(PostType type, uint64_t sector_size);

// The identifier whose SHA-256 names the parameter files (storage-proofs-post
// src/fallback/vanilla.rs PublicParams::identifier) and the files' stem
// "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-<sha256 hex>".
std::string post_parameter_identifier(const RegisteredPostProof& proof);
std::string post_parameter_file_stem(const RegisteredPostProof& proof);
// The daemon's circuit id of a proof's circuit: "window-post:32GiB", "winning-post:2KiB" (the V1
// and V1_1 Window proofs share one circuit).
std::string post_circuit_id(const RegisteredPostProof& proof);

}  // namespace cuzk::filecoin
