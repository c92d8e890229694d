#pragma once
// The ConstraintSystem concept and what every backend shares.
//
// A circuit is written once, as a template over the CS type, in bellperson's style:
//
//   template <ConstraintSystem CS>
//   void cube(CS& cs, Fr x) {
//     auto ns = cs.namespace_([] { return "cube"; });
//     Variable vx = cs.alloc([] { return "x"; }, [&] { return x; });
//     Variable vy = cs.alloc([] { return "x^2"; }, [&] { return x.square(); });
//     cs.enforce([] { return "square"; }, [&](LC lc) { return lc + vx; }, [&](LC lc) { return lc + vx; },
//                [&](LC lc) { return lc + vy; });
//   }
//
// Names, values and linear combinations are all callables, so each backend evaluates only what it
// needs: WitnessCS never builds a name or an LC, RecordingCS never computes a value.
//
// - name_fn: () -> something convertible to std::string (const char*, std::string).
// - value_fn: () -> Fr, Result<Fr> or std::optional<Fr>. An error or an empty optional makes the
//   backend throw SynthesisError naming the variable ("assignment missing").
// - a_fn, b_fn, c_fn: (LinearCombination) -> LinearCombination; each gets an empty LC.
//
// Every backend starts with ONE allocated as input 0 (bellperson's prover and generator do the same
// before calling synthesize). After synthesis, finalize() appends the Groth16 input constraints.
#include <concepts>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "r1cs/linear_combination.hpp"
#include "util/result.hpp"

namespace cuzk::r1cs {

using LC = LinearCombination;

class SynthesisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

// Archetypes for the concept: the weakest callables a circuit may pass.
struct NameArchetype {
  const char* operator()() const { return "n"; }
};
struct ValueArchetype {
  Fr operator()() const { return Fr::zero(); }
};
struct LcArchetype {
  LinearCombination operator()(LinearCombination lc) const { return lc; }
};

template <class T>
struct IsResultFr : std::false_type {};
template <>
struct IsResultFr<Result<Fr>> : std::true_type {};
template <class T>
struct IsOptionalFr : std::false_type {};
template <>
struct IsOptionalFr<std::optional<Fr>> : std::true_type {};

template <class NameFn>
std::string name_of(NameFn&& name_fn) {
  return std::string(std::forward<NameFn>(name_fn)());
}

// Calls value_fn and unwraps its result; on a missing value, throws SynthesisError whose message
// names the variable as `what()` describes it (evaluated only on that error path).
template <class ValueFn, class What>
Fr call_value(ValueFn&& value_fn, What&& what) {
  using R = std::remove_cvref_t<std::invoke_result_t<ValueFn>>;
  if constexpr (IsResultFr<R>::value) {
    R r = std::forward<ValueFn>(value_fn)();
    if (!r.ok()) throw SynthesisError("assignment missing for '" + what() + "': " + r.error());
    return std::move(r).value();
  } else if constexpr (IsOptionalFr<R>::value) {
    R r = std::forward<ValueFn>(value_fn)();
    if (!r) throw SynthesisError("assignment missing for '" + what() + "'");
    return *r;
  } else {
    static_assert(std::is_convertible_v<R, Fr>, "value_fn must return Fr, Result<Fr> or std::optional<Fr>");
    return std::forward<ValueFn>(value_fn)();
  }
}

}  // namespace detail

// Pops the namespace it pushed when it goes out of scope.
template <class CS>
class [[nodiscard]] NamespaceGuard {
 public:
  template <class NameFn>
  NamespaceGuard(CS& cs, NameFn&& name_fn) : cs_(&cs) {
    cs.push_namespace(std::forward<NameFn>(name_fn));
  }
  ~NamespaceGuard() {
    if (cs_ != nullptr) cs_->pop_namespace();
  }
  NamespaceGuard(const NamespaceGuard&) = delete;
  NamespaceGuard& operator=(const NamespaceGuard&) = delete;
  NamespaceGuard(NamespaceGuard&& o) noexcept : cs_(std::exchange(o.cs_, nullptr)) {}
  NamespaceGuard& operator=(NamespaceGuard&&) = delete;

  CS& cs() const { return *cs_; }

 private:
  CS* cs_;
};

// Mixin for the backends: namespace_(name_fn) and one().
template <class Derived>
class CsBase {
 public:
  static constexpr Variable one() { return Variable::one(); }
  template <class NameFn>
  NamespaceGuard<Derived> namespace_(NameFn&& name_fn) {
    return NamespaceGuard<Derived>(static_cast<Derived&>(*this), std::forward<NameFn>(name_fn));
  }
};

// Whether a backend ever calls the LC callables of enforce(). A backend that only records values
// (WitnessCS) specializes this to false, so that gadgets which build LCs eagerly, outside the
// enforce callables (Poseidon's Elt, UInt32::addmany's packed sums, MultiEq's batches), can skip
// that work: its result would be thrown away. Wrappers that forward to another backend (MultiEq)
// specialize it to their target's value.
template <class CS>
inline constexpr bool kCsReadsLinearCombinations = true;

template <class CS>
concept ConstraintSystem = requires(CS& cs, detail::NameArchetype name, detail::ValueArchetype value,
                                    detail::LcArchetype lc) {
  { CS::one() } -> std::same_as<Variable>;
  { cs.alloc(name, value) } -> std::same_as<Variable>;
  { cs.alloc_input(name, value) } -> std::same_as<Variable>;
  cs.enforce(name, lc, lc, lc);
  cs.push_namespace(name);
  cs.pop_namespace();
  { cs.namespace_(name) } -> std::same_as<NamespaceGuard<CS>>;
  cs.finalize();
  { cs.num_inputs() } -> std::convertible_to<size_t>;
  { cs.num_aux() } -> std::convertible_to<size_t>;
};

}  // namespace cuzk::r1cs
