#pragma once
// The FallbackPoSt circuit of one partition (WindowPoSt and WinningPoSt; storage-proofs-post
// src/fallback/circuit.rs), over any ConstraintSystem, in the reference's allocation and
// constraint order (filecoin-circuits.md 7.1, 2.5):
//
//   for each sector i ("sector_i"):
//     comm_r_last, comm_c, comm_r (aux), comm_r made an input, comm_r == Poseidon2(comm_c,
//     comm_r_last);
//     for each challenge j ("challenge_inclusion_j"): a PoR in tree R whose leaf is allocated
//       first (Root::Val), whose root is comm_r_last, private; its path bits packed into one
//       input (the challenged leaf).
//
// So a partition has 1 + sectors · (1 + challenges) inputs (ONE included) and
// sectors · (313 + challenges · PoR_R) constraints. The reference synthesizes sector chunks in
// parallel when its constraint system is extensible and appends them in order: the same R1CS.
// The witness is optional throughout: PostCircuitWitness::blank for the structure, a witness
// from parsed vanilla proofs (post_circuit_witness) for the values.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "r1cs/counting_cs.hpp"
#include "r1cs/proving_cs.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/test_cs.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

// What fixes the circuit: tree R (its leaves and shape), sectors per partition and challenges per
// sector (the FallbackPoSt PublicParams).
struct PostCircuitShape {
  uint64_t nodes = 0;
  uint32_t sectors = 0;
  uint32_t challenges = 0;
  gadgets::MerkleShape tree;

  // The production circuit of a registered PoSt proof (Winning: 66 sectors of 1 challenge).
  static PostCircuitShape of(const RegisteredPostProof& proof);
  // The reference's test circuit (storage-proofs-post tests/fallback_circuit.rs): 64 leaves per
  // base tree.
  static PostCircuitShape reference_test(const gadgets::MerkleShape& tree, uint32_t sectors, uint32_t challenges);

  // Throws std::invalid_argument naming the field.
  void validate() const;
  size_t num_inputs() const { return 1 + size_t{sectors} * (1 + size_t{challenges}); }  // ONE included
  std::string describe() const;
};

struct PostSectorWitness {
  std::optional<Fr> comm_r, comm_c, comm_r_last;
  std::vector<std::optional<Fr>> leaves;  // one per challenge
  std::vector<gadgets::AuthPath> paths;   // one per challenge
};

struct PostCircuitWitness {
  std::vector<PostSectorWitness> sectors;

  // Every value unknown (FallbackPoStCompound::blank_circuit).
  static PostCircuitWitness blank(const PostCircuitShape& shape);
};

// The witness of a partition from its validated vanilla proofs, as filecoin-proofs
// post_util.rs single_partition_vanilla_proofs and compound.rs circuit build it: each proof's
// inclusion proofs are cut into circuit sectors of shape.challenges (WindowPoSt: one circuit
// sector per proof; WinningPoSt: the one sector's 66 proofs become 66 circuit sectors), and the
// last circuit sector is repeated to fill the partition. Throws std::invalid_argument if the
// proofs do not fit the shape.
PostCircuitWitness post_circuit_witness(const PostCircuitShape& shape, std::span<const FallbackPostSectorProof> proofs);

namespace post_detail {

// Every witness must give the blank circuit's structure.
void check_witness(const PostCircuitShape& shape, const PostCircuitWitness& w);

template <r1cs::ConstraintSystem CS>
gadgets::AllocatedNum alloc(CS& cs, const char* name, const std::optional<Fr>& v) {
  auto ns = cs.namespace_([name] { return name; });
  return gadgets::AllocatedNum::alloc(cs, v);
}

// circuit.rs `impl Circuit for &Sector`.
template <r1cs::ConstraintSystem CS>
void sector_circuit(CS& cs, const PostSectorWitness& s) {
  using gadgets::AllocatedNum;
  const AllocatedNum comm_r_last = alloc(cs, "comm_r_last", s.comm_r_last);
  const AllocatedNum comm_c = alloc(cs, "comm_c", s.comm_c);
  const AllocatedNum comm_r = alloc(cs, "comm_r", s.comm_r);
  {
    auto ns = cs.namespace_([] { return "comm_r_input"; });
    comm_r.inputize(cs);
  }
  AllocatedNum h;
  {
    auto ns = cs.namespace_([] { return "H_comm_c_comm_r_last"; });
    h = gadgets::PoseidonHasher::hash2_circuit(cs, comm_c, comm_r_last);
  }
  gadgets::enforce_equal_nums(
      cs, [] { return "enforce_comm_c_comm_r_last_hash_comm_r"; }, comm_r, h);
  for (size_t j = 0; j < s.leaves.size(); ++j) {
    auto ns = cs.namespace_([j] { return "challenge_inclusion_" + std::to_string(j); });
    gadgets::por_circuit<gadgets::PoseidonHasher>(cs, gadgets::Root::val(s.leaves[j]), s.paths[j],
                                                  gadgets::Root::var(comm_r_last), true);
  }
}

// The sector circuit (Poseidon and the PoRs: ~15 s of compile per constraint system) is
// instantiated once for each of these, in post_circuit_instances.cpp, not in every user.
extern template void sector_circuit(r1cs::CountingCS&, const PostSectorWitness&);
extern template void sector_circuit(r1cs::RecordingCS&, const PostSectorWitness&);
extern template void sector_circuit(r1cs::WitnessCS&, const PostSectorWitness&);
extern template void sector_circuit(r1cs::ProvingCS&, const PostSectorWitness&);
extern template void sector_circuit(r1cs::TestCS&, const PostSectorWitness&);

}  // namespace post_detail

// Called after each sector with (sectors done, sectors in all).
using PostProgress = std::function<void(size_t, size_t)>;

// The whole partition circuit (circuit.rs synthesize_default). Does not call cs.finalize().
template <r1cs::ConstraintSystem CS>
void post_circuit(CS& cs, const PostCircuitShape& shape, const PostCircuitWitness& w,
                  const PostProgress& progress = {}) {
  post_detail::check_witness(shape, w);
  auto outer = cs.namespace_([] { return "outer namespace"; });
  for (size_t i = 0; i < w.sectors.size(); ++i) {
    {
      auto ns = cs.namespace_([i] { return "sector_" + std::to_string(i); });
      post_detail::sector_circuit(cs, w.sectors[i]);
    }
    if (progress) progress(i + 1, w.sectors.size());
  }
}

}  // namespace cuzk::filecoin
