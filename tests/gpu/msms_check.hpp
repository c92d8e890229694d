#pragma once
// What the GPU provers' tests compare against: the CPU's device-stage sums for a built-in
// circuit's witness, and an equality check of two sets of sums, MSM by MSM.
#include <gtest/gtest.h>

#include <utility>

#include "../builtin_fixture.hpp"
#include "groth16/prover.hpp"

namespace cuzk::test {

inline groth16::ProofMsms cpu_stage1(const BuiltinFixture& f, const circuits::BuiltinWitness& w) {
  groth16::ProverInput in = groth16::make_prover_input(f.pce, w.inputs, w.aux);
  return groth16::prove_stage1(f.pk, f.pce, std::move(in));
}

inline void expect_same_msms(const groth16::ProofMsms& got, const groth16::ProofMsms& want) {
  EXPECT_EQ(got.h.to_affine(), want.h.to_affine()) << "msm h";
  EXPECT_EQ(got.l.to_affine(), want.l.to_affine()) << "msm l";
  EXPECT_EQ(got.a.to_affine(), want.a.to_affine()) << "msm a";
  EXPECT_EQ(got.b_g1.to_affine(), want.b_g1.to_affine()) << "msm b_g1";
  EXPECT_EQ(got.b_g2.to_affine(), want.b_g2.to_affine()) << "msm b_g2";
}

}  // namespace cuzk::test
