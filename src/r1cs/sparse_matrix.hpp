#pragma once
// Full-value sparse matrices: the plain reference form of an R1CS (one Fr per non-zero), used for
// reference products and tests. Production paths use CompactR1cs and the PCE.
#include <cstdint>
#include <span>
#include <vector>

#include "r1cs/linear_combination.hpp"

namespace cuzk::r1cs {

// Compressed sparse rows; row r holds entries [row_ptr[r], row_ptr[r+1]) with strictly increasing
// columns and non-zero values.
struct SparseMatrix {
  std::vector<uint64_t> row_ptr{0};
  std::vector<uint32_t> col;
  std::vector<Fr> val;

  size_t rows() const { return row_ptr.size() - 1; }
  size_t nnz() const { return col.size(); }
};

// Unified columns: inputs first (ONE is column 0), then aux: column(aux j) = num_inputs + j.
struct R1cs {
  size_t num_inputs = 0;  // including ONE
  size_t num_aux = 0;
  size_t num_constraints = 0;  // rows, including the input constraints once finalized
  SparseMatrix a, b, c;
};

// Reference product M * z (one Fr per row); z = inputs then aux.
inline std::vector<Fr> mul_vec(const SparseMatrix& m, std::span<const Fr> z) {
  std::vector<Fr> out(m.rows());
  for (size_t r = 0; r < m.rows(); ++r) {
    Fr acc = Fr::zero();
    for (uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      const Fr& v = z[m.col[k]];
      acc += m.val[k].is_one() ? v : m.val[k] * v;
    }
    out[r] = acc;
  }
  return out;
}

}  // namespace cuzk::r1cs
