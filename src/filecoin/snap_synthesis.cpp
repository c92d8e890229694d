#include "filecoin/snap_synthesis.hpp"

#include "r1cs/recording_cs.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

r1cs::CompactR1cs record_snap_circuit(const SnapCircuitShape& shape) {
  r1cs::RecordingCS cs;
  snap_circuit(cs, shape, SnapPartitionWitness::blank(shape));
  cs.finalize();
  return std::move(cs).compact();
}

SnapAssignment snap_assignment(const SnapRequestContext& ctx, const SnapPartitionProof& proof, uint32_t k,
                               ThreadPool& pool) {
  return snap_native_assignment(ctx.shape, snap_partition_witness(ctx, proof, k), pool);
}

SnapAssignment synthesize_snap_assignment(const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  r1cs::WitnessCS cs;
  snap_circuit(cs, shape, w);
  cs.finalize();
  return {std::move(cs.inputs()), std::move(cs.aux())};
}

r1cs::ProvingCS synthesize_snap(const SnapRequestContext& ctx, const SnapPartitionProof& proof, uint32_t k) {
  r1cs::ProvingCS cs(/*track_density=*/true);
  snap_circuit(cs, ctx.shape, snap_partition_witness(ctx, proof, k));
  cs.finalize();
  return cs;
}

}  // namespace cuzk::filecoin
