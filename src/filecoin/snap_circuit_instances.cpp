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
  snap_detail::Head h = snap_detail::head_top(head, shape, w);
  const size_t in1 = head.num_inputs(), aux1 = head.num_aux();
  // The challenge bits, numbered as if the apex PoR allocated nothing (it allocates no input, and
  // its size is known only once recorded): the merge moves them, and what reads them, past it.
  r1cs::RecordingCS gen(in1, aux1);
  snap_detail::head_challenge_bits(gen, shape, h);
  const size_t aux2 = gen.num_aux();
  // Job 0 records the apex PoR (32 GiB: ~6 M of the 81 M constraints) alongside the challenges.
  // Each challenge reads its own bits (so one block cannot stand for all, as in
  // record_porep_circuit_replicated) but allocates the same variables and constraints: recorded
  // as if it were the first, the merge renumbers it.
  r1cs::CompactR1cs apex;
  std::vector<r1cs::CompactR1cs> blocks(h.c_bits.size());
  pool.parallel_for(blocks.size() + 1, [&](size_t job) {
    if (job == 0) {
      r1cs::RecordingCS cs(in1, aux1);
      snap_detail::head_apex(cs, shape, h);
      apex = std::move(cs).take_raw();
      return;
    }
    const size_t c = job - 1;
    r1cs::RecordingCS cs(in1, aux2);
    snap_detail::challenge_circuit(cs, shape, h.top, c, h.c_bits[c], w.challenges[c]);
    blocks[c] = std::move(cs).take_raw();
  });
  r1cs::CompactR1cs top = std::move(head).take_raw(), bits = std::move(gen).take_raw();
  const uint64_t apex_aux = apex.num_aux - aux1;
  const uint64_t block_aux = blocks.empty() ? 0 : blocks[0].num_aux - aux2;
  std::vector<r1cs::CompactR1cs*> segs{&top, &apex, &bits};
  std::vector<r1cs::SegmentPlace> places(3);
  places[2].aux_from[0] = places[2].aux_from[1] = aux1;
  places[2].aux_shift[0] = places[2].aux_shift[1] = apex_aux;
  for (size_t c = 0; c < blocks.size(); ++c) {
    if (blocks[c].num_inputs != in1 || blocks[c].num_aux - aux2 != block_aux) {
      throw std::logic_error("record_snap_circuit_parallel: challenge " + std::to_string(c) + " differs from 0");
    }
    segs.push_back(&blocks[c]);
    r1cs::SegmentPlace& pl = places.emplace_back();
    pl.aux_from[0] = aux1;  // its bits
    pl.aux_shift[0] = apex_aux;
    pl.aux_from[1] = aux2;  // its own
    pl.aux_shift[1] = apex_aux + c * block_aux;
  }
  if (apex.num_inputs != in1 || bits.num_inputs != in1) {
    throw std::logic_error("record_snap_circuit_parallel: inputs outside the top");
  }
  return r1cs::merge_placed(std::move(segs), places, in1, aux2 + apex_aux + blocks.size() * block_aux, true, &pool,
                            false);
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
