#pragma once
// WitnessCS: computes the assignment only (input and aux vectors). Names are never built and
// enforce is an empty inline template, so a_fn/b_fn/c_fn are never called and no LC is built:
// witness generation costs only the value computations (see bench/bench_r1cs.cpp).
#include <string>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class WitnessCS : public CsBase<WitnessCS> {
 public:
  WitnessCS() { inputs_.push_back(Fr::one()); }  // ONE is input 0

  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
    // The name is built only if the value is missing, for the error message.
    aux_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return detail::name_of(name_fn); }));
    return Variable::aux(static_cast<uint32_t>(aux_.size() - 1));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
    inputs_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return detail::name_of(name_fn); }));
    return Variable::input(static_cast<uint32_t>(inputs_.size() - 1));
  }

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&&, BFn&&, CFn&&) {}

  template <class NameFn>
  void push_namespace(NameFn&&) {}
  void pop_namespace() {}
  void finalize() {}  // the input constraints carry no witness data

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_aux() const { return aux_.size(); }
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  std::vector<Fr>& inputs() { return inputs_; }
  std::vector<Fr>& aux() { return aux_; }

  // z = inputs then aux, the vector the matrices of RecordingCS multiply.
  std::vector<Fr> z() const {
    std::vector<Fr> z(inputs_);
    z.insert(z.end(), aux_.begin(), aux_.end());
    return z;
  }

 private:
  std::vector<Fr> inputs_;
  std::vector<Fr> aux_;
};

}  // namespace cuzk::r1cs
