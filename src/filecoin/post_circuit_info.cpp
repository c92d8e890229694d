#include "filecoin/post_circuit_info.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <mutex>

#include "r1cs/counting_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

// The counts of sectors [begin, end) synthesized alone: its own ONE, then the sectors.
r1cs::CircuitCounts count_sectors(const PostCircuitWitness& w, size_t begin, size_t end) {
  r1cs::CountingCS cs;
  for (size_t i = begin; i < end; ++i) post_detail::sector_circuit(cs, w.sectors[i]);
  return cs.counts();
}

}  // namespace

PostCircuitInfo post_circuit_info(const PostCircuitShape& shape, const PostProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const PostCircuitWitness w = PostCircuitWitness::blank(shape);
  post_detail::check_witness(shape, w);
  // A sector's constraints only name its own variables and ONE, so sector chunks counted apart add
  // up to the whole circuit's counts (the reference synthesizes chunks in parallel and appends them
  // the same way, circuit.rs synthesize_extendable); the Poseidon LCs make counting ~0.3 M
  // constraints/s per core, ~7 min for the 125 M of 32 GiB on one.
  const size_t chunks = std::min<size_t>(shape.sectors, size_t{ThreadPool::global().size()} * 4);
  std::vector<r1cs::CircuitCounts> parts(chunks);
  std::mutex mu;
  size_t done = 0;
  ThreadPool::global().parallel_for(chunks, [&](size_t k) {
    const size_t begin = shape.sectors * k / chunks, end = shape.sectors * (k + 1) / chunks;
    parts[k] = count_sectors(w, begin, end);
    if (progress) {
      const std::lock_guard<std::mutex> lock(mu);
      done += end - begin;
      progress(done, shape.sectors);
    }
  });
  r1cs::CircuitCounts c;  // inputs = 1: ONE
  for (const r1cs::CircuitCounts& p : parts) {
    c.constraints += p.constraints;
    c.inputs += p.inputs - 1;
    c.aux += p.aux;
    c.nnz_a += p.nnz_a;
    c.nnz_b += p.nnz_b;
    c.nnz_c += p.nnz_c;
  }
  // The parts were counted before finalize: add the Groth16 input constraints
  // (CountingCS::finalize) here, one row and one A entry per input.
  const uint64_t constraints = c.constraints;
  c.constraints += c.inputs;
  c.nnz_a += c.inputs;
  PostCircuitInfo info{circuit_size(constraints, c, t0), shape};
  return info;
}

}  // namespace cuzk::filecoin
