#pragma once
// Client-side verification of the daemon's answers: the circuit's verifying key is fetched once
// (GetVerifyingKey), parsed and prepared; each answer's proofs (192 bytes per partition) are checked
// against the public inputs the daemon returned, all partitions in one batch (one final
// exponentiation), and one by one only to name the bad partition when the batch fails.
#include <string>
#include <string_view>
#include <vector>

#include "client.hpp"
#include "groth16/verifier.hpp"
#include "util/result.hpp"

namespace cuzk::bench {

struct CheckOutcome {
  bool valid = false;
  std::string detail;  // why not (empty when valid)
  double ms = 0;       // time spent verifying
};

class ProofChecker {
 public:
  // GetVerifyingKey(circuit_id), parse_vk, prepare. The error says what to do (e.g. --no-verify
  // against a daemon without the extension).
  static Result<ProofChecker> fetch(Client& client, const std::string& circuit_id);

  size_t num_public_inputs() const { return pvk_.num_public_inputs(); }

  // `proof`: K * 192 bytes; `public_inputs`: K entries of 32-byte little-endian values. Never
  // throws; thread-safe (the prepared key is read-only).
  CheckOutcome check(std::string_view proof, const std::vector<std::string>& public_inputs,
                     uint32_t expected_partitions) const;

 private:
  explicit ProofChecker(groth16::PreparedVerifyingKey pvk) : pvk_(std::move(pvk)) {}
  groth16::PreparedVerifyingKey pvk_;
};

}  // namespace cuzk::bench
