#pragma once
// The SnapDeals (EmptySectorUpdate) circuit of one partition (storage-proofs-update
// src/circuit.rs, gadgets.rs, constants.rs; filecoin-circuits.md 7.2), over any ConstraintSystem,
// in the reference's allocation and constraint order:
//
//   k_and_h_select (aux, input), its partition_bits + 6 bits and their decomposition, the
//   partition packed; comm_r_old, comm_d_new, comm_r_new (aux, input each);
//   phi = Poseidon2_Custom(1)(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new, the apex
//   leaves, the partition path (aux); comm_r_old/new == Poseidon2(comm_c, root_r_old/new);
//   the apex tree (apex_leaves − 1 SHA-256 hash2) and its PoR up to comm_d_new;
//   gen_challenge_bits (per digest: its index, Poseidon2_Custom(1)(comm_r_new, index), 255 bits);
//   per challenge: c_high (h selected by h_select), rho = Poseidon2_Custom(1)(phi, c_high),
//   leaf_r_old, leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new·rho, the tree-R PoRs of the old
//   and new leaves (no challenge input), the apex leaf selected by the challenge's bits, the
//   SHA-256 PoR from leaf_d_new up to it.
//
// The second shape, SnapTreeD::kPoseidon (storage-proofs-update src/poseidon/circuit.rs, tree D
// Poseidon with tree R's shape, one partition), replaces k_and_h_select by h_select, has no apex
// tree, and proves tree D like tree R. The public API does not use it (filecoin-circuits.md 5.4).
//
// Public inputs (ONE excluded): k_and_h_select (h_select), comm_r_old, comm_d_new, comm_r_new.
// The circuit itself is defined in snap_circuit_impl.hpp and instantiated once per constraint
// system in snap_circuit_instances.cpp (~13 CPU-s of compile each); users only link it.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/domain.hpp"
#include "gadgets/merkle_tree.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/test_cs.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

enum class SnapTreeD : uint8_t { kSha256, kPoseidon };

// What fixes the circuit: the sector's nodes and constants.rs's functions of them.
struct SnapCircuitShape {
  uint64_t nodes = 0;  // sector size / 32
  SnapTreeD tree_d = SnapTreeD::kSha256;
  uint32_t partitions = 0;       // partition_count: 1, 2, 4 or 16 (Poseidon tree D: 1)
  uint32_t challenges = 0;       // per partition: 10 or 86 (Poseidon: times partition_count)
  uint32_t apex_leaves = 0;      // apex_leaf_count: 8 or 128 (Poseidon: none)
  std::array<uint32_t, 6> hs{};  // the allowed h (high bits of a challenge that select rho)
  gadgets::MerkleShape tree_r;   // validate_tree_r_shape

  // The circuit of a sector size in bytes (constants.rs ALLOWED_SECTOR_SIZES: 1, 2, 4, 8, 16,
  // 32 KiB, 8 MiB, 16 MiB, 512 MiB, 32 GiB, 64 GiB); throws std::invalid_argument naming them.
  static SnapCircuitShape of(uint64_t sector_size, SnapTreeD tree_d = SnapTreeD::kSha256);

  void validate() const;                              // throws std::invalid_argument naming the field
  uint32_t challenge_bits() const;                    // log2(nodes)
  uint32_t partition_bits() const;                    // log2(partitions)
  uint32_t apex_bits() const;                         // log2(apex_leaves), 0 without an apex tree
  uint32_t random_bits() const;                       // generated bits per challenge: challenge_bits − partition_bits
  uint32_t digests() const;                           // gen_challenge_bits digests per partition
  uint32_t tree_d_levels() const;                     // levels of each challenge's tree-D PoR
  size_t tree_r_levels() const;                       // base levels, then sub and top when present
  uint32_t h_default() const { return hs[3]; }        // constants.rs h_default
  static constexpr size_t num_inputs() { return 5; }  // ONE included
  std::string describe() const;
};

// The sector sizes the reference allows, in bytes, ascending.
std::span<const uint64_t> snap_sector_sizes();
// "1KiB" ... "64GiB" or a byte count; throws std::invalid_argument naming the allowed sizes.
uint64_t parse_snap_sector_size(std::string_view text);

// Siblings per level, leaf level first.
using SnapPath = std::vector<std::vector<std::optional<Fr>>>;

// One challenge's Merkle proofs (circuit.rs ChallengeProof). path_r_old / path_r_new have tree
// R's levels (base, then sub, then top; arity − 1 siblings each). path_d_new: with the SHA-256
// tree D, the tree_d_levels() levels from leaf_d_new up to its apex leaf (one sibling each; the
// rest of the vanilla path is the partition path, shared); with Poseidon tree D, tree R's shape.
struct SnapChallengeWitness {
  std::optional<Fr> leaf_r_old, leaf_d_new, leaf_r_new;
  SnapPath path_r_old, path_d_new, path_r_new;
};

// One partition's public and private inputs (circuit.rs PublicInputs, PrivateInputs). With the
// Poseidon tree D, selector is h_select and apex_leaves / partition_path are empty.
struct SnapPartitionWitness {
  std::optional<Fr> selector;  // k_and_h_select (snap_selector)
  std::optional<Fr> comm_r_old, comm_d_new, comm_r_new;
  std::optional<Fr> comm_c, root_r_old, root_r_new;
  std::vector<std::optional<Fr>> apex_leaves;     // this partition's apex_leaves nodes of tree D
  std::vector<std::optional<Fr>> partition_path;  // partition_bits siblings from the apex root up
  std::vector<SnapChallengeWitness> challenges;

  // Every value unknown (EmptySectorUpdateCircuit::blank).
  static SnapPartitionWitness blank(const SnapCircuitShape& shape);
};

// The first public input: k | (2^index(h in hs) << partition_bits) (circuit.rs PublicInputs::new;
// Poseidon: 2^index). Throws std::invalid_argument unless k < partitions and h is in hs.
Fr snap_selector(const SnapCircuitShape& shape, uint32_t k, uint32_t h);

// What a verifier knows of a partition.
struct SnapPublicInputs {
  uint32_t k = 0;  // partition index
  uint32_t h = 0;  // 0: the shape's h_default
  Fr comm_r_old, comm_d_new, comm_r_new;
};

// The verifier's inputs without ONE, in input order (PublicInputs::to_vec).
std::vector<Fr> snap_public_inputs(const SnapCircuitShape& shape, const SnapPublicInputs& in);

namespace snap_detail {
// Every witness must give the blank circuit's structure; a known selector must be valid.
void check_witness(const SnapCircuitShape& shape, const SnapPartitionWitness& w);
// The arity of every level of a tree-R path (base levels, then sub and top), and of a tree-D path
// (binary up to the apex leaf; tree R's with the Poseidon tree D).
std::vector<size_t> tree_r_arities(const SnapCircuitShape& s);
std::vector<size_t> tree_d_arities(const SnapCircuitShape& s);
}  // namespace snap_detail

// The whole partition circuit (EmptySectorUpdateCircuit::synthesize). Does not call
// cs.finalize(). Throws std::invalid_argument on a witness of the wrong shape, and when a known
// leaf_r_new differs from leaf_r_old + leaf_d_new·rho (the reference's sanity assertion).
template <r1cs::ConstraintSystem CS>
void snap_circuit(CS& cs, const SnapCircuitShape& shape, const SnapPartitionWitness& w);

extern template void snap_circuit(r1cs::CountingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
extern template void snap_circuit(r1cs::RecordingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
extern template void snap_circuit(r1cs::WitnessCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
extern template void snap_circuit(r1cs::ProvingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
extern template void snap_circuit(r1cs::TestCS&, const SnapCircuitShape&, const SnapPartitionWitness&);

}  // namespace cuzk::filecoin
