#include "filecoin/snap_vanilla.hpp"

#include "filecoin/bincode.hpp"
#include "filecoin/merkle_bincode.hpp"
#include "filecoin/snap_error.hpp"

namespace cuzk::filecoin {
namespace {

constexpr size_t kChallengeProofMin = 3 * kBincodeMerkleProofMin;

SnapPartitionProof read_partition(BincodeReader& r) {
  const JsonPath root;
  SnapPartitionProof out;
  out.comm_c = read_domain(r, root.field("comm_c"));
  const JsonPath apex = root.field("apex_leafs");
  const size_t n = read_seq_len(r, apex, kBincodeDomainBytes);
  out.apex_leafs.reserve(n);
  for (size_t i = 0; i < n; ++i) out.apex_leafs.push_back(read_domain(r, apex.at(i)));
  const JsonPath cps = root.field("challenge_proofs");
  const size_t m = read_seq_len(r, cps, kChallengeProofMin);
  out.challenge_proofs.reserve(m);
  for (size_t i = 0; i < m; ++i) {
    const JsonPath c = cps.at(i);
    SnapChallengeProof cp;
    cp.proof_r_old = read_merkle_proof(r, c.field("proof_r_old"));
    cp.proof_d_new = read_merkle_proof(r, c.field("proof_d_new"));
    cp.proof_r_new = read_merkle_proof(r, c.field("proof_r_new"));
    out.challenge_proofs.push_back(std::move(cp));
  }
  return out;
}

}  // namespace

SnapPartitionProof parse_snap_partition_proof(std::span<const uint8_t> bytes, size_t partition) {
  BincodeReader r(bytes);
  try {
    SnapPartitionProof out = read_partition(r);
    try {
      r.finish();
    } catch (const BincodeError& e) {
      throw BincodeFieldError("", e.what());
    }
    return out;
  } catch (const BincodeFieldError& e) {
    throw SnapVanillaError(partition, e.field(), e.problem());
  }
}

std::vector<uint8_t> to_bincode(const SnapPartitionProof& proof) {
  BincodeWriter w;
  w.bytes32(proof.comm_c);
  w.seq_len(proof.apex_leafs.size());
  for (const Bytes32& b : proof.apex_leafs) w.bytes32(b);
  w.seq_len(proof.challenge_proofs.size());
  for (const SnapChallengeProof& c : proof.challenge_proofs) {
    write_merkle_proof(w, c.proof_r_old);
    write_merkle_proof(w, c.proof_d_new);
    write_merkle_proof(w, c.proof_r_new);
  }
  return std::move(w).take();
}

}  // namespace cuzk::filecoin
