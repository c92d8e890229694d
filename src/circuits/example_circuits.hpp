#pragma once
// Example circuits (tests, benchmarks, and the built-in circuits of src/circuits/builtin.hpp),
// written once against the ConstraintSystem concept so that the same code yields the structure
// (RecordingCS) and the full-synthesis vectors (ProvingCS). Every circuit is satisfied. Witness values are computed
// eagerly, outside the value callables, so that a random stream is consumed the same way whether or not the backend
// asks for values (RecordingCS never does).
#include <cstdint>
#include <vector>

#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace cuzk::circuits {

using r1cs::ConstraintSystem;
using r1cs::Fr;
using r1cs::LC;
using r1cs::Variable;

inline Fr fr(uint64_t x) {
  return Fr::from_u64(x);
}

// 0, 1, -1 or a uniform value, one in four each: the values MatVec special-cases, and the rest.
inline Fr mixed_value(Xoshiro256& rng) {
  switch (rng() % 4) {
    case 0:
      return Fr::zero();
    case 1:
      return Fr::one();
    case 2:
      return -Fr::one();
    default:
      return Fr::random(rng);
  }
}

struct Bit {
  Variable var;
  bool value;
};
struct Num {
  Variable var;
  Fr value;
};

// x^3 + x + 5 = out, out public.
template <ConstraintSystem CS>
void cubic(CS& cs, const Fr& x) {
  auto ns = cs.namespace_([] { return "cubic"; });
  const Fr x2v = x.square(), x3v = x2v * x, outv = x3v + x + fr(5);
  Variable vx = cs.alloc([] { return "x"; }, [&] { return x; });
  Variable x2 = cs.alloc([] { return "x2"; }, [&] { return x2v; });
  cs.enforce([] { return "x2"; }, [&](LC lc) { return lc + vx; }, [&](LC lc) { return lc + vx; },
             [&](LC lc) { return lc + x2; });
  Variable x3 = cs.alloc([] { return "x3"; }, [&] { return x3v; });
  cs.enforce([] { return "x3"; }, [&](LC lc) { return lc + x2; }, [&](LC lc) { return lc + vx; },
             [&](LC lc) { return lc + x3; });
  Variable out = cs.alloc_input([] { return "out"; }, [&] { return outv; });
  cs.enforce([] { return "out"; }, [&](LC lc) { return lc + x3 + vx + fr(5) * CS::one(); },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + out; });
}

// bellperson's AllocatedBit: (1 - b) * b = 0.
template <ConstraintSystem CS>
Bit alloc_bit(CS& cs, bool v) {
  Variable b = cs.alloc([] { return "bit"; }, [&] { return v ? Fr::one() : Fr::zero(); });
  cs.enforce([] { return "boolean"; }, [&](LC lc) { return lc + CS::one() - b; }, [&](LC lc) { return lc + b; },
             [](LC lc) { return lc; });
  return {b, v};
}

template <ConstraintSystem CS>
std::vector<Bit> alloc_word(CS& cs, uint64_t v, unsigned n) {
  std::vector<Bit> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(alloc_bit(cs, (v >> i) & 1));
  return out;
}

// num = sum 2^i bit_i, stated as (sum 2^i bit_i) * ONE = num; num is public when `input`.
template <ConstraintSystem CS>
Num pack(CS& cs, const std::vector<Bit>& bits, bool input) {
  Fr value = Fr::zero(), coeff = Fr::one();
  for (const Bit& b : bits) {
    if (b.value) value += coeff;
    coeff = coeff.dbl();
  }
  auto val = [&] { return value; };
  Variable num = input ? cs.alloc_input([] { return "packed"; }, val) : cs.alloc([] { return "packed"; }, val);
  cs.enforce([] { return "pack"; },
             [&](LC lc) {
               Fr c = Fr::one();
               for (const Bit& b : bits) {
                 lc += c * b.var;
                 c = c.dbl();
               }
               return lc;
             },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + num; });
  return {num, value};
}

// c = a XOR b as bellperson states it: (2a) * b = a + b - c.
template <ConstraintSystem CS>
Bit xor_bit(CS& cs, const Bit& a, const Bit& b) {
  const bool v = a.value != b.value;
  Variable c = cs.alloc([] { return "xor"; }, [&] { return v ? Fr::one() : Fr::zero(); });
  cs.enforce([] { return "xor"; }, [&](LC lc) { return lc + fr(2) * a.var; }, [&](LC lc) { return lc + b.var; },
             [&](LC lc) { return lc + a.var + b.var - c; });
  return {c, v};
}

template <ConstraintSystem CS>
Bit and_bit(CS& cs, const Bit& a, const Bit& b) {
  const bool v = a.value && b.value;
  Variable c = cs.alloc([] { return "and"; }, [&] { return v ? Fr::one() : Fr::zero(); });
  cs.enforce([] { return "and"; }, [&](LC lc) { return lc + a.var; }, [&](LC lc) { return lc + b.var; },
             [&](LC lc) { return lc + c; });
  return {c, v};
}

// r = x + y mod 2^n as UInt32::addmany states it: n + 1 boolean result bits and one row
// (sum 2^i x_i + sum 2^i y_i - sum 2^i r_i) * ONE = 0, coefficients ±2^i.
template <ConstraintSystem CS>
std::vector<Bit> add_words(CS& cs, const std::vector<Bit>& x, const std::vector<Bit>& y) {
  uint64_t xv = 0, yv = 0;
  for (size_t i = 0; i < x.size(); ++i) xv |= uint64_t{x[i].value} << i;
  for (size_t i = 0; i < y.size(); ++i) yv |= uint64_t{y[i].value} << i;
  std::vector<Bit> r = alloc_word(cs, xv + yv, static_cast<unsigned>(x.size() + 1));
  cs.enforce([] { return "add"; },
             [&](LC lc) {
               Fr c = Fr::one();
               for (size_t i = 0; i < r.size(); ++i) {
                 if (i < x.size()) lc += c * x[i].var;
                 if (i < y.size()) lc += c * y[i].var;
                 lc -= c * r[i].var;
                 c = c.dbl();
               }
               return lc;
             },
             [&](LC lc) { return lc + CS::one(); }, [](LC lc) { return lc; });
  r.pop_back();
  return r;
}

// A Poseidon-flavoured row: (sum m_j s_j) * (sum m'_j s_j) = out over `width` full field values,
// with coefficients drawn from a fixed matrix of `mds` constants (few distinct values).
template <ConstraintSystem CS>
void mix_row(CS& cs, Xoshiro256& rng, const std::vector<Num>& state, const std::vector<Fr>& mds) {
  std::vector<Fr> ca, cb;
  Fr av = Fr::zero(), bv = Fr::zero();
  for (const Num& s : state) {
    ca.push_back(mds[rng() % mds.size()]);
    cb.push_back(mds[rng() % mds.size()]);
    av += ca.back() * s.value;
    bv += cb.back() * s.value;
  }
  const Fr outv = av * bv;
  Variable out = cs.alloc([] { return "mix"; }, [&] { return outv; });
  auto lc_of = [&state](const std::vector<Fr>* c) {
    return [&state, c](LC lc) {
      for (size_t j = 0; j < state.size(); ++j) lc += (*c)[j] * state[j].var;
      return lc;
    };
  };
  cs.enforce([] { return "mix"; }, lc_of(&ca), lc_of(&cb), [&](LC lc) { return lc + out; });
}

// A Filecoin-like workload, per round: two random 32-bit words as booleans, packed (one public),
// XOR and AND bit by bit, a 32-bit addition; every `mix_every` rounds a Poseidon-like row over 12
// full field values. About 165 constraints and 600 non-zeros per round, mostly ±1 coefficients
// and 0/1 witness values; the dictionary is ±2^i and 16 constants (Dict8).
//
// The structure (coefficients) comes from `seed`, the witness values from `witness_seed`, so one
// circuit has many witnesses (the same seed for both unless given).
template <ConstraintSystem CS>
void filecoin_like(CS& cs, uint64_t seed, uint64_t witness_seed, size_t rounds, size_t mix_every) {
  Xoshiro256 rng(seed);
  Xoshiro256 wrng(witness_seed ^ 0x9E3779B97F4A7C15ull);
  std::vector<Fr> mds;
  for (int i = 0; i < 16; ++i) mds.push_back(Fr::random(rng));
  std::vector<Num> state;
  for (int i = 0; i < 12; ++i) {
    const Fr v = Fr::random(wrng);
    state.push_back({cs.alloc([] { return "state"; }, [&] { return v; }), v});
  }
  for (size_t round = 0; round < rounds; ++round) {
    auto ns = cs.namespace_([] { return "round"; });
    const uint64_t xv = wrng() & 0xFFFFFFFFu, yv = wrng() & 0xFFFFFFFFu;
    std::vector<Bit> x = alloc_word(cs, xv, 32), y = alloc_word(cs, yv, 32);
    pack(cs, x, round % 64 == 0);
    pack(cs, y, false);
    for (size_t i = 0; i < 32; ++i) {
      xor_bit(cs, x[i], y[i]);
      and_bit(cs, x[i], y[i]);
    }
    add_words(cs, x, y);
    if (mix_every != 0 && round % mix_every == 0) mix_row(cs, rng, state, mds);
  }
}

template <ConstraintSystem CS>
void filecoin_like(CS& cs, uint64_t seed, size_t rounds, size_t mix_every = 8) {
  filecoin_like(cs, seed, seed, rounds, mix_every);
}

// `rows` constraints (sum_j c_j v_j + c0 ONE) * (v_k - d ONE) = out, every c and d a fresh random
// value, so about rows * (terms + 2) distinct coefficients (> 256: Dict16; > 65536: Full). The
// variables' values mix 0, 1, -1 and random ones.
template <ConstraintSystem CS>
void random_coeffs(CS& cs, uint64_t seed, size_t rows, unsigned terms, size_t num_vars) {
  Xoshiro256 rng(seed);
  std::vector<Num> vars;
  for (size_t i = 0; i < num_vars; ++i) {
    const Fr v = mixed_value(rng);
    vars.push_back({cs.alloc([] { return "v"; }, [&] { return v; }), v});
  }
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::pair<Fr, const Num*>> a;
    Fr av = Fr::random(rng);  // c0
    const Fr c0 = av;
    for (unsigned j = 0; j < terms; ++j) {
      a.push_back({Fr::random(rng), &vars[rng() % vars.size()]});
      av += a.back().first * a.back().second->value;
    }
    const Num& k = vars[rng() % vars.size()];
    const Fr d = Fr::random(rng);
    const Fr outv = av * (k.value - d);
    Variable out = cs.alloc([] { return "out"; }, [&] { return outv; });
    cs.enforce([] { return "random"; },
               [&](LC lc) {
                 lc += c0 * CS::one();
                 for (const auto& [c, v] : a) lc += c * v->var;
                 return lc;
               },
               [&](LC lc) { return lc + k.var - d * CS::one(); }, [&](LC lc) { return lc + out; });
  }
}

// Corner cases of linear combinations: empty LCs, repeated variables that merge (x + x + x = 3x,
// x - 2x = -x), terms that cancel (x - x) or have a zero coefficient, rows on ONE only, inputs
// allocated between constraints, and values 0, 1, -1.
template <ConstraintSystem CS>
void corner_cases(CS& cs, uint64_t seed) {
  Xoshiro256 rng(seed);
  const Fr xv = Fr::random(rng), mone = -Fr::one();
  Variable x = cs.alloc([] { return "x"; }, [&] { return xv; });
  cs.enforce([] { return "0 * 0 = 0"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; }, [](LC lc) { return lc; });
  const Fr x3v = xv + xv + xv;
  Variable p = cs.alloc_input([] { return "3x"; }, [&] { return x3v; });
  cs.enforce([] { return "(x + x + x) * 1 = p"; }, [&](LC lc) { return lc + x + x + x; },
             [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + p; });
  Variable m = cs.alloc([] { return "-1"; }, [&] { return mone; });
  Variable z = cs.alloc([] { return "0"; }, [] { return Fr::zero(); });
  // (x - 2x) * m = x, with x - x + 0*m + z - z in C cancelling down to x.
  cs.enforce([] { return "-x * -1 = x"; }, [&](LC lc) { return lc + x - fr(2) * x; }, [&](LC lc) { return lc + m; },
             [&](LC lc) { return lc + x - x + x + Fr::zero() * m + z - z; });
  Variable q = cs.alloc_input([] { return "x^2"; }, [&] { return xv * xv; });
  cs.enforce([] { return "x * x = q"; }, [&](LC lc) { return lc + x; }, [&](LC lc) { return lc + x; },
             [&](LC lc) { return lc + q; });
  // Empty A and B with an LC in C that is zero on the witness: 0 * 0 = z + (m + ONE).
  cs.enforce([] { return "0 * 0 = z + m + 1"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
             [&](LC lc) { return lc + z + m + CS::one(); });
  cs.enforce([] { return "1 * 1 = 1"; }, [&](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + CS::one(); });
  // -1 * -1 = 1 through a coefficient of -1 on ONE and on m.
  cs.enforce([] { return "-1 * m = 1"; }, [&](LC lc) { return lc - CS::one(); }, [&](LC lc) { return lc + m; },
             [&](LC lc) { return lc - m; });
  Variable p2 = cs.alloc_input([] { return "0"; }, [] { return Fr::zero(); });
  cs.enforce([] { return "p2 * x = z"; }, [&](LC lc) { return lc + p2; }, [&](LC lc) { return lc + x; },
             [&](LC lc) { return lc + z; });
}

// No aux variables at all: z is inputs only.
template <ConstraintSystem CS>
void inputs_only(CS& cs, const Fr& v) {
  Variable p = cs.alloc_input([] { return "p"; }, [&] { return v; });
  cs.enforce([] { return "p * 1 = p"; }, [&](LC lc) { return lc + p; }, [&](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + p; });
}

}  // namespace cuzk::circuits
