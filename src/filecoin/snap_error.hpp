#pragma once
// The error every SnapDeals vanilla-proof problem is reported with: which of the request's
// `vanilla_proofs` (one PartitionProof per partition, so its position is the partition), the
// field inside it (`challenge_proofs[3].proof_r_old.data.Sub.base_proof.path[2].hashes[5]`,
// serde's names), and what is wrong.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace cuzk::filecoin {

class SnapVanillaError : public std::runtime_error {
 public:
  SnapVanillaError(size_t partition, std::string field, std::string problem)
      : std::runtime_error(describe(partition, field, problem)),
        partition_(partition),
        field_(std::move(field)),
        problem_(std::move(problem)) {}
  size_t partition() const { return partition_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string describe(size_t partition, const std::string& field, const std::string& problem) {
    std::string s = "vanilla_proofs[" + std::to_string(partition) + "] (partition " + std::to_string(partition) + ")";
    if (!field.empty()) s += ": " + field;
    return s + ": " + problem;
  }
  size_t partition_;
  std::string field_;
  std::string problem_;
};

}  // namespace cuzk::filecoin
