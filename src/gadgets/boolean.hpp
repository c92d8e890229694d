#pragma once
// Booleans in a circuit, with exactly the R1CS of bellpepper-core's gadgets/boolean.rs (the
// version Filecoin's circuits pin): same allocation order, same constraint shapes, and the same
// constant folding, since a Groth16 proof verifies against Filecoin's parameters only if the
// circuit is identical down to which variables exist.
//
// AllocatedBit is a variable constrained to {0, 1}. Boolean is a view: the bit (Is), its negation
// (Not, free: it only changes the linear combination), or a constant (no variable at all).
// Operations on constants allocate nothing, which is part of the R1CS, not an optimisation.
//
// Values are std::optional<bool>: unknown under RecordingCS (which never asks for values), known
// under the witness backends. `xor`, `and`, `or` and `not` are C++ keywords, hence the trailing
// underscores (the convention of CsBase::namespace_).
#include <optional>
#include <stdexcept>

#include "gadgets/field_bits.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using r1cs::ConstraintSystem;
using r1cs::LC;
using r1cs::SynthesisError;
using r1cs::Variable;

namespace detail {
inline std::optional<bool> lift(std::optional<bool> a, std::optional<bool> b, bool (*f)(bool, bool)) {
  if (!a || !b) return std::nullopt;
  return f(*a, *b);
}
}  // namespace detail

struct AllocatedBit {
  Variable var;
  std::optional<bool> value;

  // "boolean"; (1 - a) * a = 0.
  template <ConstraintSystem CS>
  static AllocatedBit alloc(CS& cs, std::optional<bool> value) {
    Variable v = cs.alloc([] { return "boolean"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "boolean constraint"; }, [&](LC lc) { return lc + CS::one() - v; },
               [&](LC lc) { return lc + v; }, [](LC lc) { return lc; });
    return {v, value};
  }

  // A bit that must be false when must_be_false is true: (1 - must_be_false - a) * a = 0.
  template <ConstraintSystem CS>
  static AllocatedBit alloc_conditionally(CS& cs, std::optional<bool> value, const AllocatedBit& must_be_false) {
    Variable v = cs.alloc([] { return "boolean"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "boolean constraint"; }, [&](LC lc) { return lc + CS::one() - must_be_false.var - v; },
               [&](LC lc) { return lc + v; }, [](LC lc) { return lc; });
    return {v, value};
  }

  // c = a ^ b: (a + a) * b = a + b - c. The A side is stated as a twice, as bellpepper does; the
  // backends merge repeated variables, so it is the coefficient 2.
  template <ConstraintSystem CS>
  static AllocatedBit xor_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    const auto value = detail::lift(a.value, b.value, [](bool x, bool y) { return x != y; });
    Variable c = cs.alloc([] { return "xor result"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "xor constraint"; }, [&](LC lc) { return lc + a.var + a.var; },
               [&](LC lc) { return lc + b.var; }, [&](LC lc) { return lc + a.var + b.var - c; });
    return {c, value};
  }

  // c = a & b: a * b = c.
  template <ConstraintSystem CS>
  static AllocatedBit and_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    const auto value = detail::lift(a.value, b.value, [](bool x, bool y) { return x && y; });
    Variable c = cs.alloc([] { return "and result"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "and constraint"; }, [&](LC lc) { return lc + a.var; }, [&](LC lc) { return lc + b.var; },
               [&](LC lc) { return lc + c; });
    return {c, value};
  }

  // c = a & !b: a * (1 - b) = c.
  template <ConstraintSystem CS>
  static AllocatedBit and_not(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    const auto value = detail::lift(a.value, b.value, [](bool x, bool y) { return x && !y; });
    Variable c = cs.alloc([] { return "and not result"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "and not constraint"; }, [&](LC lc) { return lc + a.var; },
               [&](LC lc) { return lc + CS::one() - b.var; }, [&](LC lc) { return lc + c; });
    return {c, value};
  }

  // c = !a & !b: (1 - a) * (1 - b) = c.
  template <ConstraintSystem CS>
  static AllocatedBit nor(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    const auto value = detail::lift(a.value, b.value, [](bool x, bool y) { return !x && !y; });
    Variable c = cs.alloc([] { return "nor result"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "nor constraint"; }, [&](LC lc) { return lc + CS::one() - a.var; },
               [&](LC lc) { return lc + CS::one() - b.var; }, [&](LC lc) { return lc + c; });
    return {c, value};
  }
};

class Boolean {
 public:
  enum class Kind : uint8_t { Constant, Is, Not };

  Boolean() = default;                                          // Constant(false)
  Boolean(const AllocatedBit& b) : kind_(Kind::Is), bit_(b) {}  // NOLINT(google-explicit-constructor)
  static Boolean constant(bool c) {
    Boolean r;
    r.constant_ = c;
    return r;
  }
  static Boolean is(const AllocatedBit& b) { return Boolean(b); }
  static Boolean not_of(const AllocatedBit& b) {
    Boolean r(b);
    r.kind_ = Kind::Not;
    return r;
  }

  // Makes this Is(bit) or Not(bit), bit = {var, value}, by storing the fields in place. The
  // values-only paths of UInt32 use it rather than assigning a temporary Boolean: a temporary is
  // built with narrow stores and then copied with one 16-byte load, which the CPU cannot forward
  // from those stores; those stalls were most of the SHA-256 witness time.
  void set_allocated(Variable var, bool value, bool negated) {
    kind_ = negated ? Kind::Not : Kind::Is;
    bit_.var = var;
    bit_.value = value;
  }

  Kind kind() const { return kind_; }
  bool is_constant() const { return kind_ == Kind::Constant; }
  bool is_constant(bool c) const { return kind_ == Kind::Constant && constant_ == c; }
  // The underlying bit of an Is or Not.
  const AllocatedBit& bit() const {
    if (kind_ == Kind::Constant) throw std::logic_error("Boolean::bit() of a constant");
    return bit_;
  }

  std::optional<bool> value() const {
    switch (kind_) {
      case Kind::Constant:
        return constant_;
      case Kind::Is:
        return bit_.value;
      case Kind::Not:
        if (!bit_.value) return std::nullopt;
        return !*bit_.value;
    }
    return std::nullopt;
  }

  Boolean not_() const {
    switch (kind_) {
      case Kind::Constant:
        return constant(!constant_);
      case Kind::Is:
        return not_of(bit_);
      case Kind::Not:
        return is(bit_);
    }
    return *this;
  }

  // lc += coeff * this, in bellpepper's Boolean::lc term order: a true constant is coeff * ONE, a
  // false one nothing, Not(v) is coeff * ONE - coeff * v.
  void add_to_lc(LC& lc, Variable one, const Fr& coeff) const {
    switch (kind_) {
      case Kind::Constant:
        if (constant_) lc.add(coeff, one);
        break;
      case Kind::Is:
        lc.add(coeff, bit_.var);
        break;
      case Kind::Not:
        lc.add(coeff, one);
        lc.add(-coeff, bit_.var);
        break;
    }
  }
  LC lc(Variable one, const Fr& coeff) const {
    LC r;
    add_to_lc(r, one, coeff);
    return r;
  }

  // Match order as bellpepper: a false constant on either side, then a true one, then Is/Not
  // mixes (a ^ !b = !(a ^ b)), then two of a kind (!a ^ !b = a ^ b).
  template <ConstraintSystem CS>
  static Boolean xor_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false)) return b;
    if (b.is_constant(false)) return a;
    if (a.is_constant(true)) return b.not_();
    if (b.is_constant(true)) return a.not_();
    if (a.kind_ != b.kind_) {
      const Boolean& is_side = a.kind_ == Kind::Is ? a : b;
      const Boolean& not_side = a.kind_ == Kind::Is ? b : a;
      return xor_(cs, is_side, not_side.not_()).not_();
    }
    return Boolean(AllocatedBit::xor_(cs, a.bit_, b.bit_));
  }

  template <ConstraintSystem CS>
  static Boolean and_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false) || b.is_constant(false)) return constant(false);
    if (a.is_constant(true)) return b;
    if (b.is_constant(true)) return a;
    if (a.kind_ == Kind::Is && b.kind_ == Kind::Not) return Boolean(AllocatedBit::and_not(cs, a.bit_, b.bit_));
    if (a.kind_ == Kind::Not && b.kind_ == Kind::Is) return Boolean(AllocatedBit::and_not(cs, b.bit_, a.bit_));
    if (a.kind_ == Kind::Not) return Boolean(AllocatedBit::nor(cs, a.bit_, b.bit_));
    return Boolean(AllocatedBit::and_(cs, a.bit_, b.bit_));
  }

  // !( !a & !b ), inside the namespace bellpepper gives it.
  template <ConstraintSystem CS>
  static Boolean or_(CS& cs, const Boolean& a, const Boolean& b) {
    auto ns = cs.namespace_([] { return "not and (not a) (not b)"; });
    return and_(cs, a.not_(), b.not_()).not_();
  }

  // Constrains a == b with one constraint 0 * 0 = (a - b), folded against constants; two unequal
  // constants are unsatisfiable (SynthesisError, as bellpepper's Err(Unsatisfiable)).
  template <ConstraintSystem CS>
  static void enforce_equal(CS& cs, const Boolean& a, const Boolean& b) {
    const Fr one = Fr::one();
    if (a.is_constant() && b.is_constant()) {
      if (a.constant_ != b.constant_) throw SynthesisError("Boolean::enforce_equal: unequal constants");
      return;
    }
    if (a.is_constant(true) || b.is_constant(true)) {
      const Boolean& x = a.is_constant(true) ? b : a;
      cs.enforce([] { return "enforce equal to one"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
                 [&](LC lc) { return lc + CS::one() - x.lc(CS::one(), one); });
      return;
    }
    if (a.is_constant(false) || b.is_constant(false)) {
      const Boolean& x = a.is_constant(false) ? b : a;
      cs.enforce([] { return "enforce equal to zero"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
                 [&](LC) { return x.lc(CS::one(), one); });
      return;
    }
    cs.enforce([] { return "enforce equal"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
               [&](LC) { return a.lc(CS::one(), one) - b.lc(CS::one(), one); });
  }

  // (a & b) ^ (!a & c), SHA-256's choice. Folding cases in bellpepper's match order; the general
  // case is one aux and one constraint: (b - c) * a = ch - c.
  template <ConstraintSystem CS>
  static Boolean sha256_ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    std::optional<bool> value;
    if (a.value() && b.value() && c.value()) value = (*a.value() && *b.value()) != (!*a.value() && *c.value());
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(*value);
    if (a.is_constant(false)) return c;
    if (b.is_constant(false)) return and_(cs, a.not_(), c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a, b.not_()).not_();
    if (b.is_constant(true)) return and_(cs, a.not_(), c.not_()).not_();
    // a true (b, c variables) falls through to the general form, as in bellpepper.
    const Fr one = Fr::one();
    Variable ch = cs.alloc([] { return "ch"; }, [&] { return fr_from_bool(value); });
    cs.enforce([] { return "ch computation"; }, [&](LC) { return b.lc(CS::one(), one) - c.lc(CS::one(), one); },
               [&](LC) { return a.lc(CS::one(), one); }, [&](LC lc) { return lc + ch - c.lc(CS::one(), one); });
    return Boolean(AllocatedBit{ch, value});
  }

  // (a & b) ^ (a & c) ^ (b & c), SHA-256's majority. General case: maj is allocated first, then
  // bc = b & c in namespace "b and c", then (2bc - b - c) * a = bc - maj.
  template <ConstraintSystem CS>
  static Boolean sha256_maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    std::optional<bool> value;
    if (a.value() && b.value() && c.value()) {
      const bool x = *a.value(), y = *b.value(), z = *c.value();
      value = ((x && y) != (x && z)) != (y && z);
    }
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(*value);
    if (a.is_constant(false)) return and_(cs, b, c);
    if (b.is_constant(false)) return and_(cs, a, c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a.not_(), b.not_()).not_();
    if (b.is_constant(true)) return and_(cs, a.not_(), c.not_()).not_();
    if (a.is_constant(true)) return and_(cs, b.not_(), c.not_()).not_();
    const Fr one = Fr::one();
    Variable maj = cs.alloc([] { return "maj"; }, [&] { return fr_from_bool(value); });
    Boolean bc;
    {
      auto ns = cs.namespace_([] { return "b and c"; });
      bc = and_(cs, b, c);
    }
    cs.enforce(
        [] { return "maj computation"; },
        [&](LC) { return bc.lc(CS::one(), one) + bc.lc(CS::one(), one) - b.lc(CS::one(), one) - c.lc(CS::one(), one); },
        [&](LC) { return a.lc(CS::one(), one); }, [&](LC) { return bc.lc(CS::one(), one) - maj; });
    return Boolean(AllocatedBit{maj, value});
  }

 private:
  Kind kind_ = Kind::Constant;
  bool constant_ = false;
  AllocatedBit bit_{};
};

}  // namespace cuzk::gadgets
