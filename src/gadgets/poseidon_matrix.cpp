#include "gadgets/poseidon_matrix.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace cuzk::gadgets {

FrMatrix FrMatrix::identity(size_t n) {
  FrMatrix m(n);
  for (size_t i = 0; i < n; ++i) m.at(i, i) = Fr::one();
  return m;
}

FrMatrix mat_mul(const FrMatrix& a, const FrMatrix& b) {
  if (a.size() != b.size()) throw std::invalid_argument("mat_mul: size mismatch");
  const size_t n = a.size();
  FrMatrix r(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n; ++k) {
      const Fr& aik = a.at(i, k);
      for (size_t j = 0; j < n; ++j) r.at(i, j) += aik * b.at(k, j);
    }
  }
  return r;
}

std::vector<Fr> apply_matrix(const FrMatrix& m, std::span<const Fr> v) {
  if (m.size() != v.size()) throw std::invalid_argument("apply: matrix and vector sizes differ");
  const size_t n = m.size();
  std::vector<Fr> out(n, Fr::zero());
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) out[j] += m.at(i, j) * v[i];
  }
  return out;
}

FrMatrix minor(const FrMatrix& m, size_t i, size_t j) {
  const size_t n = m.size();
  if (n == 0 || i >= n || j >= n) throw std::invalid_argument("minor: index out of range");
  FrMatrix r(n - 1);
  for (size_t a = 0, ra = 0; a < n; ++a) {
    if (a == i) continue;
    for (size_t b = 0, rb = 0; b < n; ++b) {
      if (b == j) continue;
      r.at(ra, rb++) = m.at(a, b);
    }
    ++ra;
  }
  return r;
}

FrMatrix transpose(const FrMatrix& m) {
  FrMatrix r(m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = 0; j < m.size(); ++j) r.at(j, i) = m.at(i, j);
  }
  return r;
}

FrMatrix invert(const FrMatrix& m) {
  const size_t n = m.size();
  FrMatrix a = m;
  FrMatrix inv = FrMatrix::identity(n);
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    while (pivot < n && a.at(pivot, col).is_zero()) ++pivot;
    if (pivot == n)
      throw std::invalid_argument("invert: singular " + std::to_string(n) + "x" + std::to_string(n) + " matrix");
    if (pivot != col) {
      for (size_t j = 0; j < n; ++j) {
        std::swap(a.at(pivot, j), a.at(col, j));
        std::swap(inv.at(pivot, j), inv.at(col, j));
      }
    }
    const Fr s = a.at(col, col).inverse();
    for (size_t j = 0; j < n; ++j) {
      a.at(col, j) *= s;
      inv.at(col, j) *= s;
    }
    for (size_t r = 0; r < n; ++r) {
      if (r == col || a.at(r, col).is_zero()) continue;
      const Fr f = a.at(r, col);
      for (size_t j = 0; j < n; ++j) {
        a.at(r, j) -= f * a.at(col, j);
        inv.at(r, j) -= f * inv.at(col, j);
      }
    }
  }
  return inv;
}

bool is_identity(const FrMatrix& m) {
  return m == FrMatrix::identity(m.size());
}

}  // namespace cuzk::gadgets
