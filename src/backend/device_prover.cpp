#include "backend/device_prover.hpp"

#include <stdexcept>
#include <utility>

#include "util/stopwatch.hpp"

namespace cuzk::backend {

namespace {

template <class T>
const T& witness_of(const WitnessRef& w, const char* convention) {
  if (const T* v = std::get_if<T>(&w)) return *v;
  throw std::invalid_argument(std::string("a ") + convention + " prover was given a witness of the other convention");
}

class CpuPceProver final : public DeviceProver {
 public:
  CpuPceProver(const groth16::ProvingKey& pk, const pce::Pce& pce, ThreadPool* pool)
      : pk_(pk), pce_(pce), shape_(groth16::CircuitShape::of(pce)), pool_(pool) {
    groth16::validate_key(pk_, shape_);
  }
  std::string name() const override { return "cpu"; }
  StageMsms stage1(const WitnessRef& wr, groth16::ProveTimings* t) override {
    const groth16::Witness& w = witness_of<groth16::Witness>(wr, "bellperson");
    const groth16::ProverOptions opt{.pool = pool_};
    groth16::ProverInput in = groth16::make_prover_input(pce_, w.inputs, w.aux, t, opt);
    return groth16::prove_stage1(pk_, shape_, std::move(in), t, opt);
  }

 private:
  const groth16::ProvingKey& pk_;
  const pce::Pce& pce_;
  groth16::CircuitShape shape_;
  ThreadPool* pool_;
};

class CpuZkeyProver final : public DeviceProver {
 public:
  explicit CpuZkeyProver(const groth16::Zkey& zkey) : zkey_(zkey) {}
  std::string name() const override { return "cpu"; }
  StageMsms stage1(const WitnessRef& wr, groth16::ProveTimings* t) override {
    return groth16::zkey_msms(zkey_, witness_of<FullWitness>(wr, "snarkjs").w, t);
  }

 private:
  const groth16::Zkey& zkey_;
};

}  // namespace

groth16::Proof finalize(const FinalizeKey& key, const StageMsms& msms, const Fr& r, const Fr& s,
                        groth16::ProveTimings* timings) {
  if (auto* vk = std::get_if<const groth16::VerifyingKey*>(&key)) {
    if (auto* m = std::get_if<groth16::ProofMsms>(&msms)) return groth16::prove_finalize(**vk, *m, r, s, timings);
  } else if (auto* m = std::get_if<groth16::ZkeyMsms>(&msms)) {
    Stopwatch sw;
    groth16::Proof proof = groth16::zkey_finalize(*std::get<const groth16::Zkey*>(key), *m, r, s);
    if (timings) timings->finalize_s += sw.lap();
    return proof;
  }
  throw std::invalid_argument("finalize: the MSM sums and the key are of different Groth16 conventions");
}

std::unique_ptr<DeviceProver> make_cpu_prover(const groth16::ProvingKey& pk, const pce::Pce& pce, ThreadPool* pool) {
  return std::make_unique<CpuPceProver>(pk, pce, pool);
}

std::unique_ptr<DeviceProver> make_cpu_prover(const groth16::Zkey& zkey) {
  return std::make_unique<CpuZkeyProver>(zkey);
}

}  // namespace cuzk::backend
