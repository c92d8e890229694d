#include "filecoin/porep_public_inputs.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::filecoin {

size_t porep_num_public_inputs(const RegisteredSealProof& proof) {
  return 3 + kPublicInputsPerChallenge * proof.challenges_per_partition;
}

std::vector<Fr> porep_public_inputs(const Fr& replica_id, const Fr& comm_d, const Fr& comm_r,
                                    std::span<const PorepChallengeInputs> challenges) {
  std::vector<Fr> in;
  in.reserve(3 + kPublicInputsPerChallenge * challenges.size());
  in.push_back(replica_id);
  in.push_back(comm_d);
  in.push_back(comm_r);
  for (const auto& ch : challenges) {
    const Fr c = Fr::from_u64(ch.challenge);
    in.push_back(c);  // tree-D path
    for (uint32_t p : ch.drg_parents) in.push_back(Fr::from_u64(p));
    for (uint32_t p : ch.exp_parents) in.push_back(Fr::from_u64(p));
    in.push_back(c);  // the challenge as a packed UInt64
    in.push_back(c);  // tree-R path
    in.push_back(c);  // tree-C path of the challenged column
  }
  return in;
}

std::vector<PorepChallengeInputs> porep_challenge_inputs(const SealCommitPhase1Output& c1, uint32_t partition) {
  if (partition >= c1.vanilla_proofs.size()) {
    throw std::out_of_range("partition " + std::to_string(partition) + " out of range (the C1 output has " +
                            std::to_string(c1.vanilla_proofs.size()) + ")");
  }
  std::vector<PorepChallengeInputs> out;
  for (const auto& vp : c1.vanilla_proofs[partition]) {
    const auto& cols = vp.replica_column_proofs;
    if (cols.drg_parents.size() != 6 || cols.exp_parents.size() != 8) {
      throw std::invalid_argument("porep_challenge_inputs: the C1 output was not validated (parent column counts)");
    }
    PorepChallengeInputs ch;
    ch.challenge = vp.challenge();
    for (size_t i = 0; i < 6; ++i) ch.drg_parents[i] = cols.drg_parents[i].column.index;
    for (size_t i = 0; i < 8; ++i) ch.exp_parents[i] = cols.exp_parents[i].column.index;
    out.push_back(ch);
  }
  return out;
}

std::vector<Fr> porep_public_inputs(const SealCommitPhase1Output& c1, uint32_t partition) {
  const auto challenges = porep_challenge_inputs(c1, partition);
  return porep_public_inputs(to_fr(c1.replica_id), to_fr(c1.comm_d), to_fr(c1.comm_r), challenges);
}

}  // namespace cuzk::filecoin
