#pragma once
// Variables and linear combinations over Fr, the vocabulary in which circuits state constraints.
//
// Numbering follows bellperson: input 0 is the constant ONE; input k is the k-th alloc_input and aux
// j the j-th alloc, counted per kind, so inputs and aux may be allocated in any interleaving.
#include <cstdint>
#include <utility>
#include <vector>

#include "ff/bls12_381.hpp"

namespace cuzk::r1cs {

using Fr = ff::Fr;

class Variable {
 public:
  enum class Kind : uint8_t { Input, Aux };

  constexpr Variable() = default;
  static constexpr Variable input(uint32_t i) { return Variable(Kind::Input, i); }
  static constexpr Variable aux(uint32_t i) { return Variable(Kind::Aux, i); }
  static constexpr Variable one() { return input(0); }

  constexpr Kind kind() const { return kind_; }
  constexpr bool is_input() const { return kind_ == Kind::Input; }
  constexpr bool is_aux() const { return kind_ == Kind::Aux; }
  constexpr uint32_t index() const { return index_; }
  friend constexpr bool operator==(const Variable&, const Variable&) = default;

 private:
  constexpr Variable(Kind k, uint32_t i) : kind_(k), index_(i) {}
  Kind kind_ = Kind::Input;
  uint32_t index_ = 0;
};

// coeff * var. A coefficient of exactly one is the fast form: `lc + var` stores it without a
// multiplication, and evaluation adds the value without one.
struct Term {
  Variable var;
  Fr coeff = Fr::one();
};

inline Term operator*(const Fr& c, Variable v) {
  return Term{v, c};
}
inline Term operator*(Variable v, const Fr& c) {
  return Term{v, c};
}

class LinearCombination {
 public:
  LinearCombination() = default;
  LinearCombination(Variable v) { terms_.push_back(Term{v, Fr::one()}); }  // NOLINT(google-explicit-constructor)
  LinearCombination(const Term& t) { terms_.push_back(t); }                // NOLINT(google-explicit-constructor)

  static LinearCombination zero() { return {}; }

  const std::vector<Term>& terms() const { return terms_; }
  size_t size() const { return terms_.size(); }
  bool empty() const { return terms_.empty(); }

  // Adding terms. Duplicated variables are allowed; every backend treats the LC as the sum of its
  // terms (RecordingCS merges them into one column entry).
  LinearCombination& add(Variable v) {
    terms_.push_back(Term{v, Fr::one()});
    return *this;
  }
  LinearCombination& sub(Variable v) {
    terms_.push_back(Term{v, -Fr::one()});
    return *this;
  }
  LinearCombination& add(const Fr& c, Variable v) {
    terms_.push_back(Term{v, c});
    return *this;
  }
  LinearCombination& add(const LinearCombination& o) {
    terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
    return *this;
  }
  LinearCombination& sub(const LinearCombination& o) {
    terms_.reserve(terms_.size() + o.terms_.size());
    for (const Term& t : o.terms_) terms_.push_back(Term{t.var, -t.coeff});
    return *this;
  }
  // this += c * o
  LinearCombination& add_scaled(const Fr& c, const LinearCombination& o) {
    terms_.reserve(terms_.size() + o.terms_.size());
    for (const Term& t : o.terms_) terms_.push_back(Term{t.var, c * t.coeff});
    return *this;
  }
  LinearCombination& scale(const Fr& c) {
    for (Term& t : terms_) t.coeff *= c;
    return *this;
  }

  LinearCombination& operator+=(Variable v) { return add(v); }
  LinearCombination& operator-=(Variable v) { return sub(v); }
  LinearCombination& operator+=(const Term& t) { return add(t.coeff, t.var); }
  LinearCombination& operator-=(const Term& t) { return add(-t.coeff, t.var); }
  LinearCombination& operator+=(const LinearCombination& o) { return add(o); }
  LinearCombination& operator-=(const LinearCombination& o) { return sub(o); }
  LinearCombination& operator*=(const Fr& c) { return scale(c); }

  // Value semantics on rvalues so that `lc + a - b + c * d` builds in place.
  friend LinearCombination operator+(LinearCombination lc, Variable v) { return std::move(lc.add(v)); }
  friend LinearCombination operator-(LinearCombination lc, Variable v) { return std::move(lc.sub(v)); }
  friend LinearCombination operator+(LinearCombination lc, const Term& t) { return std::move(lc += t); }
  friend LinearCombination operator-(LinearCombination lc, const Term& t) { return std::move(lc -= t); }
  friend LinearCombination operator+(LinearCombination lc, const LinearCombination& o) { return std::move(lc.add(o)); }
  friend LinearCombination operator-(LinearCombination lc, const LinearCombination& o) { return std::move(lc.sub(o)); }
  friend LinearCombination operator*(LinearCombination lc, const Fr& c) { return std::move(lc.scale(c)); }
  friend LinearCombination operator*(const Fr& c, LinearCombination lc) { return std::move(lc.scale(c)); }

  // Sum of coeff * value over the terms; `value(Variable)` gives a variable's assignment.
  template <class ValueOf>
  Fr evaluate(const ValueOf& value) const {
    Fr acc = Fr::zero();
    for (const Term& t : terms_) {
      if (t.coeff.is_one()) {
        acc += value(t.var);
      } else {
        acc += t.coeff * value(t.var);
      }
    }
    return acc;
  }

 private:
  std::vector<Term> terms_;
};

}  // namespace cuzk::r1cs
