#include "filecoin/post_synthesis.hpp"

#include "r1cs/recording_cs.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

r1cs::CompactR1cs record_post_circuit(const RegisteredPostProof& proof) {
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  r1cs::RecordingCS cs;
  post_circuit(cs, shape, PostCircuitWitness::blank(shape));
  cs.finalize();
  return std::move(cs).compact();
}

PostAssignment post_assignment(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs) {
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  r1cs::WitnessCS cs;
  post_circuit(cs, shape, post_circuit_witness(shape, proofs));
  cs.finalize();
  PostAssignment out;
  out.inputs = std::move(cs.inputs());
  out.aux = std::move(cs.aux());
  return out;
}

r1cs::ProvingCS synthesize_post(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs) {
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  r1cs::ProvingCS cs(/*track_density=*/true);
  post_circuit(cs, shape, post_circuit_witness(shape, proofs));
  cs.finalize();
  return cs;
}

}  // namespace cuzk::filecoin
