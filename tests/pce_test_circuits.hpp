#pragma once
// The example circuits live in src/circuits/example_circuits.hpp; tests know them as pce_test::.
#include "circuits/example_circuits.hpp"

namespace cuzk {
namespace pce_test = circuits;
}  // namespace cuzk
