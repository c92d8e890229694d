#include "filecoin/porep_synthesis.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>

#include "filecoin/challenges.hpp"
#include "filecoin/porep_public_inputs.hpp"
#include "filecoin/stacked_graph.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/segment_merge.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::filecoin {

r1cs::CompactR1cs record_porep_circuit(const PorepCircuitShape& shape, const PorepProgress& progress) {
  r1cs::RecordingCS cs;
  porep_circuit(cs, shape, PorepCircuitWitness::blank(shape), progress);
  cs.finalize();
  return std::move(cs).compact();
}

r1cs::CompactR1cs record_porep_circuit_parallel(const PorepCircuitShape& shape, ThreadPool& pool,
                                                const PorepProgress& progress) {
  const PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
  porep_detail::check_witness(shape, w);
  r1cs::RecordingCS head;
  const porep_detail::TopVars top = porep_detail::top_circuit(head, w);
  const size_t in_base = head.num_inputs(), aux_base = head.num_aux();
  std::vector<r1cs::CompactR1cs> blocks(w.challenges.size());
  std::atomic<size_t> done{0};
  std::mutex progress_mu;
  // Every challenge is recorded as if it were the first (the blank circuit's challenges are
  // identical in structure); merge_segments renumbers them.
  pool.parallel_for(w.challenges.size(), [&](size_t i) {
    r1cs::RecordingCS cs(in_base, aux_base);
    porep_detail::challenge_at(cs, shape, w, i, top);
    blocks[i] = std::move(cs).take_raw();
    const size_t n = done.fetch_add(1) + 1;
    if (progress) {
      std::lock_guard lock(progress_mu);
      progress(n, w.challenges.size());
    }
  });
  return r1cs::merge_segments(std::move(head).take_raw(), std::move(blocks), true, &pool);
}

r1cs::CompactR1cs record_porep_circuit_replicated(const PorepCircuitShape& shape, ThreadPool& pool,
                                                  ReplicatedTimes* times) {
  using Clock = std::chrono::steady_clock;
  auto t = Clock::now();
  auto lap = [&](double ReplicatedTimes::*field) {
    const auto now = Clock::now();
    if (times != nullptr) times->*field = std::chrono::duration<double>(now - t).count();
    t = now;
  };
  const PorepCircuitWitness w = PorepCircuitWitness::blank(shape);
  porep_detail::check_witness(shape, w);
  r1cs::RecordingCS head;
  const porep_detail::TopVars top = porep_detail::top_circuit(head, w);
  lap(&ReplicatedTimes::head_s);
  r1cs::RecordingCS cs(head.num_inputs(), head.num_aux());
  porep_detail::challenge_at(cs, shape, w, 0, top);
  std::vector<r1cs::CompactR1cs> block;
  block.push_back(std::move(cs).take_raw());
  lap(&ReplicatedTimes::challenge_s);
  r1cs::CompactR1cs out =
      r1cs::merge_segments(std::move(head).take_raw(), std::move(block), true, &pool, w.challenges.size());
  lap(&ReplicatedTimes::merge_s);
  return out;
}

PorepAssignment porep_assignment(const SealCommitPhase1Output& c1, uint32_t partition) {
  const PorepCircuitWitness w = porep_circuit_witness(c1, partition);
  const PorepCircuitShape shape = PorepCircuitShape::of(*c1.registered_proof);
  r1cs::WitnessCS cs;
  porep_circuit(cs, shape, w);
  cs.finalize();
  PorepAssignment out;
  out.inputs = std::move(cs.inputs());
  out.aux = std::move(cs.aux());
  return out;
}

r1cs::ProvingCS synthesize_porep(const SealCommitPhase1Output& c1, uint32_t partition) {
  const PorepCircuitWitness w = porep_circuit_witness(c1, partition);
  r1cs::ProvingCS cs(/*track_density=*/true);
  porep_circuit(cs, PorepCircuitShape::of(*c1.registered_proof), w);
  cs.finalize();
  return cs;
}

std::vector<Fr> porep_verifier_inputs(const SealCommitPhase1Output& c1, uint32_t partition) {
  if (c1.registered_proof == nullptr) throw std::invalid_argument("PoRep inputs: C1 output has no registered proof");
  const RegisteredSealProof& proof = *c1.registered_proof;
  if (partition >= proof.partitions) {
    throw std::out_of_range("PoRep inputs: partition " + std::to_string(partition) + " of a proof with " +
                            std::to_string(proof.partitions) + " partitions");
  }
  const StackedGraph graph(proof.shape.nodes, porep_id(proof), proof.api_version);
  const std::vector<uint64_t> challenges = porep_challenges(proof, c1.replica_id, c1.comm_r, c1.seed, partition);
  std::vector<PorepChallengeInputs> per;
  per.reserve(challenges.size());
  for (uint64_t c : challenges) {
    PorepChallengeInputs ch;
    ch.challenge = c;
    ch.drg_parents = graph.base_parents(c);
    ch.exp_parents = graph.expanded_parents(c);
    per.push_back(ch);
  }
  return porep_public_inputs(to_fr(c1.replica_id), to_fr(c1.comm_d), to_fr(c1.comm_r), per);
}

}  // namespace cuzk::filecoin
