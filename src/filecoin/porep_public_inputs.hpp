#pragma once
// The public inputs of one PoRep partition circuit (storage-proofs-porep
// .../stacked/circuit/proof.rs `generate_public_inputs`, in the circuit's `alloc_input` order):
//   replica_id, comm_d, comm_r, then for each challenge c of the partition, in order:
//   c (tree-D path), d0..d5 (DRG parents' tree-C paths), e0..e7 (expander parents' tree-C paths),
//   c (the UInt64 challenge), c (tree-R path), c (the challenged column's tree-C path).
// Every path input is the multipacked index bits of a path of at most 31 bits, so it is one field
// element equal to the leaf index. Groth16's leading ONE is not included (bellperson's verifier
// takes the inputs without it), so a 2 KiB partition has 39 inputs and a 32 GiB one 327.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ff/bls12_381.hpp"
#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

struct PorepChallengeInputs {
  uint64_t challenge = 0;
  std::array<uint32_t, 6> drg_parents{};  // BASE_DEGREE
  std::array<uint32_t, 8> exp_parents{};  // EXP_DEGREE
};

constexpr size_t kPublicInputsPerChallenge = 18;

// 3 + 18 * challenges_per_partition.
size_t porep_num_public_inputs(const RegisteredSealProof& proof);

std::vector<Fr> porep_public_inputs(const Fr& replica_id, const Fr& comm_d, const Fr& comm_r,
                                    std::span<const PorepChallengeInputs> challenges);

// The challenges of `partition` with their parents, read from a validated C1 output: the challenge
// from the labeling proofs (validation checked it against the derivation from replica_id and the
// seed) and the parent nodes from the parent columns (validation checked each against its
// tree-C path). Throws std::out_of_range for a partition the output does not have.
std::vector<PorepChallengeInputs> porep_challenge_inputs(const SealCommitPhase1Output& c1, uint32_t partition);

std::vector<Fr> porep_public_inputs(const SealCommitPhase1Output& c1, uint32_t partition);

}  // namespace cuzk::filecoin
