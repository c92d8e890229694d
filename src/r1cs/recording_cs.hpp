#pragma once
// RecordingCS: records the structure of a circuit (no values) as three sparse matrices A, B, C over
// unified columns: inputs first (ONE is column 0), then aux, so column(aux j) = num_inputs + j.
// Coefficients are interned as they are recorded (CompactR1cs), 8 bytes per non-zero.
//
// While recording, the final number of inputs is unknown (circuits allocate inputs between
// constraints), so a row stores input columns as they are and aux columns tagged with bit 31; the
// tags are resolved to num_inputs + j only when the matrices are taken out (r1cs()).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "r1cs/compact_r1cs.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class RecordingCS : public CsBase<RecordingCS> {
 public:
  static constexpr uint32_t AUX_TAG = 0x80000000u;

  RecordingCS() = default;  // ONE is input 0
  // A segment of a larger circuit (segment_merge.hpp): numbering starts at (first_input, first_aux),
  // so that the segment may use the variables below those as already allocated.
  RecordingCS(size_t first_input, size_t first_aux) : num_inputs_(first_input), num_aux_(first_aux) {}

  template <class NameFn, class ValueFn>
  Variable alloc(NameFn&&, ValueFn&&) {
    if (num_aux_ >= AUX_TAG) throw SynthesisError("RecordingCS: more than 2^31 aux variables");
    return Variable::aux(static_cast<uint32_t>(num_aux_++));
  }
  template <class NameFn, class ValueFn>
  Variable alloc_input(NameFn&&, ValueFn&&) {
    if (num_inputs_ >= AUX_TAG) throw SynthesisError("RecordingCS: more than 2^31 inputs");
    return Variable::input(static_cast<uint32_t>(num_inputs_++));
  }

  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    if (finalized_) throw SynthesisError("RecordingCS: enforce after finalize()");
    append_row(a_, std::forward<AFn>(a_fn)(LinearCombination{}));
    append_row(b_, std::forward<BFn>(b_fn)(LinearCombination{}));
    append_row(c_, std::forward<CFn>(c_fn)(LinearCombination{}));
    ++num_constraints_;
  }

  template <class NameFn>
  void push_namespace(NameFn&&) {}
  void pop_namespace() {}

  // Appends the Groth16 input constraints: for every input i (ONE included), A = input_i, B = 0,
  // C = 0, after the circuit's own constraints. This is exactly what bellperson's prover
  // (synthesize_circuits_batch in src/groth16/prover/mod.rs: enforce(|lc| lc + Input(i), |lc| lc,
  // |lc| lc)) and its generator do; it makes the input columns of A linearly independent.
  void finalize() {
    if (finalized_) throw SynthesisError("RecordingCS: finalize() called twice");
    for (size_t i = 0; i < num_inputs_; ++i) {
      append_row(a_, LinearCombination(Variable::input(static_cast<uint32_t>(i))));
      append_row(b_, LinearCombination{});
      append_row(c_, LinearCombination{});
      ++num_constraints_;
    }
    finalized_ = true;
  }

  size_t num_inputs() const { return num_inputs_; }
  size_t num_aux() const { return num_aux_; }
  size_t num_constraints() const { return num_constraints_; }
  bool finalized() const { return finalized_; }

  // The matrices with aux columns resolved against the final input count, coefficients interned.
  CompactR1cs compact() const& {
    CompactR1cs r{num_inputs_, num_aux_, num_constraints_, interner_.values(), a_, b_, c_};
    resolve(r);
    return r;
  }
  CompactR1cs compact() && {
    CompactR1cs r{num_inputs_,   num_aux_,      num_constraints_, std::move(interner_).take(),
                  std::move(a_), std::move(b_), std::move(c_)};
    resolve(r);
    return r;
  }
  // The same with full Fr values (reference form).
  R1cs r1cs() const { return compact().expand(); }

  // The recorded rows as they are: aux columns still tagged with AUX_TAG, coefficients indexing
  // this recorder's table (num_inputs/num_aux are the counters' end values).
  CompactR1cs take_raw() && {
    return CompactR1cs{num_inputs_,   num_aux_,      num_constraints_, std::move(interner_).take(),
                       std::move(a_), std::move(b_), std::move(c_)};
  }

 private:
  static void resolve(CompactR1cs& r) {
    const uint64_t limit = uint64_t{AUX_TAG} + r.num_aux;
    if (r.num_inputs + r.num_aux > 0xFFFFFFFFull || limit > 0xFFFFFFFFull + 1) {
      throw SynthesisError("RecordingCS: more than 2^32 columns");
    }
    for (CompactMatrix* m : {&r.a, &r.b, &r.c}) {
      for (uint32_t& col : m->col) {
        if (col & AUX_TAG) col = static_cast<uint32_t>(r.num_inputs + (col & ~AUX_TAG));
      }
    }
  }

  uint32_t tagged(Variable v) const {
    if (v.is_input()) {
      if (v.index() >= num_inputs_) throw SynthesisError("RecordingCS: constraint uses an unallocated input");
      return v.index();
    }
    if (v.index() >= num_aux_) throw SynthesisError("RecordingCS: constraint uses an unallocated aux variable");
    return v.index() | AUX_TAG;
  }

  // Sorts the terms by tagged column (inputs before aux, as in the unified numbering), merges
  // repeated variables and drops zero sums.
  void append_row(CompactMatrix& m, const LinearCombination& lc) {
    scratch_.clear();
    for (const Term& t : lc.terms()) scratch_.push_back({tagged(t.var), t.coeff});
    std::sort(scratch_.begin(), scratch_.end(), [](const Entry& x, const Entry& y) { return x.col < y.col; });
    size_t i = 0;
    while (i < scratch_.size()) {
      uint32_t col = scratch_[i].col;
      Fr sum = scratch_[i].val;
      for (++i; i < scratch_.size() && scratch_[i].col == col; ++i) sum += scratch_[i].val;
      if (sum.is_zero()) continue;
      m.col.push_back(col);
      m.coeff.push_back(intern(sum));
    }
    m.row_ptr.push_back(m.col.size());
  }

  struct Entry {
    uint32_t col;
    Fr val;
  };

  size_t num_inputs_ = 1;
  size_t num_aux_ = 0;
  size_t num_constraints_ = 0;
  bool finalized_ = false;
  // ±1 are by far the most common coefficients; skip the hash lookup for them.
  uint32_t intern(const Fr& v) {
    if (v == one_) return 0;
    if (v == minus_one_) return 1;
    return interner_.intern(v);
  }

  CompactMatrix a_, b_, c_;
  CoeffInterner interner_;
  Fr one_ = Fr::one(), minus_one_ = -Fr::one();
  std::vector<Entry> scratch_;
};

}  // namespace cuzk::r1cs
