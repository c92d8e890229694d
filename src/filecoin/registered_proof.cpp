#include "filecoin/registered_proof.hpp"

#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "gadgets/sha256_native.hpp"
#include "util/quote.hpp"

namespace cuzk::filecoin {
namespace {

// Shapes of the production sizes (filecoin-proofs src/constants.rs: SectorShape2KiB = 8-0-0,
// 8MiB = 8-0-0, 512MiB = 8-0-0, 32GiB = 8-8-0, 64GiB = 8-8-2; LAYERS: 2 for the small sizes,
// 11 for 32/64 GiB; BASE_DEGREE 6, EXP_DEGREE 8 from storage-proofs-porep stacked/vanilla/graph.rs).
constexpr PorepShape shape(uint64_t bytes, uint32_t layers, uint32_t sub, uint32_t top) {
  return PorepShape{bytes, bytes / 32, layers, 8, sub, top, 6, 8};
}
constexpr PorepShape k2KiB = shape(2 * kKiB, 2, 0, 0);
constexpr PorepShape k8MiB = shape(8 * kMiB, 2, 0, 0);
constexpr PorepShape k512MiB = shape(512 * kMiB, 2, 0, 0);
constexpr PorepShape k32GiB = shape(32 * kGiB, 11, 8, 0);
constexpr PorepShape k64GiB = shape(64 * kGiB, 11, 8, 2);

constexpr uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

// Interactive (V1, V1_1, synthetic): POREP_PARTITIONS 1/1/1/10/10 and POREP_MINIMUM_CHALLENGES
// 2/2/2/176/176. Non-interactive (V1_2_Feat_NonInteractivePoRep): 13 partitions of 2 challenges for
// the small sizes, 126 partitions and 2253 challenges for 32/64 GiB (filecoin-proofs
// src/constants.rs and src/parameters.rs; reference notes §1.1).
constexpr RegisteredSealProof make(uint64_t id, std::string_view name, ApiVersion v, ChallengeMode mode,
                                   const PorepShape& s) {
  const bool big = s.layers == 11;
  uint32_t partitions, minimum;
  if (mode == ChallengeMode::kNonInteractive) {
    partitions = big ? 126 : 13;
    minimum = big ? 2253 : 26;
  } else {
    partitions = big ? 10 : 1;
    minimum = big ? 176 : 2;
  }
  return RegisteredSealProof{id, name, v, mode, s, partitions, minimum, ceil_div(minimum, partitions)};
}

constexpr ApiVersion kV100 = ApiVersion::V1_0_0, kV110 = ApiVersion::V1_1_0, kV120 = ApiVersion::V1_2_0;
constexpr auto kI = ChallengeMode::kInteractive;
constexpr auto kS = ChallengeMode::kSynthetic;
constexpr auto kN = ChallengeMode::kNonInteractive;

// rust-filecoin-proofs-api src/registry.rs: discriminants 0..19 in this order, and `version()`.
constexpr std::array<RegisteredSealProof, 20> kSealProofs = {
    make(0, "StackedDrg2KiBV1", kV100, kI, k2KiB),
    make(1, "StackedDrg8MiBV1", kV100, kI, k8MiB),
    make(2, "StackedDrg512MiBV1", kV100, kI, k512MiB),
    make(3, "StackedDrg32GiBV1", kV100, kI, k32GiB),
    make(4, "StackedDrg64GiBV1", kV100, kI, k64GiB),
    make(5, "StackedDrg2KiBV1_1", kV110, kI, k2KiB),
    make(6, "StackedDrg8MiBV1_1", kV110, kI, k8MiB),
    make(7, "StackedDrg512MiBV1_1", kV110, kI, k512MiB),
    make(8, "StackedDrg32GiBV1_1", kV110, kI, k32GiB),
    make(9, "StackedDrg64GiBV1_1", kV110, kI, k64GiB),
    make(10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", kV120, kS, k2KiB),
    make(11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", kV120, kS, k8MiB),
    make(12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", kV120, kS, k512MiB),
    make(13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", kV120, kS, k32GiB),
    make(14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", kV120, kS, k64GiB),
    make(15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", kV120, kN, k2KiB),
    make(16, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", kV120, kN, k8MiB),
    make(17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", kV120, kN, k512MiB),
    make(18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", kV120, kN, k32GiB),
    make(19, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", kV120, kN, k64GiB),
};

std::string known_seal_proof_names() {
  std::string s;
  for (const auto& p : kSealProofs) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

uint32_t log_base(uint64_t n, uint32_t arity) {
  // n is a power of arity for every shape above; count the divisions.
  uint32_t levels = 0;
  while (n > 1) {
    n /= arity;
    ++levels;
  }
  return levels;
}

}  // namespace

uint32_t PorepShape::tree_d_levels() const {
  return static_cast<uint32_t>(std::countr_zero(nodes));
}

uint32_t PorepShape::base_path_levels() const {
  uint64_t leaves = nodes;
  if (top_arity > 0) leaves /= top_arity;
  if (sub_arity > 0) leaves /= sub_arity;
  return log_base(leaves, base_arity);
}

uint32_t PorepShape::tree_rc_levels() const {
  return base_path_levels() + (sub_arity > 0 ? 1 : 0) + (top_arity > 0 ? 1 : 0);
}

std::string_view RegisteredSealProof::vanilla_proof_variant() const {
  // rust-filecoin-proofs-api src/types.rs VanillaSealProof: one variant per size, named for V1.
  switch (shape.sector_size) {
    case 2 * kKiB:
      return "StackedDrg2KiBV1";
    case 8 * kMiB:
      return "StackedDrg8MiBV1";
    case 512 * kMiB:
      return "StackedDrg512MiBV1";
    case 32 * kGiB:
      return "StackedDrg32GiBV1";
    case 64 * kGiB:
      return "StackedDrg64GiBV1";
    default:
      throw std::logic_error("vanilla_proof_variant: unknown sector size");
  }
}

std::span<const RegisteredSealProof> registered_seal_proofs() {
  return kSealProofs;
}

const RegisteredSealProof& registered_seal_proof(std::string_view name) {
  for (const auto& p : kSealProofs) {
    if (p.name == name) return p;
  }
  throw std::invalid_argument("unknown registered seal proof " + short_quote(name) +
                              " (known: " + known_seal_proof_names() + ")");
}

const RegisteredSealProof& registered_seal_proof(uint64_t id) {
  if (id >= kSealProofs.size()) {
    throw std::invalid_argument("unknown registered seal proof id " + std::to_string(id) + " (known: 0.." +
                                std::to_string(kSealProofs.size() - 1) + ")");
  }
  return kSealProofs[id];
}

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  uint64_t n = std::stoull(std::string(text.substr(0, digits)));
  std::string unit;
  for (char c : text.substr(digits)) unit += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  unsigned shift = 0;
  if (unit == "kib" || unit == "ki" || unit == "k") {
    shift = 10;
  } else if (unit == "mib" || unit == "mi" || unit == "m") {
    shift = 20;
  } else if (unit == "gib" || unit == "gi" || unit == "g") {
    shift = 30;
  } else if (!unit.empty() && unit != "b") {
    return std::nullopt;
  }
  if (n > (~uint64_t{0} >> shift)) return std::nullopt;  // would wrap (and could land on a valid size)
  return n << shift;
}

uint64_t parse_sector_size(std::string_view text) {
  const std::optional<uint64_t> n = parse_byte_size(text);
  if (n) {
    for (const RegisteredSealProof& p : kSealProofs) {
      if (p.shape.sector_size == *n) return *n;
    }
  }
  throw std::invalid_argument("sector size " + short_quote(text) +
                              ": expected 2KiB, 8MiB, 512MiB, 32GiB or 64GiB (or the size in bytes)");
}

std::string sector_size_name(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes >= (uint64_t{1} << 10) && bytes % (uint64_t{1} << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

const RegisteredSealProof& default_seal_proof(uint64_t sector_size) {
  return registered_seal_proof("StackedDrg" + sector_size_name(sector_size) + "V1_1");
}

PorepId porep_id(const RegisteredSealProof& proof) {
  PorepId id{};
  for (int i = 0; i < 8; ++i) id[i] = static_cast<uint8_t>(proof.id >> (8 * i));
  // Bytes 8..15 hold the nonce, which is 0 for every registered proof; 16..31 are zero.
  return id;
}

std::string porep_parameter_identifier(const PorepShape& s, uint32_t challenges_per_partition) {
  // The Debug form of PublicParams, spaces and separators exactly as Rust prints them; the test
  // checks its SHA-256 against the hashes in filecoin-proofs' parameters.json.
  return "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: " +
         std::to_string(s.expansion_degree) + " base_graph: drgraph::BucketGraph{size: " + std::to_string(s.nodes) +
         "; degree: " + std::to_string(s.drg_degree) + "; hasher: poseidon_hasher} }, challenges: LayerChallenges { " +
         "layers: " + std::to_string(s.layers) + ", max_count: " + std::to_string(challenges_per_partition) +
         " }, tree: merkletree-poseidon_hasher-" + std::to_string(s.base_arity) + "-" + std::to_string(s.sub_arity) +
         "-" + std::to_string(s.top_arity) + " }";
}

std::string parameter_identifier_digest(const std::string& identifier) {
  const auto digest = gadgets::sha256_native(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(identifier.data()), identifier.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

std::string porep_parameter_file_stem(const RegisteredSealProof& proof) {
  const std::string ident = porep_parameter_identifier(proof.shape, proof.challenges_per_partition);
  const std::string hex = parameter_identifier_digest(ident);
  const auto& s = proof.shape;
  return "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-" + std::to_string(s.base_arity) + "-" +
         std::to_string(s.sub_arity) + "-" + std::to_string(s.top_arity) + "-sha256_hasher-" + hex;
}

}  // namespace cuzk::filecoin
