#pragma once
// Equality of two recorded circuits, matrix by matrix (the parallel and replicated recordings of
// the Filecoin circuits are checked against the sequential one with it).
#include <gtest/gtest.h>

#include <utility>

#include "r1cs/compact_r1cs.hpp"

namespace cuzk::test {

inline void expect_same_matrices(const r1cs::CompactR1cs& par, const r1cs::CompactR1cs& seq) {
  EXPECT_EQ(par.num_inputs, seq.num_inputs);
  EXPECT_EQ(par.num_aux, seq.num_aux);
  EXPECT_EQ(par.num_constraints, seq.num_constraints);
  EXPECT_EQ(par.coeffs, seq.coeffs);
  for (auto [p, s] : {std::pair{&par.a, &seq.a}, std::pair{&par.b, &seq.b}, std::pair{&par.c, &seq.c}}) {
    EXPECT_EQ(p->row_ptr, s->row_ptr);
    EXPECT_EQ(p->col, s->col);
    EXPECT_EQ(p->coeff, s->coeff);
  }
}

}  // namespace cuzk::test
