#pragma once
// TestCS: for tests of circuits. Keeps names, values and constraints; checks every constraint and
// reports the first unsatisfied one by its full namespaced path ("outer/inner/name", as bellpepper's
// TestConstraintSystem). A repeated path is an error, as there.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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
    remember(claim("ONE"), Kind::Input, 0);
  }

  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
    std::string path = full_path(detail::name_of(std::forward<NameFn>(name_fn)));
    const uint64_t h = claim(path);
    aux_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return path; }));
    aux_names_.push_back(std::move(path));
    remember(h, Kind::Aux, aux_names_.size() - 1);
    return Variable::aux(static_cast<uint32_t>(aux_.size() - 1));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
    std::string path = full_path(detail::name_of(std::forward<NameFn>(name_fn)));
    const uint64_t h = claim(path);
    inputs_.push_back(detail::call_value(std::forward<ValueFn>(value_fn), [&] { return path; }));
    input_names_.push_back(std::move(path));
    remember(h, Kind::Input, input_names_.size() - 1);
    return Variable::input(static_cast<uint32_t>(inputs_.size() - 1));
  }

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("TestCS: enforce after finalize()");
    std::string path = full_path(detail::name_of(std::forward<NameFn>(name_fn)));
    const uint64_t h = claim(path);
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
    remember(h, Kind::Constraint, constraints_.size() - 1);
  }

  template <class NameFn>
  void push_namespace(NameFn&& name_fn) {
    std::string name = detail::name_of(std::forward<NameFn>(name_fn));
    if (name.find('/') != std::string::npos) throw SynthesisError("TestCS: namespace name '" + name + "' contains '/'");
    prefix_lengths_.push_back(prefix_.size());
    prefix_ += name;
    prefix_ += '/';
  }
  void pop_namespace() {
    if (prefix_lengths_.empty()) throw SynthesisError("TestCS: pop_namespace without push_namespace");
    prefix_.resize(prefix_lengths_.back());
    prefix_lengths_.pop_back();
  }

  // Appends the Groth16 input constraints (A = input_i, B = 0, C = 0 for every input, ONE
  // included; see RecordingCS::finalize), named "input constraint <i>" at the root. Circuit counts
  // before finalize() match bellpepper's TestConstraintSystem, which excludes them.
  void finalize() {
    if (finalized_) throw SynthesisError("TestCS: finalize() called twice");
    if (!prefix_lengths_.empty()) {
      throw SynthesisError("TestCS: finalize() inside namespace '" + prefix_.substr(0, prefix_.size() - 1) + "'");
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      std::string path = full_path("input constraint " + std::to_string(i));
      const uint64_t h = claim(path);
      constraints_.push_back(
          Constraint{std::move(path), LinearCombination(Variable::input(static_cast<uint32_t>(i))), {}, {}});
      remember(h, Kind::Constraint, constraints_.size() - 1);
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
  // Every path is stored once, with its variable or constraint; a flat open-addressing table of
  // (hash, where the path is stored) finds repeats. (A set of strings kept a second copy of every
  // path in its own node: for the 2.7 M-constraint PoRep circuit the hashing, allocation and cache
  // misses of that set were most of a TestCS synthesis.)
  enum class Kind : uint64_t { Input, Aux, Constraint };
  struct Slot {
    uint64_t hash = 0;
    uint64_t ref = kEmpty;  // Kind << 62 | index
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  std::string full_path(const std::string& name) const {
    if (name.find('/') != std::string::npos) throw SynthesisError("TestCS: name '" + name + "' contains '/'");
    return prefix_ + name;
  }
  const std::string& stored_path(uint64_t ref) const {
    const size_t i = ref & ((uint64_t{1} << 62) - 1);
    switch (static_cast<Kind>(ref >> 62)) {
      case Kind::Input:
        return input_names_[i];
      case Kind::Aux:
        return aux_names_[i];
      case Kind::Constraint:
        break;
    }
    return constraints_[i].path;
  }
  // The path's hash; throws if the path was claimed before.
  uint64_t claim(const std::string& path) const {
    const uint64_t h = std::hash<std::string_view>{}(path);
    if (slots_.empty()) return h;
    const size_t mask = slots_.size() - 1;
    for (size_t s = h & mask; slots_[s].ref != kEmpty; s = (s + 1) & mask) {
      if (slots_[s].hash == h && stored_path(slots_[s].ref) == path) {
        throw SynthesisError("TestCS: name '" + path + "' is used twice");
      }
    }
    return h;
  }
  // Records the path just stored as (kind, index), with the hash claim() returned.
  void remember(uint64_t h, Kind kind, size_t index) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    size_t s = h & mask;
    while (slots_[s].ref != kEmpty) s = (s + 1) & mask;
    slots_[s] = Slot{h, static_cast<uint64_t>(kind) << 62 | index};
    ++used_;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (o.ref == kEmpty) continue;
      size_t s = o.hash & mask;
      while (slots_[s].ref != kEmpty) s = (s + 1) & mask;
      slots_[s] = o;
    }
  }

  std::vector<Fr> inputs_, aux_;
  std::vector<std::string> input_names_, aux_names_;
  std::vector<Constraint> constraints_;
  std::string prefix_;                  // the namespaces joined, each followed by '/'
  std::vector<size_t> prefix_lengths_;  // prefix_'s length before each push_namespace
  std::vector<Slot> slots_;             // power-of-two size, at most half full
  size_t used_ = 0;
  bool finalized_ = false;
};

}  // namespace cuzk::r1cs
