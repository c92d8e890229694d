#pragma once
// The one interface of a Groth16 device stage (MatVec or a·b, H and the five MSMs), for both
// conventions: bellperson keys over a Pce, and snarkjs .zkey files. A DeviceProver is built for one
// key; it takes that convention's witness and returns that convention's MSM sums, which finalize()
// turns into the proof on the CPU. Implementations: the CPU (make_cpu_prover) and, in CUDA builds,
// one GPU (the platform's, device_platform.hpp). Where a stage runs and what happens when a device
// fails is not the prover's business: placement.hpp and retry_policy.hpp.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>

#include "groth16/key_source.hpp"
#include "groth16/keys.hpp"
#include "groth16/prove_timings.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/zkey.hpp"
#include "pce/pce.hpp"
#include "util/device_error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::backend {

using groth16::Fr;

// A key a prover is built from. Bellperson: the bases as `key` delivers them (a .params file
// streamed window by window, or a key in memory) and the circuit's Pce; snarkjs: the zkey.
struct PceKey {
  const groth16::KeySource* key = nullptr;
  const pce::Pce* pce = nullptr;
};
struct ZkeyKey {
  const groth16::Zkey* zkey = nullptr;
};
using ProverKey = std::variant<PceKey, ZkeyKey>;

// One proof's witness: bellperson's inputs (ONE first) and aux, or snarkjs's w (w_0 = 1).
struct FullWitness {
  std::span<const Fr> w;
};
using WitnessRef = std::variant<groth16::Witness, FullWitness>;

// What a device stage hands to finalize.
using StageMsms = std::variant<groth16::ProofMsms, groth16::ZkeyMsms>;

// What finalize needs: the vk (bellperson) or the zkey.
using FinalizeKey = std::variant<const groth16::VerifyingKey*, const groth16::Zkey*>;

// The proof from a stage's sums and the randomizers (groth16::prove_finalize or zkey_finalize;
// finalize_s added to `timings`). A key of the other convention is std::invalid_argument.
groth16::Proof finalize(const FinalizeKey& key, const StageMsms& msms, const Fr& r, const Fr& s,
                        groth16::ProveTimings* timings = nullptr);

// Holds host memory reserved for a device prover (the pinned copy of a streamed key) for as long
// as the prover lives; the daemon's memory budget hands these out (null: no accounting).
using HostReservation = std::shared_ptr<void>;
// Reserves `bytes` of host memory for the key `key_id` (one reservation per key, however many
// provers share its copy); throws DeviceMemoryShort when the host has no room for it.
using HostReserver = std::function<HostReservation(const std::string& key_id, uint64_t bytes)>;

// How a device prover is fit into its device's memory (the placement's fit ladder lowers these).
struct FitOptions {
  bool b_g2_on_gpu = true;            // false: the G2 MSM on the CPU, overlapping the device's G1 MSMs
  unsigned msm_table_bits = 0;        // precomputed MSM window tables of this width (0: none)
  unsigned witness_slots = 1;         // witnesses a GPU prover takes at once (2: uploads overlap kernels)
  bool overlap_h = false;             // H beside the l, a, b_g1 MSMs (gpu::GpuProverOptions::overlap_h)
  ThreadPool* pool = nullptr;         // CPU work (the CPU G2 MSM); null: ThreadPool::global()
  unsigned test_inject_failures = 0;  // test hook: the prover's first N stages fail (DeviceFailure)
  // Device bytes a prover may take (gpus.memory_limit); 0: what the device has free.
  uint64_t memory_limit = 0;
  // The streamed prover (gpu::GpuStreamedProver: the key's bases in pinned host memory, crossing
  // to the device chunk by chunk under memory_limit) instead of the resident one: the ladder's
  // last rung before the CPU.
  bool streamed = false;
  HostReserver reserve_host = {};  // the streamed key's pinned copy (null: not accounted)
};

class DeviceProver {
 public:
  virtual ~DeviceProver() = default;
  virtual std::string name() const = 0;  // "cpu", "gpu:0"
  // Device memory the prover keeps resident (bases, PCE, buffers); 0 on the CPU.
  virtual uint64_t device_bytes() const { return 0; }
  // How many stage1 calls may run at once from different threads (the prover orders their device
  // work itself); 1: one at a time, the caller serializes.
  virtual unsigned concurrency() const { return 1; }
  // The device stage of one witness of the prover's convention (validated against its circuit:
  // std::invalid_argument). Throws DeviceFailure on a device error. Thread-safe only up to
  // concurrency() calls at once.
  virtual StageMsms stage1(const WitnessRef& w, groth16::ProveTimings* timings = nullptr) = 0;
};

// The CPU's prover of each convention; the key (and Pce) must outlive it. A bellperson key that
// does not fit the Pce is std::invalid_argument.
std::unique_ptr<DeviceProver> make_cpu_prover(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                              ThreadPool* pool = nullptr);
// The zkey prover runs on ThreadPool::global().
std::unique_ptr<DeviceProver> make_cpu_prover(const groth16::Zkey& zkey);

}  // namespace cuzk::backend
