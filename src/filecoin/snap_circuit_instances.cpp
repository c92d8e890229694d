// The explicit instantiations that snap_circuit.hpp declares extern, the gadget counts of
// snap_circuit_info.hpp (which reuse this file's CountingCS instantiation of the gadgets), and
// record_snap_circuit_parallel (which records the circuit's pieces, so it needs their templates,
// instantiated here once for RecordingCS).
#include "filecoin/snap_circuit_impl.hpp"
#include "filecoin/snap_circuit_info.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "r1cs/segment_merge.hpp"

namespace cuzk::filecoin {

template void snap_circuit(r1cs::CountingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
template void snap_circuit(r1cs::RecordingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
template void snap_circuit(r1cs::WitnessCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
template void snap_circuit(r1cs::ProvingCS&, const SnapCircuitShape&, const SnapPartitionWitness&);
template void snap_circuit(r1cs::TestCS&, const SnapCircuitShape&, const SnapPartitionWitness&);

r1cs::CompactR1cs record_snap_circuit_parallel(const SnapCircuitShape& shape, ThreadPool& pool) {
  const SnapPartitionWitness w = SnapPartitionWitness::blank(shape);
  snap_detail::check_witness(shape, w);
  r1cs::RecordingCS head;
  const snap_detail::Head h = snap_detail::head_circuit(head, shape, w);
  const size_t in_base = head.num_inputs(), aux_base = head.num_aux();
  // Each challenge reads its own generated bits from the head (so one block cannot stand for all,
  // as in record_porep_circuit_replicated) but allocates the same variables and constraints:
  // recorded as if it were the first, merge_segments renumbers it.
  std::vector<r1cs::CompactR1cs> blocks(h.c_bits.size());
  pool.parallel_for(blocks.size(), [&](size_t c) {
    r1cs::RecordingCS cs(in_base, aux_base);
    snap_detail::challenge_circuit(cs, shape, h.top, c, h.c_bits[c], w.challenges[c]);
    blocks[c] = std::move(cs).take_raw();
  });
  return r1cs::merge_segments(std::move(head).take_raw(), std::move(blocks), true, &pool);
}

uint64_t snap_gen_challenge_bits_constraints(const SnapCircuitShape& shape) {
  shape.validate();
  r1cs::CountingCS cs;
  const gadgets::AllocatedNum comm_r_new = gadgets::AllocatedNum::alloc(cs, std::nullopt);
  const gadgets::AllocatedNum partition = gadgets::AllocatedNum::alloc(cs, std::nullopt);
  const size_t before = cs.num_constraints();
  snap_detail::gen_challenge_bits(cs, comm_r_new, partition, shape.challenges, shape.random_bits());
  return cs.num_constraints() - before;
}

uint64_t snap_apex_por_constraints(uint32_t apex_leaves, uint32_t partitions) {
  if (apex_leaves < 2 || !std::has_single_bit(apex_leaves) || partitions == 0 || !std::has_single_bit(partitions)) {
    throw std::invalid_argument("apex_por: apex leaves and partitions must be powers of two (leaves >= 2)");
  }
  r1cs::CountingCS cs;
  const gadgets::AllocatedNum comm_d = gadgets::AllocatedNum::alloc(cs, std::nullopt);
  std::vector<gadgets::AllocatedBit> bits;
  snap_detail::Path path;
  for (uint32_t i = 0; i < static_cast<uint32_t>(std::countr_zero(partitions)); ++i) {
    bits.push_back(gadgets::AllocatedBit::alloc(cs, std::nullopt));
    path.push_back({gadgets::AllocatedNum::alloc(cs, std::nullopt)});
  }
  std::vector<gadgets::AllocatedNum> leaves;
  for (uint32_t i = 0; i < apex_leaves; ++i) leaves.push_back(gadgets::AllocatedNum::alloc(cs, std::nullopt));
  const size_t before = cs.num_constraints();
  snap_detail::apex_por(cs, leaves, bits, path, comm_d);
  return cs.num_constraints() - before;
}

}  // namespace cuzk::filecoin
