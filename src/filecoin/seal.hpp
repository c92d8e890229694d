#pragma once
// Sealing a sector natively, up to the C1 output (filecoin-proofs src/api/seal.rs
// seal_pre_commit_phase1/2 and seal_commit_phase1, storage-proofs-porep .../vanilla/proof.rs):
//   tree D   binary SHA-256 tree over the data nodes, comm_d = its root;
//   replica_id from prover_id, sector_id, ticket, comm_d and the porep_id;
//   labels   the SDR labels of every layer (generate_labels);
//   tree C   Poseidon tree (size's shape) over the column hashes, a column being a node's labels in
//            all layers, hashed with Poseidon of arity L;
//   tree R   Poseidon tree over the replica, replica node = last layer's label + data node in Fr;
//   comm_r = Poseidon2(comm_c, comm_r_last);
//   the vanilla proofs of every partition's challenges (vanilla_proof.hpp).
// The result is validated with validate_c1_output(verify_merkle_paths = true) before it is
// returned. Everything is in memory: about 7 x the sector size (labels, trees, data).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "filecoin/c1_output.hpp"
#include "filecoin/sector_tree.hpp"

namespace cuzk::filecoin {

struct SealParams {
  Bytes32 prover_id{};
  uint64_t sector_id = 0;
  Bytes32 ticket{};
  Bytes32 seed{};
  bool keep_tree_r = false;  // return tree R (PoSt vanilla proofs are built from it)
};

// Seconds per step.
struct SealTimings {
  double tree_d = 0, labels = 0, tree_c = 0, tree_r = 0, proofs = 0, validate = 0, total = 0;
};

struct SealResult {
  SealCommitPhase1Output c1;
  Bytes32 comm_c{}, comm_r_last{};
  std::shared_ptr<const DenseTree> tree_r;  // with SealParams::keep_tree_r
  SealTimings timings;
};

// Called with the step's name ("tree D", "labels", "tree C", "tree R", "proofs", "validate") and
// its progress (done, total) in the step's own units.
using SealProgress = std::function<void(std::string_view step, uint64_t done, uint64_t total)>;

// Throws std::invalid_argument unless `data` is nodes x 32 bytes and every node is a valid Fr32
// node (< 2^254, i.e. the top two bits of its last byte clear); the message names the first bad
// node.
void check_sector_data(std::span<const uint8_t> data, uint64_t nodes);

// nodes x 32 random bytes (Xoshiro256 from rng_seed) with the top two bits of every node cleared.
std::vector<uint8_t> random_sector_data(uint64_t nodes, uint64_t rng_seed);

// Seals `data` (check_sector_data) for `proof`; any registered seal proof, but the memory and time
// are only practical up to 512 MiB.
SealResult seal_sector(const RegisteredSealProof& proof, std::span<const uint8_t> data, const SealParams& params,
                       const SealProgress& progress = {});

}  // namespace cuzk::filecoin
