#pragma once
// ProvingCS: full synthesis, the "old path". Keeps the assignment and evaluates each constraint's
// three LCs on it as the constraint is stated, producing the vectors a = A·z, b = B·z, c = C·z
// directly (as bellperson's ProvingAssignment does). Kept for comparison with the PCE path and as
// its fallback.
#include <vector>

#include "r1cs/assignment_cs.hpp"

namespace cuzk::r1cs {

class ProvingCS : public AssignmentCS<ProvingCS> {
 public:
  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("ProvingCS: enforce after finalize()");
    auto value = [this](Variable v) -> const Fr& { return value_of(v); };
    a_.push_back(std::forward<AFn>(a_fn)(LinearCombination{}).evaluate(value));
    b_.push_back(std::forward<BFn>(b_fn)(LinearCombination{}).evaluate(value));
    c_.push_back(std::forward<CFn>(c_fn)(LinearCombination{}).evaluate(value));
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
  const std::vector<Fr>& a() const { return a_; }
  const std::vector<Fr>& b() const { return b_; }
  const std::vector<Fr>& c() const { return c_; }

 private:
  const Fr& value_of(Variable v) const {
    const std::vector<Fr>& vec = v.is_input() ? inputs_ : aux_;
    if (v.index() >= vec.size()) throw SynthesisError("ProvingCS: constraint uses an unallocated variable");
    return vec[v.index()];
  }

  std::vector<Fr> a_, b_, c_;
  bool finalized_ = false;
};

}  // namespace cuzk::r1cs
