#pragma once
// The error every PoSt vanilla-proof problem is reported with: which of the request's
// `vanilla_proofs` (its position, and the sector number once known), the field inside it
// (`vanilla_proof.sectors[0].inclusion_proofs[3].data.Sub.base_proof.path[2].hashes[5]`, serde's
// names), and what is wrong.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace cuzk::filecoin {

class PostVanillaError : public std::runtime_error {
 public:
  PostVanillaError(size_t index, std::optional<uint64_t> sector_id, std::string field, std::string problem)
      : std::runtime_error(describe(index, sector_id, field, problem)),
        index_(index),
        sector_id_(sector_id),
        field_(std::move(field)),
        problem_(std::move(problem)) {}
  size_t index() const { return index_; }
  const std::optional<uint64_t>& sector_id() const { return sector_id_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string describe(size_t index, std::optional<uint64_t> id, const std::string& field,
                              const std::string& problem) {
    std::string s = "vanilla_proofs[" + std::to_string(index) + "]";
    if (id) s += " (sector " + std::to_string(*id) + ")";
    if (!field.empty()) s += ": " + field;
    return s + ": " + problem;
  }
  size_t index_;
  std::optional<uint64_t> sector_id_;
  std::string field_;
  std::string problem_;
};

}  // namespace cuzk::filecoin
