#pragma once
// Field elements in a circuit, with the R1CS of bellpepper-core's gadgets/num.rs.
//
// AllocatedNum is one variable with its (optional) value. Num is a linear combination with its
// value, for sums that need no constraint of their own (bit packing).
#include <optional>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"

namespace cuzk::gadgets {

class AllocatedNum {
 public:
  AllocatedNum() = default;
  AllocatedNum(Variable var, std::optional<Fr> value) : var_(var), value_(value) {}

  Variable var() const { return var_; }
  const std::optional<Fr>& value() const { return value_; }

  // "num": one aux variable, no constraint.
  template <ConstraintSystem CS>
  static AllocatedNum alloc(CS& cs, std::optional<Fr> value) {
    Variable v = cs.alloc([] { return "num"; }, [&] { return value; });
    return {v, value};
  }
  // "input num": one input variable, no constraint.
  template <ConstraintSystem CS>
  static AllocatedNum alloc_input(CS& cs, std::optional<Fr> value) {
    Variable v = cs.alloc_input([] { return "input num"; }, [&] { return value; });
    return {v, value};
  }

  // Exposes the value as a new public input: input * ONE = var.
  template <ConstraintSystem CS>
  void inputize(CS& cs) const {
    Variable input = cs.alloc_input([] { return "input variable"; }, [&] { return value_; });
    cs.enforce([] { return "enforce input is correct"; }, [&](LC lc) { return lc + input; },
               [](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + var_; });
  }

  // Non-strict little-endian decomposition: 255 bits ("bit i", LSB first, each an AllocatedBit),
  // then "unpacking constraint" 0 * 0 = sum 2^i bit_i - var. No range check, so a value and its
  // congruent 255-bit twin both satisfy it (bellpepper's to_bits_le; Filecoin relies on exactly
  // this cost: 255 aux, 256 constraints).
  template <ConstraintSystem CS>
  std::vector<Boolean> to_bits_le(CS& cs) const {
    std::vector<bool> known;
    if (value_) known = fr_to_bits_le(*value_);
    std::vector<AllocatedBit> bits;
    bits.reserve(kFrNumBits);
    for (size_t i = 0; i < kFrNumBits; ++i) {
      auto ns = cs.namespace_([&] { return "bit " + std::to_string(i); });
      bits.push_back(AllocatedBit::alloc(cs, value_ ? std::optional<bool>(known[i]) : std::nullopt));
    }
    cs.enforce([] { return "unpacking constraint"; }, [](LC lc) { return lc; }, [](LC lc) { return lc; },
               [&](LC lc) {
                 Fr coeff = Fr::one();
                 for (const AllocatedBit& b : bits) {
                   lc.add(coeff, b.var);
                   coeff = coeff + coeff;
                 }
                 return lc - var_;
               });
    return {bits.begin(), bits.end()};
  }

  // "sum num": (a + b) * ONE = sum.
  template <ConstraintSystem CS>
  AllocatedNum add(CS& cs, const AllocatedNum& other) const {
    std::optional<Fr> v;
    if (value_ && other.value_) v = *value_ + *other.value_;
    Variable r = cs.alloc([] { return "sum num"; }, [&] { return v; });
    cs.enforce([] { return "addition constraint"; }, [&](LC lc) { return lc + var_ + other.var_; },
               [](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + r; });
    return {r, v};
  }
  // "product num": a * b = ab.
  template <ConstraintSystem CS>
  AllocatedNum mul(CS& cs, const AllocatedNum& other) const {
    std::optional<Fr> v;
    if (value_ && other.value_) v = *value_ * *other.value_;
    Variable r = cs.alloc([] { return "product num"; }, [&] { return v; });
    cs.enforce([] { return "multiplication constraint"; }, [&](LC lc) { return lc + var_; },
               [&](LC lc) { return lc + other.var_; }, [&](LC lc) { return lc + r; });
    return {r, v};
  }
  // "squared num": a * a = aa.
  template <ConstraintSystem CS>
  AllocatedNum square(CS& cs) const {
    std::optional<Fr> v;
    if (value_) v = value_->square();
    Variable r = cs.alloc([] { return "squared num"; }, [&] { return v; });
    cs.enforce([] { return "squaring constraint"; }, [&](LC lc) { return lc + var_; }, [&](LC lc) { return lc + var_; },
               [&](LC lc) { return lc + r; });
    return {r, v};
  }

 private:
  Variable var_{};
  std::optional<Fr> value_;
};

// A linear combination and its value; starts at zero (value known).
class Num {
 public:
  std::optional<Fr> value() const { return known_ ? std::optional<Fr>(value_) : std::nullopt; }
  const LC& lc() const { return lc_; }

  // this += coeff * bit (bellpepper's add_bool_with_coeff: the value is unknown as soon as one
  // bit's is).
  void add_bool_with_coeff(Variable one, const Boolean& bit, const Fr& coeff) {
    const std::optional<bool> b = bit.value();
    if (known_ && b) {
      if (*b) value_ += coeff;
    } else {
      known_ = false;
    }
    bit.add_to_lc(lc_, one, coeff);
  }

 private:
  // The value, meaningful only while known_ (a plain pair rather than an optional: GCC 12's
  // -Wmaybe-uninitialized misfires on the optional's payload once pack_into_inputs is inlined).
  Fr value_ = Fr::zero();
  bool known_ = true;
  LC lc_;
};

}  // namespace cuzk::gadgets
