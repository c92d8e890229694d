#pragma once
// Building a Pce from recorded matrices: picks the coefficient encoding (u8 dictionary indices for
// <= 256 distinct coefficients, u16 for <= 65536, else full values) and the row-pointer width
// (u32 when a matrix has < 2^32 non-zeros), and computes the density bitmaps.
#include <optional>
#include <string>

#include "pce/pce.hpp"
#include "r1cs/compact_r1cs.hpp"

namespace cuzk::pce {

struct BuildOptions {
  std::string circuit_id;
  // Use this encoding instead of the narrowest that fits (must be at least as wide; Full always
  // fits). Tests and the generic-MatVec benchmark use it.
  std::optional<CoeffEncoding> encoding;
  bool force_row_ptr64 = false;  // u64 row pointers even when u32 would do (tests)
};

// Throws std::invalid_argument when the matrices break CompactR1cs's invariants or the forced
// encoding cannot hold the dictionary.
Pce build_pce(const r1cs::CompactR1cs& r1cs, const BuildOptions& options = {});

// The matrices of a Pce back in CompactR1cs form (dictionary indices; full values are interned).
r1cs::CompactR1cs to_compact(const Pce& pce);

}  // namespace cuzk::pce
