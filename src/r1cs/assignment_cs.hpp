#pragma once
// The assignment half shared by the backends that keep witness values (WitnessCS, ProvingCS):
// inputs (ONE first) and aux, each allocated by calling its value_fn. Names are built only for the
// error message of a missing value; namespaces cost nothing.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

namespace detail {
// Reads bit k of a word as Fr::zero() / Fr::one(): a forward range that vector::insert copies
// straight into the new elements (no value-initialization first, no branch per bit).
class BitsAsFrIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Fr;
  using difference_type = std::ptrdiff_t;
  using pointer = const Fr*;
  using reference = const Fr&;

  BitsAsFrIterator() = default;
  BitsAsFrIterator(uint64_t bits, size_t k) : bits_(bits), k_(k) {}
  reference operator*() const { return kValues[(bits_ >> k_) & 1]; }
  pointer operator->() const { return &**this; }
  BitsAsFrIterator& operator++() {
    ++k_;
    return *this;
  }
  BitsAsFrIterator operator++(int) {
    BitsAsFrIterator t = *this;
    ++k_;
    return t;
  }
  bool operator==(const BitsAsFrIterator& o) const { return k_ == o.k_; }

 private:
  static constexpr std::array<Fr, 2> kValues = {Fr::zero(), Fr::one()};
  uint64_t bits_ = 0;
  size_t k_ = 0;
};
}  // namespace detail

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

  // Appends n <= 64 boolean aux values, bit k of `bits` (least significant first) as Fr::one() or
  // Fr::zero(), and returns the index of the first: the same as n allocs of those values. For
  // values-only gadgets that allocate runs of bits (gadgets/sha256_witness.hpp), where one size
  // update per run instead of one push_back per value is a measurable part of the witness time;
  // inserting a range (rather than resize, then storing the ones) writes each value once.
  uint32_t alloc_aux_bits(uint64_t bits, size_t n) {
    const size_t first = aux_.size();
    aux_.insert(aux_.end(), detail::BitsAsFrIterator(bits, 0), detail::BitsAsFrIterator(bits, n));
    return static_cast<uint32_t>(first);
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
