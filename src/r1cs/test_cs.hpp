#pragma once
// TestCS: for tests of circuits. Keeps names, values and constraints; checks every constraint and
// reports the first unsatisfied one by its full namespaced path ("outer/inner/name", as bellpepper's
// TestConstraintSystem). A repeated path is an error, as there.
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class TestCS : public CsBase<TestCS> {
 public:
  struct Constraint {
    std::string path;
    LinearCombination a, b, c;
  };

  TestCS() {
    inputs_.push_back(Fr::one());
    input_names_.push_back("ONE");
    paths_.insert("ONE");
  }

  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
    std::string path = claim(detail::name_of(std::forward<NameFn>(name_fn)));
    aux_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return path; }));
    aux_names_.push_back(std::move(path));
    return Variable::aux(static_cast<uint32_t>(aux_.size() - 1));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
    std::string path = claim(detail::name_of(std::forward<NameFn>(name_fn)));
    inputs_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return path; }));
    input_names_.push_back(std::move(path));
    return Variable::input(static_cast<uint32_t>(inputs_.size() - 1));
  }

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("TestCS: enforce after finalize()");
    std::string path = claim(detail::name_of(std::forward<NameFn>(name_fn)));
    Constraint k{std::move(path), std::forward<AFn>(a_fn)(LinearCombination{}),
                 std::forward<BFn>(b_fn)(LinearCombination{}), std::forward<CFn>(c_fn)(LinearCombination{})};
    for (const LinearCombination* lc : {&k.a, &k.b, &k.c}) {
      for (const Term& t : lc->terms()) {
        const size_t n = t.var.is_input() ? inputs_.size() : aux_.size();
        if (t.var.index() >= n)
          throw SynthesisError("TestCS: constraint '" + k.path + "' uses an unallocated variable");
      }
    }
    constraints_.push_back(std::move(k));
  }

  template <class NameFn>
  void push_namespace(NameFn&& name_fn) {
    std::string name = detail::name_of(std::forward<NameFn>(name_fn));
    if (name.find('/') != std::string::npos) throw SynthesisError("TestCS: namespace name '" + name + "' contains '/'");
    namespaces_.push_back(std::move(name));
  }
  void pop_namespace() {
    if (namespaces_.empty()) throw SynthesisError("TestCS: pop_namespace without push_namespace");
    namespaces_.pop_back();
  }

  // Appends the Groth16 input constraints (A = input_i, B = 0, C = 0 for every input, ONE
  // included; see RecordingCS::finalize), named "input constraint <i>" at the root. Circuit counts
  // before finalize() match bellpepper's TestConstraintSystem, which excludes them.
  void finalize() {
    if (finalized_) throw SynthesisError("TestCS: finalize() called twice");
    if (!namespaces_.empty()) throw SynthesisError("TestCS: finalize() inside namespace '" + current_path() + "'");
    for (size_t i = 0; i < inputs_.size(); ++i) {
      constraints_.push_back(Constraint{claim("input constraint " + std::to_string(i)),
                                        LinearCombination(Variable::input(static_cast<uint32_t>(i))),
                                        {},
                                        {}});
    }
    finalized_ = true;
  }

  // The path of the first constraint with A·z * B·z != C·z, or nullopt if all hold.
  std::optional<std::string> which_is_unsatisfied() const {
    auto value = [this](Variable v) -> const Fr& { return value_of(v); };
    for (const Constraint& k : constraints_) {
      if (k.a.evaluate(value) * k.b.evaluate(value) != k.c.evaluate(value)) return k.path;
    }
    return std::nullopt;
  }
  bool is_satisfied() const { return !which_is_unsatisfied().has_value(); }

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_aux() const { return aux_.size(); }
  size_t num_constraints() const { return constraints_.size(); }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  const std::string& name_of(Variable v) const {
    return v.is_input() ? input_names_.at(v.index()) : aux_names_.at(v.index());
  }
  const Fr& value_of(Variable v) const { return v.is_input() ? inputs_.at(v.index()) : aux_.at(v.index()); }
  // Changes a value after synthesis (to test that a circuit rejects a bad witness).
  void set_value(Variable v, const Fr& x) { (v.is_input() ? inputs_.at(v.index()) : aux_.at(v.index())) = x; }

 private:
  std::string current_path() const {
    std::string p;
    for (const std::string& ns : namespaces_) {
      if (!p.empty()) p += '/';
      p += ns;
    }
    return p;
  }
  std::string claim(const std::string& name) {
    if (name.find('/') != std::string::npos) throw SynthesisError("TestCS: name '" + name + "' contains '/'");
    std::string path = current_path();
    if (!path.empty()) path += '/';
    path += name;
    if (!paths_.insert(path).second) throw SynthesisError("TestCS: name '" + path + "' is used twice");
    return path;
  }

  std::vector<Fr> inputs_, aux_;
  std::vector<std::string> input_names_, aux_names_;
  std::vector<Constraint> constraints_;
  std::vector<std::string> namespaces_;
  std::unordered_set<std::string> paths_;
  bool finalized_ = false;
};

}  // namespace cuzk::r1cs
