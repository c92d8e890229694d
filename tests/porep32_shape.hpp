#pragma once
// The 32 GiB PoRep partition's sizes, for the plans of the device provers (no device needed):
// 130,278,541 constraints + 328 input constraints, 328 inputs (ONE included), 130,169,893 aux
// (docs/porep-c2.md); the key's sections as the TEST-ONLY setup writes them (h = m - 1, a = inputs
// + |A aux|, b = |B inputs| + |B aux|); the PCE's sections from its nnz and a 64-entry dictionary.
#include <cstdint>

#include "groth16/gpu/streamed_plan.hpp"
#include "groth16/key_source.hpp"
#include "pce/pce.hpp"

namespace cuzk::test {

inline constexpr uint64_t kGiB = uint64_t{1} << 30;

inline groth16::KeySizes porep32_key() {
  return {.ic = 328, .h = 134217727, .l = 130169893, .a = 129753620, .b_g1 = 33112282, .b_g2 = 33112282};
}

inline gpu::StreamedShape porep32_shape() {
  pce::PceInfo info;
  info.num_inputs = 328;
  info.num_aux = 130169893;
  info.num_constraints = 130278869;
  info.nnz = {309405051, 130327340, 282656500};
  info.dict_size = 64;
  uint64_t bytes = 0;
  for (uint64_t b : info.section_bytes()) bytes += b;
  return {info.num_inputs, info.num_aux, info.num_constraints, bytes};
}

}  // namespace cuzk::test
