#pragma once
// Filecoin's registered PoRep (seal) proofs: the enum of rust-filecoin-proofs-api
// (src/registry.rs RegisteredSealProof), each with its sector shape (filecoin-proofs
// src/constants.rs, src/parameters.rs), its porep_id, and the name of its Groth16 parameter files
// (storage-proofs-core src/parameter_cache.rs). Every sector size has one per-partition circuit,
// shared by all four proof versions, so the parameter file depends on the size only.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::filecoin {

using PorepId = std::array<uint8_t, 32>;

// How the PoRep challenges are chosen (storage-proofs-porep .../vanilla/challenges.rs).
enum class ChallengeMode {
  kInteractive,     // SHA-256 of replica_id, seed and the challenge index
  kSynthetic,       // a subset of 2^18 synthetic challenges picked by the seed
  kNonInteractive,  // SHA-256 of a tag, replica_id, comm_r and the index (no seed)
};

// The API version of a proof (rust-filecoin-proofs-api ApiVersion): V1_0_0, V1_1_0, V1_2_0.
// The graph code (bucket_graph, stacked_graph) names the versions it distinguishes with the
// constants below.
struct ApiVersion {
  unsigned major, minor, patch;
  friend bool operator==(const ApiVersion&, const ApiVersion&) = default;
  static const ApiVersion V1_0_0, V1_1_0, V1_2_0;
};
inline constexpr ApiVersion ApiVersion::V1_0_0{1, 0, 0};
inline constexpr ApiVersion ApiVersion::V1_1_0{1, 1, 0};
inline constexpr ApiVersion ApiVersion::V1_2_0{1, 2, 0};

// The shape of a sector's PoRep: sizes of the graph and the trees, and how many challenges.
struct PorepShape {
  uint64_t sector_size;       // bytes
  uint64_t nodes;             // sector_size / 32
  uint32_t layers;            // SDR layers (2 for the small sizes, 11 for 32/64 GiB)
  uint32_t base_arity;        // tree R and tree C: arity of the base trees (always 8)
  uint32_t sub_arity;         // 0 when there is no sub-tree level
  uint32_t top_arity;         // 0 when there is no top-tree level
  uint32_t drg_degree;        // BASE_DEGREE = 6 parents in the DRG
  uint32_t expansion_degree;  // EXP_DEGREE = 8 expander parents

  // Levels of the binary SHA-256 tree D: log2(nodes).
  uint32_t tree_d_levels() const;
  // Levels in the base part of a tree R/C path: log8 of the leaves of one base tree.
  uint32_t base_path_levels() const;
  // base + 1 if sub-tree + 1 if top-tree.
  uint32_t tree_rc_levels() const;
};

struct RegisteredSealProof {
  uint64_t id;            // the enum discriminant, which is also the porep_id's first 8 bytes
  std::string_view name;  // the serde name, e.g. "StackedDrg32GiBV1_1"
  ApiVersion api_version;
  ChallengeMode challenge_mode;
  PorepShape shape;
  uint32_t partitions;                // partitions of one sector's proof
  uint32_t minimum_challenges;        // challenges per sector the protocol requires
  uint32_t challenges_per_partition;  // ceil(minimum_challenges / partitions): 2 or 18

  // The variant of filecoin-proofs-api's VanillaSealProof that carries this proof's vanilla
  // proofs in a C1 output: always the V1 name of the size, e.g. "StackedDrg32GiBV1".
  std::string_view vanilla_proof_variant() const;
};

// Every production registered seal proof (ids 0..19), in id order.
std::span<const RegisteredSealProof> registered_seal_proofs();
// Look-ups; both throw std::invalid_argument naming the known values when there is no match.
const RegisteredSealProof& registered_seal_proof(std::string_view name);
const RegisteredSealProof& registered_seal_proof(uint64_t id);

// The binary units sector sizes are written in.
inline constexpr uint64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;
// A byte count with an optional binary unit: "2KiB", "8M", "32gib", "4096" (case-insensitive
// unit: KiB, Ki, K, MiB, Mi, M, GiB, Gi, G or B); std::nullopt when malformed.
std::optional<uint64_t> parse_byte_size(std::string_view text);
// "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (case-insensitive unit, optional "B"-less forms such as
// "32G"), or a byte count; throws std::invalid_argument unless a registered proof has that size.
uint64_t parse_sector_size(std::string_view text);
// "2KiB" ... "64GiB".
std::string sector_size_name(uint64_t bytes);
// The V1_1 proof of a sector size (the interactive PoRep that sealing uses today).
const RegisteredSealProof& default_seal_proof(uint64_t sector_size);

// porep_id = id (u64 LE) || nonce 0 (u64 LE) || 16 zero bytes (rust-filecoin-proofs-api
// src/registry.rs `porep_id`).
PorepId porep_id(const RegisteredSealProof& proof);

// The SHA-256 of a parameter identifier in lower-case hex: the tail of every v28 parameter file
// name (storage-proofs-core parameter_cache.rs parameter_cache_params_path).
std::string parameter_identifier_digest(const std::string& identifier);
// The identifier whose SHA-256 names the PoRep parameter files (storage-proofs-porep
// .../vanilla/params.rs PublicParams::identifier, a Rust Debug string).
std::string porep_parameter_identifier(const PorepShape& shape, uint32_t challenges_per_partition);
// "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-<sha256 hex>";
// append ".params", ".vk" or ".meta" for the files of filecoin's parameters.json.
std::string porep_parameter_file_stem(const RegisteredSealProof& proof);

}  // namespace cuzk::filecoin
