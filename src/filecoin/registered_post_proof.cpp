#include "filecoin/registered_post_proof.hpp"

#include <array>
#include <stdexcept>

#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {
namespace {

constexpr std::array<uint64_t, 5> kPostSectorSizes = {uint64_t{2} << 10, uint64_t{8} << 20, uint64_t{512} << 20,
                                                      uint64_t{32} << 30, uint64_t{64} << 30};
constexpr std::array<const char*, 5> kPostSizeNames = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
// filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT: one partition's sectors, chosen so that
// the 32/64 GiB circuits fit 2^27 constraints (125,279,217 and 129,887,900).
constexpr std::array<uint32_t, 5> kWindowSectors = {2, 2, 2, 2349, 2300};

// Built once: the names must outlive the table (string_view).
struct Table {
  std::array<std::string, 15> names;
  std::array<RegisteredPostProof, 15> proofs;

  Table() {
    for (size_t s = 0; s < kPostSectorSizes.size(); ++s) {
      const PorepShape shape = default_seal_proof(kPostSectorSizes[s]).shape;
      names[s] = std::string("StackedDrgWinning") + kPostSizeNames[s] + "V1";
      names[5 + s] = std::string("StackedDrgWindow") + kPostSizeNames[s] + "V1";
      names[10 + s] = std::string("StackedDrgWindow") + kPostSizeNames[s] + "V1_1";
      proofs[s] = {s,
                   names[s],
                   PostType::kWinning,
                   ApiVersion::V1_0_0,
                   shape,
                   kWinningPostChallengeCount,
                   kWinningPostSectorCount,
                   kWinningPostChallengeCount / kWinningPostChallengeCount,
                   kWinningPostChallengeCount / kWinningPostSectorCount};
      for (size_t v = 0; v < 2; ++v) {
        const size_t id = 5 + 5 * v + s;
        proofs[id] = {id,
                      names[id],
                      PostType::kWindow,
                      v == 0 ? ApiVersion::V1_0_0 : ApiVersion::V1_2_0,
                      shape,
                      kWindowPostChallengeCount,
                      kWindowSectors[s],
                      kWindowPostChallengeCount,
                      kWindowSectors[s]};
      }
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

std::string known_post_proof_names() {
  std::string s;
  for (const RegisteredPostProof& p : table().proofs) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

}  // namespace

std::span<const RegisteredPostProof> registered_post_proofs() {
  return table().proofs;
}

const RegisteredPostProof& registered_post_proof(std::string_view name) {
  for (const RegisteredPostProof& p : table().proofs) {
    if (p.name == name) return p;
  }
  throw std::invalid_argument("unknown registered PoSt proof \"" + std::string(name) +
                              "\" (known: " + known_post_proof_names() + ")");
}

const RegisteredPostProof& registered_post_proof(uint64_t id) {
  if (id >= table().proofs.size()) {
    throw std::invalid_argument("unknown registered PoSt proof id " + std::to_string(id) +
                                " (known: 0-14: " + known_post_proof_names() + ")");
  }
  return table().proofs[id];
}

const RegisteredPostProof& default_post_proof(PostType type, uint64_t sector_size) {
  for (size_t s = 0; s < kPostSectorSizes.size(); ++s) {
    if (kPostSectorSizes[s] == sector_size) return table().proofs[type == PostType::kWinning ? s : 10 + s];
  }
  throw std::invalid_argument("no PoSt proof for sector size " + std::to_string(sector_size));
}

std::string post_parameter_identifier(const RegisteredPostProof& proof) {
  return "FallbackPoSt::PublicParams{sector_size: " + std::to_string(proof.shape.sector_size) +
         ", challenge_count: " + std::to_string(proof.circuit_challenges) +
         ", sector_count: " + std::to_string(proof.circuit_sectors) + "}";
}

std::string post_parameter_file_stem(const RegisteredPostProof& proof) {
  const std::string ident = post_parameter_identifier(proof);
  const std::string hex = parameter_identifier_digest(ident);
  const PorepShape& s = proof.shape;
  return "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-" + std::to_string(s.base_arity) + "-" +
         std::to_string(s.sub_arity) + "-" + std::to_string(s.top_arity) + "-" + hex;
}

std::string post_circuit_id(const RegisteredPostProof& proof) {
  return std::string(proof.type == PostType::kWindow ? "window-post:" : "winning-post:") +
         sector_size_name(proof.shape.sector_size);
}

}  // namespace cuzk::filecoin
