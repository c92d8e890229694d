#pragma once
// A built-in circuit ready to prove (tests of the prover backends): its PCE, TEST-ONLY keys from
// groth16::setup and witnesses by seed; built once per name for the whole test binary.
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "circuits/builtin.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "pce/build.hpp"
#include "util/rng.hpp"

namespace cuzk::test {

struct BuiltinFixture {
  circuits::BuiltinSpec spec;
  pce::Pce pce;
  groth16::ProvingKey pk;

  circuits::BuiltinWitness witness(uint64_t seed) const { return circuits::witness_builtin(spec, seed); }
  bool verifies(const groth16::Proof& proof, const circuits::BuiltinWitness& w) const {
    const auto ok = groth16::verify(groth16::prepare(pk.vk), proof, std::span<const ec::Fr>(w.inputs).subspan(1));
    return ok && ok.value();
  }
};

// "chain:2^10", "filecoin-like:2^12", ...
inline const BuiltinFixture& builtin_fixture(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<BuiltinFixture>> cache;
  const std::lock_guard lock(mu);
  auto& slot = cache[name];
  if (!slot) {
    auto spec = circuits::parse_builtin(name);
    if (!spec) throw std::invalid_argument(spec.error());
    auto f = std::make_unique<BuiltinFixture>();
    f->spec = *spec;
    f->pce = pce::build_pce(circuits::record_builtin(*spec));
    f->pk = groth16::setup(f->pce, groth16::ToxicWaste::from_seed(11));
    slot = std::move(f);
  }
  return *slot;
}

inline std::pair<ec::Fr, ec::Fr> fixed_rs(uint64_t seed) {
  Xoshiro256 rng(seed);
  const ec::Fr r = ec::Fr::random(rng);
  return {r, ec::Fr::random(rng)};
}

}  // namespace cuzk::test
