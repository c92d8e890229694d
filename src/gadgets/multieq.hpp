#pragma once
// MultiEq (bellperson src/gadgets/multieq.rs): batches several equalities lhs_k = rhs_k of small
// bit width into one constraint, (sum_k 2^off_k lhs_k) * ONE = sum_k 2^off_k rhs_k, where off_k is
// the running bit count. Sound because each side of each equality is below 2^nbits, so the packed
// sums cannot wrap while the total width stays under Fr's capacity (254 bits).
//
// It is itself a constraint system (it forwards to the wrapped one), so that gadgets such as
// UInt32::addmany can be handed the MultiEq and reach its accumulator, as bellperson's
// `cs.get_root()` does.
//
// The pending batch is emitted ("multieq <n>") when the next equality would reach the capacity,
// and once more when the MultiEq ends. bellperson emits that last one on Drop; here finish() does
// it explicitly, and the destructor calls finish() if nobody did (not while an exception unwinds:
// the circuit is abandoned then anyway). The position of that final constraint is part of the
// R1CS, so circuits should call finish() where bellperson's MultiEq goes out of scope.
#include <exception>
#include <string>

#include "gadgets/field_bits.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

template <r1cs::ConstraintSystem CS>
class MultiEq : public r1cs::CsBase<MultiEq<CS>> {
 public:
  explicit MultiEq(CS& cs) : cs_(&cs), uncaught_(std::uncaught_exceptions()) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;
  ~MultiEq() {
    // A throw from here would terminate; enforce only throws on programming errors (a repeated
    // name under TestCS, over 2^31 variables), which is acceptable to treat as fatal.
    if (std::uncaught_exceptions() == uncaught_) finish();
  }

  // Adds lhs = rhs (both below 2^num_bits) to the batch, first emitting the batch if it would
  // reach Fr's capacity. Under a backend that never reads LCs only the bit count is kept (so that
  // num_flushed() still says where the batches end); callers may then pass empty LCs.
  void enforce_equal(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs) {
    if (kFrCapacity <= bits_used_ + num_bits) accumulate();
    if (kFrCapacity <= bits_used_ + num_bits) throw r1cs::SynthesisError("MultiEq: equality wider than Fr capacity");
    if constexpr (!r1cs::kCsReadsLinearCombinations<CS>) {
      bits_used_ += num_bits;
      return;
    }
    const Fr coeff = pow2(bits_used_);
    lhs_.add_scaled(coeff, lhs);
    rhs_.add_scaled(coeff, rhs);
    bits_used_ += num_bits;
  }

  // Emits the pending batch, if any (bellperson's Drop).
  void finish() {
    if (bits_used_ > 0) accumulate();
  }
  size_t num_flushed() const { return ops_; }

  // The ConstraintSystem interface, forwarded.
  static constexpr r1cs::Variable one() { return CS::one(); }
  template <class NameFn, class ValueFn>
  r1cs::Variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
    return cs_->alloc(std::forward<NameFn>(name_fn), std::forward<ValueFn>(value_fn));
  }
  template <class NameFn, class ValueFn>
  r1cs::Variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
    return cs_->alloc_input(std::forward<NameFn>(name_fn), std::forward<ValueFn>(value_fn));
  }
  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
    cs_->enforce(std::forward<NameFn>(name_fn), std::forward<AFn>(a_fn), std::forward<BFn>(b_fn),
                 std::forward<CFn>(c_fn));
  }
  template <class NameFn>
  void push_namespace(NameFn&& name_fn) {
    cs_->push_namespace(std::forward<NameFn>(name_fn));
  }
  void pop_namespace() { cs_->pop_namespace(); }
  // Finalizing is the outer circuit's business; a MultiEq only lives inside a gadget.
  void finalize() { throw r1cs::SynthesisError("MultiEq: finalize() belongs to the outer constraint system"); }
  size_t num_inputs() const { return cs_->num_inputs(); }
  size_t num_aux() const { return cs_->num_aux(); }

 private:
  void accumulate() {
    const size_t ops = ops_;
    cs_->enforce([&] { return "multieq " + std::to_string(ops); }, [&](r1cs::LC) { return std::move(lhs_); },
                 [](r1cs::LC lc) { return lc + CS::one(); }, [&](r1cs::LC) { return std::move(rhs_); });
    lhs_ = r1cs::LC{};
    rhs_ = r1cs::LC{};
    bits_used_ = 0;
    ++ops_;
  }

  CS* cs_;
  int uncaught_;
  size_t ops_ = 0;
  size_t bits_used_ = 0;
  r1cs::LC lhs_, rhs_;
};

}  // namespace cuzk::gadgets

namespace cuzk::r1cs {

// A MultiEq reads LCs exactly when the backend it forwards to does.
template <class CS>
inline constexpr bool kCsReadsLinearCombinations<gadgets::MultiEq<CS>> = kCsReadsLinearCombinations<CS>;

}  // namespace cuzk::r1cs
