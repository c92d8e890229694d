#pragma once
// ProvingCS: full synthesis, the "old path". Keeps the assignment and evaluates each constraint's
// three LCs on it as the constraint is stated, producing the vectors a = A·z, b = B·z, c = C·z
// directly (as bellperson's ProvingAssignment does). Kept for comparison with the PCE path and as
// its fallback.
#include <string>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class ProvingCS : public CsBase<ProvingCS> {
 public:
  ProvingCS() { inputs_.push_back(Fr::one()); }  // ONE is input 0

  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
    aux_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return detail::name_of(name_fn); }));
    return Variable::aux(static_cast<uint32_t>(aux_.size() - 1));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
    inputs_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return detail::name_of(name_fn); }));
    return Variable::input(static_cast<uint32_t>(inputs_.size() - 1));
  }

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("ProvingCS: enforce after finalize()");
    auto value = [this](Variable v) -> const Fr& { return value_of(v); };
    a_.push_back(std::forward<AFn>(a_fn)(LinearCombination{}).evaluate(value));
    b_.push_back(std::forward<BFn>(b_fn)(LinearCombination{}).evaluate(value));
    c_.push_back(std::forward<CFn>(c_fn)(LinearCombination{}).evaluate(value));
  }

  template <class NameFn>
  void push_namespace(NameFn&&) {}
  void pop_namespace() {}

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

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_aux() const { return aux_.size(); }
  size_t num_constraints() const { return a_.size(); }
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  const std::vector<Fr>& a() const { return a_; }
  const std::vector<Fr>& b() const { return b_; }
  const std::vector<Fr>& c() const { return c_; }

  std::vector<Fr> z() const {
    std::vector<Fr> z(inputs_);
    z.insert(z.end(), aux_.begin(), aux_.end());
    return z;
  }

 private:
  const Fr& value_of(Variable v) const {
    const std::vector<Fr>& vec = v.is_input() ? inputs_ : aux_;
    if (v.index() >= vec.size()) throw SynthesisError("ProvingCS: constraint uses an unallocated variable");
    return vec[v.index()];
  }

  std::vector<Fr> inputs_, aux_;
  std::vector<Fr> a_, b_, c_;
  bool finalized_ = false;
};

}  // namespace cuzk::r1cs
