#pragma once
// The assignment half shared by the backends that keep witness values (WitnessCS, ProvingCS):
// inputs (ONE first) and aux, each allocated by calling its value_fn. Names are built only for the
// error message of a missing value; namespaces cost nothing.
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

template <class Derived>
class AssignmentCS : public CsBase<Derived> {
 public:
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

  template <class NameFn>
  void push_namespace(NameFn&&) {}
  void pop_namespace() {}

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

 protected:
  AssignmentCS() { inputs_.push_back(Fr::one()); }  // ONE is input 0

  std::vector<Fr> inputs_, aux_;
};

}  // namespace cuzk::r1cs
