#include "circuits/builtin.hpp"

#include <charconv>

#include "circuits/example_circuits.hpp"

namespace cuzk::circuits {

namespace {

// Constraints per round of filecoin_like with mix_every = 8: 64 booleans + 2 packs + 64 XOR/AND
// + 33 booleans + 1 addition, plus a mix row every 8 rounds.
constexpr double kFilecoinLikePerRound = 164.0 + 1.0 / 8.0;

template <ConstraintSystem CS>
void chain(CS& cs, uint64_t seed, uint64_t witness_seed, uint64_t steps) {
  Xoshiro256 rng(seed);  // the constants k_i: the structure
  Xoshiro256 wrng(witness_seed ^ 0x9E3779B97F4A7C15ull);
  Fr x = Fr::random(wrng);
  Variable vx = cs.alloc_input([] { return "x0"; }, [&] { return x; });
  for (uint64_t i = 0; i < steps; ++i) {
    const Fr k = Fr::random(rng);
    const Fr next = x * (x + Fr::one()) + k;
    Variable vn = cs.alloc([] { return "x"; }, [&] { return next; });
    cs.enforce([] { return "x' = x (x + 1) + k"; }, [&](LC lc) { return lc + vx; },
               [&](LC lc) { return lc + vx + CS::one(); }, [&](LC lc) { return lc + vn - k * CS::one(); });
    x = next;
    vx = vn;
  }
  Variable out = cs.alloc_input([] { return "x_n"; }, [&] { return x; });
  cs.enforce([] { return "out"; }, [&](LC lc) { return lc + vx; }, [&](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + out; });
}

template <ConstraintSystem CS>
void run(CS& cs, const BuiltinSpec& spec, uint64_t witness_seed) {
  if (spec.kind == "chain") {
    // steps + 1 output row + 3 input constraints (ONE, x0, x_n).
    chain(cs, spec.seed, witness_seed, spec.constraints > 4 ? spec.constraints - 4 : 1);
  } else {
    // Inputs: ONE and one packed word per 64 rounds.
    const auto rounds = static_cast<uint64_t>(static_cast<double>(spec.constraints) / kFilecoinLikePerRound);
    filecoin_like(cs, spec.seed, witness_seed, rounds == 0 ? 1 : rounds, 8);
  }
  cs.finalize();
}

}  // namespace

std::string BuiltinSpec::name() const {
  return kind + ":" + std::to_string(constraints);
}

Result<BuiltinSpec> parse_builtin(std::string_view text) {
  const auto colon = text.find(':');
  const std::string bad = "unknown built-in circuit '" + std::string(text) + "'; expected one of:\n" + builtin_help();
  if (colon == std::string_view::npos) return make_error(bad);
  BuiltinSpec spec;
  spec.kind = std::string(text.substr(0, colon));
  if (spec.kind != "filecoin-like" && spec.kind != "chain") return make_error(bad);
  std::string_view size = text.substr(colon + 1);
  uint64_t n = 0;
  if (size.starts_with("2^")) {
    unsigned k = 0;
    const auto [p, ec] = std::from_chars(size.data() + 2, size.data() + size.size(), k);
    if (ec != std::errc() || p != size.data() + size.size() || k > 28) return make_error(bad);
    n = uint64_t{1} << k;
  } else {
    const auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
    if (ec != std::errc() || p != size.data() + size.size() || n > (uint64_t{1} << 28)) return make_error(bad);
  }
  if (n < 8) return make_error("built-in circuit size must be at least 8 constraints");
  spec.constraints = n;
  return spec;
}

std::string builtin_help() {
  return "  filecoin-like:N  booleans, bit packing, XOR/AND, 32-bit additions, Poseidon-like rows "
         "(witness mostly 0/1)\n"
         "  chain:N          x' = x (x + 1) + k, one constraint per step (full-width witness)\n"
         "  N: constraints, as a number or 2^k (k <= 28)\n";
}

r1cs::CompactR1cs record_builtin(const BuiltinSpec& spec) {
  r1cs::RecordingCS cs;
  run(cs, spec, spec.seed);
  return std::move(cs).compact();
}

BuiltinWitness witness_builtin(const BuiltinSpec& spec) {
  return witness_builtin(spec, spec.seed);
}

BuiltinWitness witness_builtin(const BuiltinSpec& spec, uint64_t witness_seed) {
  r1cs::WitnessCS cs;
  run(cs, spec, witness_seed);
  return {std::move(cs.inputs()), std::move(cs.aux())};
}

r1cs::ProvingCS synthesize_builtin(const BuiltinSpec& spec, uint64_t witness_seed) {
  r1cs::ProvingCS cs(/*track_density=*/true);
  run(cs, spec, witness_seed);
  return cs;
}

}  // namespace cuzk::circuits
