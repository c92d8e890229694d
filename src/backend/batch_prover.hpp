#pragma once
// Proofs of one circuit's witnesses, as the CLI makes them: the device stages through a Placement
// of its own under the retry policy (witness i starts on device i % n, one host thread per device),
// the CPU prover made from the in-memory key as the policy's CPU rung, finalize on the CPU. The
// daemon uses the same Placement and policy stage by stage (engine/partition_work.hpp).
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backend/placement.hpp"
#include "backend/retry_policy.hpp"

namespace cuzk::backend {

class BatchProver {
 public:
  // A bellperson key and its circuit's Pce (both outlive the prover); a key that does not fit the
  // Pce is std::invalid_argument, whatever the backend. The devices' provers are built now.
  BatchProver(const groth16::ProvingKey& pk, const pce::Pce& pce, const PlacementOptions& options,
              PlacementSetup setup = {});
  // A snarkjs zkey (outlives the prover).
  BatchProver(const groth16::Zkey& zkey, const PlacementOptions& options, PlacementSetup setup = {});
  ~BatchProver();

  std::string name() const;  // "cpu", "gpu:0", "gpu:0+gpu:1"
  // One proof per witness, in order; r.size() == s.size() == ws.size(). `reports`, when given,
  // receives where each stage ran. Timings: the device stages of the slowest device's share (wall
  // clock is not additive across devices), plus every finalize.
  std::vector<groth16::Proof> prove_many(std::span<const WitnessRef> ws, std::span<const Fr> r, std::span<const Fr> s,
                                         groth16::ProveTimings* timings = nullptr,
                                         std::vector<StageReport>* reports = nullptr);
  // The same for bellperson witnesses.
  std::vector<groth16::Proof> prove_many(std::span<const groth16::Witness> ws, std::span<const Fr> r,
                                         std::span<const Fr> s, groth16::ProveTimings* timings = nullptr,
                                         std::vector<StageReport>* reports = nullptr);
  Placement& placement() { return placement_; }

 private:
  void warm();
  StageMsms on_cpu(const WitnessRef& w, groth16::ProveTimings* timings);

  const groth16::ProvingKey* pk_ = nullptr;
  const pce::Pce* pce_ = nullptr;
  const groth16::Zkey* zkey_ = nullptr;
  std::unique_ptr<groth16::MemoryKeySource> source_;
  CircuitKey key_;
  FinalizeKey finalize_key_;
  Placement placement_;
  std::mutex cpu_mu_;  // one CPU proof at a time (it uses the whole pool)
  std::unique_ptr<DeviceProver> cpu_;
};

}  // namespace cuzk::backend
