#pragma once
// WitnessCS: computes the assignment only (input and aux vectors). Names are never built and
// enforce is an empty inline template, so a_fn/b_fn/c_fn are never called and no LC is built:
// witness generation costs only the value computations (see bench/bench_r1cs.cpp).
#include "r1cs/assignment_cs.hpp"

namespace cuzk::r1cs {

class WitnessCS : public AssignmentCS<WitnessCS> {
 public:
  template <class NameFn, class AFn, class BFn, class CFn>
  void enforce(NameFn&&, AFn&&, BFn&&, CFn&&) {}
  void finalize() {}  // the input constraints carry no witness data
};

template <>
inline constexpr bool kCsReadsLinearCombinations<WitnessCS> = false;

}  // namespace cuzk::r1cs
