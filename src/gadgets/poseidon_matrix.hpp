#pragma once
// Small dense matrices over Fr for Poseidon's linear layers (MDS, its inverse, the sparse
// factorisation). Sizes are the Poseidon width t <= ~40, so plain row-major vectors suffice.
//
// Convention (neptune src/matrix.rs): `apply_matrix(m, v)` is the row-vector product v·m, i.e.
// out[j] = sum_i m[i][j] * v[i]. neptune uses it for every matrix-vector product of the hash and
// of the preprocessing, and the sparse factors are not symmetric, so this orientation is part of
// the constants. `mul` is the ordinary product a·b.
#include <cstddef>
#include <span>
#include <vector>

#include "ff/bls12_381.hpp"

namespace cuzk::gadgets {

using Fr = ff::Fr;

class FrMatrix {
 public:
  FrMatrix() = default;
  explicit FrMatrix(size_t n) : n_(n), a_(n * n, Fr::zero()) {}

  static FrMatrix identity(size_t n);

  size_t size() const { return n_; }
  Fr& at(size_t i, size_t j) { return a_[i * n_ + j]; }
  const Fr& at(size_t i, size_t j) const { return a_[i * n_ + j]; }

  friend bool operator==(const FrMatrix&, const FrMatrix&) = default;

 private:
  size_t n_ = 0;
  std::vector<Fr> a_;
};

// a·b (ordinary product).
FrMatrix mat_mul(const FrMatrix& a, const FrMatrix& b);
// v·m: out[j] = sum_i m[i][j] v[i] (neptune's apply_matrix).
std::vector<Fr> apply_matrix(const FrMatrix& m, std::span<const Fr> v);
// m with row i and column j removed.
FrMatrix minor(const FrMatrix& m, size_t i, size_t j);
FrMatrix transpose(const FrMatrix& m);
// Gauss-Jordan inverse; throws std::invalid_argument if m is singular. (The inverse is unique, so
// the elimination order need not follow neptune's.)
FrMatrix invert(const FrMatrix& m);
bool is_identity(const FrMatrix& m);

}  // namespace cuzk::gadgets
