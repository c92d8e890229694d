// The explicit instantiations that snap_circuit.hpp declares extern, the gadget counts of
// snap_circuit_info.hpp (which reuse this file's CountingCS instantiation of the gadgets), and
// record_snap_circuit_parallel (which records the circuit's pieces, so it needs their templates,
// instantiated here once for RecordingCS): the challenges, the apex tree's hashes in jobs and the
// partition path recorded concurrently, then merged into the sequential recording's matrices.
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

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

namespace {

using Clock = std::chrono::steady_clock;
using gadgets::AllocatedNum;
using snap_detail::Head;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The apex tree's hashes numbered in the sequential order (row by row: k = row_start[r] + i). Every
// hash2 allocates the same aux variables (SHA-256's circuit does not depend on the values), so hash
// k owns [first_aux(k), first_aux(k + 1)) and its output sits at a fixed offset in it. A job thus
// records its hashes at their final columns, reading the outputs of hashes that other jobs record,
// and the merge moves nothing in the apex. Hash 0, recorded first, gives the sizes.
struct ApexTree {
  size_t base = 0, hash_aux = 0, out_offset = 0;
  std::vector<size_t> row_start{0};  // each row's first hash, then the number of hashes

  ApexTree(size_t leaves, size_t base_aux) : base(base_aux) {
    for (size_t n = leaves / 2; n >= 1; n /= 2) row_start.push_back(row_start.back() + n);
  }
  size_t hashes() const { return row_start.back(); }
  size_t first_aux(size_t k) const { return base + k * hash_aux; }
  AllocatedNum output(size_t k) const {
    return {r1cs::Variable::aux(static_cast<uint32_t>(first_aux(k) + out_offset)), std::nullopt};
  }
  // Node j of row r: an apex leaf, or the output of a hash of the row below.
  AllocatedNum node(const Head& h, size_t r, size_t j) const {
    return r == 0 ? h.top.apex_leaves[j] : output(row_start[r - 1] + j);
  }
};

// Hash 0 alone, which sets the tree's hash size and output offset.
r1cs::CompactR1cs record_first_hash(ApexTree& t, const Head& h, size_t in1) {
  r1cs::RecordingCS cs(in1, t.base);
  AllocatedNum out;
  {
    auto ns = cs.namespace_([] { return "apex_gadget"; });
    out = snap_detail::apex_tree_hash(cs, 0, 0, h.top.apex_leaves[0], h.top.apex_leaves[1]);
  }
  if (!out.var().is_aux() || out.var().index() < t.base) {
    throw std::logic_error("record_snap_circuit_parallel: the apex hash's output is not its own variable");
  }
  t.hash_aux = cs.num_aux() - t.base;
  t.out_offset = out.var().index() - t.base;
  return std::move(cs).take_raw();
}

// Hashes [k0, k1) at their final columns, each checked to allocate as hash 0 did.
r1cs::CompactR1cs record_apex_hashes(const ApexTree& t, const Head& h, size_t in1, size_t k0, size_t k1) {
  r1cs::RecordingCS cs(in1, t.first_aux(k0));
  {
    auto ns = cs.namespace_([] { return "apex_gadget"; });
    size_t r = 0;
    for (size_t k = k0; k < k1; ++k) {
      while (k >= t.row_start[r + 1]) ++r;
      const size_t i = k - t.row_start[r];
      const AllocatedNum out = snap_detail::apex_tree_hash(cs, r, i, t.node(h, r, 2 * i), t.node(h, r, 2 * i + 1));
      if (out.var() != t.output(k).var() || cs.num_aux() != t.first_aux(k + 1)) {
        throw std::logic_error("record_snap_circuit_parallel: apex hash " + std::to_string(k) + " differs from hash 0");
      }
    }
  }
  return std::move(cs).take_raw();
}

// The partition path from the apex root (the last hash) up to comm_d, after the tree.
r1cs::CompactR1cs record_partition_path(const ApexTree& t, const Head& h, size_t in1) {
  r1cs::RecordingCS cs(in1, t.first_aux(t.hashes()));
  {
    auto ns = cs.namespace_([] { return "apex_gadget"; });
    snap_detail::apex_partition_por(cs, t.output(t.hashes() - 1), h.top.partition_bits, h.top.partition_path,
                                    h.top.comm_d_new);
  }
  return std::move(cs).take_raw();
}

struct Job {
  std::string name;
  std::function<r1cs::CompactR1cs()> record;
};

// Runs the jobs concurrently on the pool, in their order as threads free up, timing each.
std::vector<r1cs::CompactR1cs> run_jobs(const std::vector<Job>& jobs, ThreadPool& pool, SnapRecordStats* stats) {
  std::vector<r1cs::CompactR1cs> out(jobs.size());
  std::vector<double> seconds(jobs.size());
  const Clock::time_point t0 = Clock::now();
  pool.parallel_for(jobs.size(), [&](size_t j) {
    const Clock::time_point t = Clock::now();
    out[j] = jobs[j].record();
    seconds[j] = seconds_since(t);
  });
  if (stats != nullptr) {
    stats->jobs_seconds = seconds_since(t0);
    for (size_t j = 0; j < jobs.size(); ++j) stats->jobs.push_back({jobs[j].name, out[j].num_constraints, seconds[j]});
  }
  return out;
}

// The segments in the sequential order: top, apex (already at its columns), the challenge bits
// (recorded as if the apex allocated nothing: moved past it), the challenges (each recorded as if
// it were the first: its reads of its bits moved as the bits, its own variables past the previous
// challenges). apex_aux: the apex's aux count.
r1cs::CompactR1cs merge_snap(std::vector<r1cs::CompactR1cs*> segs, size_t blocks, size_t in1, size_t aux1, size_t aux2,
                             uint64_t apex_aux, ThreadPool& pool) {
  const size_t first_block = segs.size() - blocks;
  const uint64_t block_aux = blocks == 0 ? 0 : segs[first_block]->num_aux - aux2;
  std::vector<r1cs::SegmentPlace> places(segs.size());
  r1cs::SegmentPlace& bits = places[first_block - 1];
  bits.aux_from[0] = bits.aux_from[1] = aux1;
  bits.aux_shift[0] = bits.aux_shift[1] = apex_aux;
  for (size_t c = 0; c < blocks; ++c) {
    const r1cs::CompactR1cs& b = *segs[first_block + c];
    if (b.num_inputs != in1 || b.num_aux - aux2 != block_aux) {
      throw std::logic_error("record_snap_circuit_parallel: challenge " + std::to_string(c) + " differs from 0");
    }
    r1cs::SegmentPlace& pl = places[first_block + c];
    pl.aux_from[0] = aux1;  // its bits
    pl.aux_shift[0] = apex_aux;
    pl.aux_from[1] = aux2;  // its own
    pl.aux_shift[1] = apex_aux + c * block_aux;
  }
  for (size_t j = 0; j < first_block; ++j) {
    if (segs[j]->num_inputs != in1) throw std::logic_error("record_snap_circuit_parallel: inputs outside the top");
  }
  return r1cs::merge_placed(std::move(segs), places, in1, aux2 + apex_aux + blocks * block_aux, true, &pool, false);
}

}  // namespace

r1cs::CompactR1cs record_snap_circuit_parallel(const SnapCircuitShape& shape, ThreadPool& pool, SnapRecordStats* stats,
                                               size_t apex_hashes_per_job) {
  if (apex_hashes_per_job == 0) throw std::invalid_argument("record_snap_circuit_parallel: no apex hashes per job");
  const Clock::time_point t0 = Clock::now();
  const SnapPartitionWitness w = SnapPartitionWitness::blank(shape);
  snap_detail::check_witness(shape, w);
  r1cs::RecordingCS head;
  Head h = snap_detail::head_top(head, shape, w);
  const size_t in1 = head.num_inputs(), aux1 = head.num_aux();
  // The challenge bits, numbered as if the apex PoR allocated nothing (its size is known only once
  // recorded): the merge moves them, and what reads them, past it.
  r1cs::RecordingCS gen(in1, aux1);
  snap_detail::head_challenge_bits(gen, shape, h);
  const size_t aux2 = gen.num_aux();
  r1cs::CompactR1cs top = std::move(head).take_raw(), bits = std::move(gen).take_raw();
  std::vector<r1cs::CompactR1cs*> segs{&top};
  ApexTree tree(shape.tree_d == SnapTreeD::kSha256 ? shape.apex_leaves : 0, aux1);
  r1cs::CompactR1cs hash0;
  std::vector<Job> jobs;
  // The challenges first (each reads its own bits, so one block cannot stand for all as in
  // record_porep_circuit_replicated, but allocates the same variables and constraints: recorded as
  // if it were the first, the merge renumbers it); the smaller apex jobs last fill the threads the
  // challenges leave idle at the end (largest first: 32 GiB, 0.87 M constraints against 0.36 M).
  for (size_t c = 0; c < h.c_bits.size(); ++c) {
    jobs.push_back({"challenge " + std::to_string(c), [&, c] {
                      r1cs::RecordingCS cs(in1, aux2);
                      snap_detail::challenge_circuit(cs, shape, h.top, c, h.c_bits[c], w.challenges[c]);
                      return std::move(cs).take_raw();
                    }});
  }
  const size_t blocks = jobs.size();
  if (tree.hashes() > 0) {
    hash0 = record_first_hash(tree, h, in1);
    segs.push_back(&hash0);
    for (size_t k = 1; k < tree.hashes(); k += apex_hashes_per_job) {
      const size_t k1 = std::min(k + apex_hashes_per_job, tree.hashes());
      jobs.push_back({"apex hashes " + std::to_string(k) + "-" + std::to_string(k1 - 1),
                      [&, k, k1] { return record_apex_hashes(tree, h, in1, k, k1); }});
    }
    jobs.push_back({"partition path", [&] { return record_partition_path(tree, h, in1); }});
  }
  if (stats != nullptr) {
    *stats = {};
    stats->head_constraints = top.num_constraints + hash0.num_constraints + bits.num_constraints;
    stats->head_seconds = seconds_since(t0);
  }
  std::vector<r1cs::CompactR1cs> recorded = run_jobs(jobs, pool, stats);
  const Clock::time_point t1 = Clock::now();
  // The path ends the apex.
  const uint64_t apex_aux = recorded.size() > blocks ? recorded.back().num_aux - aux1 : 0;
  for (size_t j = blocks; j < recorded.size(); ++j) segs.push_back(&recorded[j]);
  segs.push_back(&bits);
  for (size_t j = 0; j < blocks; ++j) segs.push_back(&recorded[j]);
  r1cs::CompactR1cs merged = merge_snap(std::move(segs), blocks, in1, aux1, aux2, apex_aux, pool);
  if (stats != nullptr) stats->merge_seconds = seconds_since(t1);
  return merged;
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
