#pragma once
// storage-proofs-core src/gadgets/constraint.rs: equality of two numbers as one constraint.
#include "gadgets/num.hpp"

namespace cuzk::gadgets {

// a * ONE = b.
template <ConstraintSystem CS, class NameFn>
void enforce_equal_nums(CS& cs, NameFn&& name, const AllocatedNum& a, const AllocatedNum& b) {
  cs.enforce(
      std::forward<NameFn>(name), [&](LC lc) { return lc + a.var(); }, [](LC lc) { return lc + CS::one(); },
      [&](LC lc) { return lc + b.var(); });
}

}  // namespace cuzk::gadgets
