#include "filecoin/post_synthesis.hpp"

#include "r1cs/recording_cs.hpp"
#include "r1cs/segment_merge.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

r1cs::CompactR1cs record_post_circuit(const PostCircuitShape& shape) {
  r1cs::RecordingCS cs;
  post_circuit(cs, shape, PostCircuitWitness::blank(shape));
  cs.finalize();
  return std::move(cs).compact();
}

r1cs::CompactR1cs record_post_circuit(const RegisteredPostProof& proof) {
  return record_post_circuit(PostCircuitShape::of(proof));
}

r1cs::CompactR1cs record_post_circuit_replicated(const PostCircuitShape& shape, ThreadPool& pool) {
  shape.validate();
  // The head is ONE alone (post_circuit allocates nothing outside its sectors); namespaces do not
  // reach RecordingCS's matrices, so sector 0 recorded bare is every sector's block.
  r1cs::RecordingCS head;
  r1cs::RecordingCS cs(head.num_inputs(), head.num_aux());
  const PostCircuitWitness blank =
      PostCircuitWitness::blank(PostCircuitShape{shape.nodes, 1, shape.challenges, shape.tree});
  post_detail::sector_circuit(cs, blank.sectors[0]);
  std::vector<r1cs::CompactR1cs> block;
  block.push_back(std::move(cs).take_raw());
  return r1cs::merge_segments(std::move(head).take_raw(), std::move(block), true, &pool, shape.sectors);
}

r1cs::CompactR1cs record_post_circuit_replicated(const RegisteredPostProof& proof, ThreadPool& pool) {
  return record_post_circuit_replicated(PostCircuitShape::of(proof), pool);
}

PostAssignment post_assignment(const RegisteredPostProof& proof, std::span<const FallbackPostSectorProof> proofs,
                               ThreadPool& pool) {
  const PostCircuitShape shape = PostCircuitShape::of(proof);
  return post_native_assignment(shape, post_circuit_witness(shape, proofs), pool);
}

PostAssignment synthesize_post_assignment(const PostCircuitShape& shape, const PostCircuitWitness& w) {
  r1cs::WitnessCS cs;
  post_circuit(cs, shape, w);
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
