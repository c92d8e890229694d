#pragma once
// A Filecoin request's partitions as its kind's decoder left them at submit (PoRep: the validated
// C1 output; later kinds: their vanilla proofs), shared by the job's partitions: each partition's
// witness, its full synthesis while no PCE exists, and the public inputs a verifier derives for it
// (every proof is checked against those before it is returned). A new proof kind implements this
// and a decoder (request_decoder.hpp); the stages stay as they are.
#include <cstdint>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "r1cs/proving_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

// A partition's witness: inputs (ONE first) and aux, in the circuit's allocation order.
struct PartitionAssignment {
  std::vector<ff::Fr> inputs;
  std::vector<ff::Fr> aux;
};

class VanillaPartitions {
 public:
  virtual ~VanillaPartitions() = default;
  virtual uint32_t count() const = 0;
  // `pool`: the synthesis worker's threads, for kinds that compute the witness in parallel.
  virtual PartitionAssignment assignment(uint32_t partition, ThreadPool& pool) const = 0;
  // Values, a, b, c and the densities (the path before the circuit's PCE exists).
  virtual r1cs::ProvingCS synthesize(uint32_t partition) const = 0;
  // Without ONE, derived as a verifier would (not from the witness).
  virtual std::vector<ff::Fr> verifier_inputs(uint32_t partition) const = 0;
  // Where verifier_inputs come from, for messages: "C1", "the vanilla proofs".
  virtual std::string inputs_source() const = 0;
};

}  // namespace cuzk::engine
