#pragma once
// ProvingCS: full synthesis, the "old path". Keeps the assignment and evaluates each constraint's
// three LCs on it as the constraint is stated, producing the vectors a = A·z, b = B·z, c = C·z
// directly (as bellperson's ProvingAssignment does). Kept for comparison with the PCE path and as
// its fallback.
//
// With density tracking on, it also records the density bitmaps the prover needs (bellperson's
// DensityTrackers; pce.hpp): A over aux, B over inputs and aux, a bit set when the variable's
// merged coefficient in that row is non-zero -- the same rule RecordingCS applies when it merges
// repeated variables, so the bitmaps equal the Pce's.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "r1cs/assignment_cs.hpp"

namespace cuzk::r1cs {

class ProvingCS : public AssignmentCS<ProvingCS> {
 public:
  ProvingCS() = default;
  explicit ProvingCS(bool track_density) : track_density_(track_density) {}

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("ProvingCS: enforce after finalize()");
    auto value = [this](Variable v) -> const Fr& { return value_of(v); };
    const LinearCombination a = std::forward<AFn>(a_fn)(LinearCombination{});
    const LinearCombination b = std::forward<BFn>(b_fn)(LinearCombination{});
    a_.push_back(a.evaluate(value));
    b_.push_back(b.evaluate(value));
    c_.push_back(std::forward<CFn>(c_fn)(LinearCombination{}).evaluate(value));
    if (track_density_) {
      mark(a, /*inputs=*/nullptr, &a_aux_density_);
      mark(b, &b_input_density_, &b_aux_density_);
    }
  }

  // The Groth16 input constraints (A = input_i, B = 0, C = 0 for every input, ONE included), as
  // bellperson's prover appends them after synthesis; see RecordingCS::finalize.
  void finalize() {
    if (finalized_) throw SynthesisError("ProvingCS: finalize() called twice");
    for (const Fr& x : inputs_) {
      a_.push_back(x);
      b_.push_back(Fr::zero());
      c_.push_back(Fr::zero());
    }
    finalized_ = true;
  }

  size_t num_constraints() const { return a_.size(); }
  // The density bitmaps (64-bit words, sized for num_inputs / num_aux); empty unless tracking.
  std::vector<uint64_t> a_aux_density() const { return sized(a_aux_density_, num_aux()); }
  std::vector<uint64_t> b_input_density() const { return sized(b_input_density_, num_inputs()); }
  std::vector<uint64_t> b_aux_density() const { return sized(b_aux_density_, num_aux()); }
  // Moves a, b, c out (the prover consumes them).
  std::vector<Fr> take_a() { return std::move(a_); }
  std::vector<Fr> take_b() { return std::move(b_); }
  std::vector<Fr> take_c() { return std::move(c_); }
  const std::vector<Fr>& a() const { return a_; }
  const std::vector<Fr>& b() const { return b_; }
  const std::vector<Fr>& c() const { return c_; }

 private:
  const Fr& value_of(Variable v) const {
    const std::vector<Fr>& vec = v.is_input() ? inputs_ : aux_;
    if (v.index() >= vec.size()) throw SynthesisError("ProvingCS: constraint uses an unallocated variable");
    return vec[v.index()];
  }

  static void set_bit(std::vector<uint64_t>& words, uint32_t i) {
    if (words.size() <= i / 64) words.resize(i / 64 + 1, 0);
    words[i / 64] |= uint64_t{1} << (i % 64);
  }

  // Marks the variables whose merged coefficient in `lc` is non-zero.
  void mark(const LinearCombination& lc, std::vector<uint64_t>* inputs, std::vector<uint64_t>* aux) {
    const auto& terms = lc.terms();
    auto set = [&](Variable v) {
      if (v.is_input()) {
        if (inputs) set_bit(*inputs, v.index());
      } else {
        set_bit(*aux, v.index());
      }
    };
    if (terms.size() == 1) {
      if (!terms[0].coeff.is_zero()) set(terms[0].var);
      return;
    }
    scratch_.assign(terms.begin(), terms.end());
    auto key = [](Variable v) { return (uint64_t{v.is_aux()} << 32) | v.index(); };
    std::sort(scratch_.begin(), scratch_.end(), [&](const Term& x, const Term& y) { return key(x.var) < key(y.var); });
    for (size_t i = 0; i < scratch_.size();) {
      const Variable v = scratch_[i].var;
      Fr sum = scratch_[i].coeff;
      for (++i; i < scratch_.size() && scratch_[i].var == v; ++i) sum += scratch_[i].coeff;
      if (!sum.is_zero()) set(v);
    }
  }

  std::vector<uint64_t> sized(std::vector<uint64_t> words, size_t bits) const {
    if (!track_density_) return {};
    words.resize((bits + 63) / 64, 0);
    return words;
  }

  std::vector<Fr> a_, b_, c_;
  bool finalized_ = false;
  bool track_density_ = false;
  std::vector<uint64_t> a_aux_density_, b_input_density_, b_aux_density_;
  std::vector<Term> scratch_;
};

}  // namespace cuzk::r1cs
