#pragma once
// The circuit-writing API: Variable, LinearCombination, the ConstraintSystem concept and its
// backends (RecordingCS, WitnessCS, TestCS, ProvingCS).
#include "r1cs/constraint_system.hpp"
#include "r1cs/linear_combination.hpp"
#include "r1cs/proving_cs.hpp"
#include "r1cs/recording_cs.hpp"
#include "r1cs/test_cs.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::r1cs {
static_assert(ConstraintSystem<RecordingCS>);
static_assert(ConstraintSystem<WitnessCS>);
static_assert(ConstraintSystem<TestCS>);
static_assert(ConstraintSystem<ProvingCS>);
}  // namespace cuzk::r1cs
