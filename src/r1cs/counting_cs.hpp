#pragma once
// CountingCS: the sizes of a circuit without storing it: constraints, inputs, aux, and the
// non-zeros of A, B and C exactly as RecordingCS would store them (repeated variables merged, zero
// sums dropped). Memory stays constant, so the 130-million-constraint 32 GiB PoRep circuit can be
// measured on a small machine; the cost is building each LC once (~100 ns per constraint).
//
// raw_terms_* count the LC terms as written, before merging, for comparisons with tools that do
// not merge.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

struct CircuitCounts {
  uint64_t constraints = 0;  // including the input constraints once finalized
  uint64_t inputs = 1;       // ONE included
  uint64_t aux = 0;
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t raw_terms_a = 0, raw_terms_b = 0, raw_terms_c = 0;
};

class CountingCS : public CsBase<CountingCS> {
 public:
  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&&, ValueFn&&) {
    return Variable::aux(static_cast<uint32_t>(c_.aux++));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&&, ValueFn&&) {
    return Variable::input(static_cast<uint32_t>(c_.inputs++));
  }
  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("CountingCS: enforce after finalize()");
    count(std::forward<AFn>(a_fn)(LinearCombination{}), c_.nnz_a, c_.raw_terms_a);
    count(std::forward<BFn>(b_fn)(LinearCombination{}), c_.nnz_b, c_.raw_terms_b);
    count(std::forward<CFn>(c_fn)(LinearCombination{}), c_.nnz_c, c_.raw_terms_c);
    ++c_.constraints;
  }
  template <class NameFn>
  void push_namespace(NameFn&&) {}
  void pop_namespace() {}
  // The Groth16 input constraints (RecordingCS::finalize): one A entry per input.
  void finalize() {
    if (finalized_) throw SynthesisError("CountingCS: finalize() called twice");
    c_.constraints += c_.inputs;
    c_.nnz_a += c_.inputs;
    c_.raw_terms_a += c_.inputs;
    finalized_ = true;
  }
  size_t num_inputs() const { return c_.inputs; }
  size_t num_aux() const { return c_.aux; }
  size_t num_constraints() const { return c_.constraints; }
  const CircuitCounts& counts() const { return c_; }

 private:
  static uint64_t key(Variable v) { return (v.is_aux() ? uint64_t{1} << 32 : 0) | v.index(); }

  void count(const LinearCombination& lc, uint64_t& nnz, uint64_t& raw) {
    const std::vector<Term>& t = lc.terms();
    raw += t.size();
    if (t.size() <= 1) {
      nnz += (t.size() == 1 && !t[0].coeff.is_zero()) ? 1 : 0;
      return;
    }
    scratch_.clear();
    for (const Term& x : t) scratch_.push_back({key(x.var), x.coeff});
    std::sort(scratch_.begin(), scratch_.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
    for (size_t i = 0; i < scratch_.size();) {
      Fr sum = scratch_[i].coeff;
      const uint64_t k = scratch_[i].key;
      for (++i; i < scratch_.size() && scratch_[i].key == k; ++i) sum += scratch_[i].coeff;
      if (!sum.is_zero()) ++nnz;
    }
  }

  struct Entry {
    uint64_t key;
    Fr coeff;
  };
  CircuitCounts c_;
  bool finalized_ = false;
  std::vector<Entry> scratch_;
};

}  // namespace cuzk::r1cs
