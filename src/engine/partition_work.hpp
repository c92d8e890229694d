#pragma once
// The work of one partition, stage by stage, apart from the scheduling around it:
//   synthesize   witness (built-in circuit code, or the request's .wtns) and a, b, c (PCE MatVec,
//                or full synthesis while the circuit has no PCE yet);
//   device stage H and the large MSMs (a backend::DeviceProver of the circuit's convention, on a
//                GPU through the shared backend::Placement and retry policy, or on the CPU);
//   finalize     the randomizers and the proof's assembly (backend::finalize).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "backend/placement.hpp"
#include "backend/retry_policy.hpp"
#include "engine/circuit_registry.hpp"
#include "engine/pce_cache.hpp"
#include "engine/srs_manager.hpp"
#include "engine/vanilla_partitions.hpp"
#include "groth16/prover.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

using ec::Fr;

// What a job proves with, resolved once per job.
struct CircuitRuntime {
  CircuitDef def;
  SrsHandle srs;
  PceHandle pce;  // null: full synthesis (built-ins before extraction) or a zkey circuit
  std::shared_ptr<const groth16::CircuitShape> shape;  // the Pce's, computed once (null without one)
};

// A runtime whose shape is taken from the Pce once, rather than per partition.
std::shared_ptr<const CircuitRuntime> make_runtime(CircuitDef def, SrsHandle srs, PceHandle pce);

// A partition's input as the request gave it: a witness seed (built-ins) or a full witness z.
struct PartitionPayload {
  uint64_t witness_seed = 0;
  std::vector<Fr> z;  // ONE first
  // Filecoin kinds: the request's decoded partitions, shared by them, and this partition's index.
  std::shared_ptr<const VanillaPartitions> vanilla;
  uint32_t partition = 0;
};

// What synthesis made of a partition, one type per path (the device stage dispatches on it):
// a PCE circuit's witness, A·z, B·z, C·z still to compute (a GPU does it from its resident PCE;
// on the CPU the device stage runs MatVec first);
struct PceWitness {
  std::vector<Fr> inputs, aux;  // ONE first / aux
};
// the witness with A·z, B·z, C·z (MatVec on the CPU, or full synthesis, which also gives the shape);
struct Evaluated {
  std::vector<Fr> inputs, aux;
  std::vector<Fr> a, b, c;
  std::shared_ptr<const groth16::CircuitShape> shape;
};
// a zkey circuit's full witness (the device stage gives the snarkjs-convention sums).
struct ZkeyWitness {
  std::vector<Fr> z;
};

enum class SynthesisPath { Pce, FullSynthesis, Zkey };
const char* path_name(SynthesisPath path);  // "pce", "full_synthesis", "zkey" (the metric's label)

struct Synthesized {
  std::variant<PceWitness, Evaluated, ZkeyWitness> work;
  SynthesisPath path = SynthesisPath::Pce;
  std::string public_inputs;  // 32-byte little-endian values without ONE
};

// The bytes of the buffers a synthesized partition holds (its witness, and a, b, c when evaluated).
uint64_t held_bytes(const Synthesized& s);

// The device stage's sums, in the circuit's convention.
struct DeviceStageOut {
  backend::StageMsms msms;
};

// The witness length a circuit expects (num_inputs + num_aux, or the zkey's nVars), when the
// runtime knows it.
std::optional<uint64_t> witness_length(const CircuitRuntime& rt);
// The one witness-length check, made once per witness: at submit when the circuit's keys are
// loaded, else when the job's are. Empty when witness `index` has `want` values, else why not.
std::string witness_length_error(size_t index, uint64_t have, uint64_t want, const std::string& circuit_id);

// Host bytes a partition holds at its peak: with its device stage on the CPU the witness, a/b/c
// grown to the domain, H and MSM scratch; on a GPU (device_on_gpu: bellperson circuits with a
// PCE, zkey circuits) only what stays on the host: the witness and the CPU G2 MSM's digits (a
// zkey's a, b, c too, computed on the CPU). At 32 GiB: 23.4 GB vs 6.3 GB.
uint64_t partition_bytes(const CircuitRuntime& rt, uint64_t num_constraints_hint, bool device_on_gpu = false);
// The same from the counts: constraints, witness length (inputs + aux); `zkey` for snarkjs
// circuits, `full_synthesis` for a bellperson circuit without a PCE.
uint64_t partition_bytes(uint64_t num_constraints, uint64_t vars, bool device_on_gpu, bool zkey, bool full_synthesis);
// Whether device_stage_on would run this circuit's partitions on a GPU of `gpus` (barring errors).
bool device_stage_on_gpu(const backend::Placement& gpus, const CircuitRuntime& rt);
// The circuit's key as the placement builds its device provers: the bellperson key's source (the
// file, streamed, unless the host holds a copy) with its PCE, or the zkey; srs and pce held.
backend::CircuitKey circuit_key(const std::string& circuit, const SrsHandle& srs, const PceHandle& pce);

// Throws std::invalid_argument (a bad witness) or std::runtime_error. matvec = false leaves a, b, c
// to the device stage (a GPU computes them from its resident PCE) when the PCE path is taken.
// A .wtns payload's length was checked before (at submit, or when the job's keys were loaded).
Synthesized synthesize(const CircuitRuntime& rt, PartitionPayload payload, ThreadPool& pool, bool matvec = true);
// The device stage on the CPU (MatVec first when synthesize left it out).
DeviceStageOut device_stage(const CircuitRuntime& rt, Synthesized s, ThreadPool& pool, groth16::ProveTimings* timings);

// The device stage on GPU `slot` of `gpus` (bellperson circuits with a PCE, and zkey circuits;
// full-synthesis partitions, and every partition when there are no devices, on the CPU) under the
// shared retry policy (backend/retry_policy.hpp: one retry after a device error, on the next device
// or the CPU; the CPU when the circuit does not fit, unless gpus.backend = "gpu").
// `before_cpu`, when given, runs before the stage falls back to the CPU (the engine reserves the
// memory the CPU path needs beyond the GPU path's there; it may throw to fail the partition).
// `timings`, when given, gets the stage's parts (every attempt's, when one was retried).
// `s` is read in place on a GPU (the caller frees it, off the critical path) and consumed on the CPU.
DeviceStageOut device_stage_on(backend::Placement& gpus, size_t slot, const CircuitRuntime& rt, Synthesized& s,
                               ThreadPool& pool, backend::StageReport* report,
                               const std::function<void()>& before_cpu = {}, groth16::ProveTimings* timings = nullptr);
// A Filecoin kind: checks a partition's proof against the public inputs a verifier derives (PoRep:
// from C1 alone, challenges and parents included). Empty when it verifies, else why not.
std::string verify_vanilla_partition(const CircuitRuntime& rt, const VanillaPartitions& vanilla, uint32_t partition,
                                     const std::string& proof);
// Any other circuit: checks a partition's proof against the public inputs its witness carried
// (`public_inputs`: 32-byte little-endian values without ONE). Empty when it verifies, else why not.
std::string verify_partition(const CircuitRuntime& rt, const std::string& public_inputs, const std::string& proof);
// Encodes the 192-byte proof.
std::string finalize_stage(const CircuitRuntime& rt, const DeviceStageOut& d, groth16::ProveTimings* timings);

}  // namespace cuzk::engine
