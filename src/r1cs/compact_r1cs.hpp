#pragma once
// CompactR1cs: R1CS matrices whose non-zeros store a u32 index into a table of distinct
// coefficients instead of a full Fr. Filecoin circuits use a handful of distinct coefficients
// (±1, powers of two), so this is what RecordingCS keeps while a 100M-constraint circuit is
// recorded: 8 bytes per non-zero instead of 36.
//
// Invariants (as RecordingCS produces them): rows hold strictly increasing unified columns
// (inputs first, ONE at 0, then aux); every coefficient index is < coeffs.size(); coeffs holds
// distinct non-zero values with coeffs[0] = +1 and coeffs[1] = -1.
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "r1cs/sparse_matrix.hpp"
#include "util/uninit_vector.hpp"

namespace cuzk::r1cs {

// The arrays are UninitVector (util/uninit_vector.hpp): resize(n) does not zero what it adds, so
// a builder that sizes them and then fills them in parallel touches the memory only once.
struct CompactMatrix {
  UninitVector<uint64_t> row_ptr{0};
  UninitVector<uint32_t> col;
  UninitVector<uint32_t> coeff;  // index into CompactR1cs::coeffs

  size_t rows() const { return row_ptr.size() - 1; }
  size_t nnz() const { return col.size(); }
};

// Interns Fr values: the same value always gets the same index; +1 is 0 and -1 is 1.
class CoeffInterner {
 public:
  CoeffInterner() {
    intern(Fr::one());
    intern(-Fr::one());
  }
  uint32_t intern(const Fr& v) {
    auto [it, inserted] = index_.try_emplace(Key::of(v), static_cast<uint32_t>(values_.size()));
    if (inserted) values_.push_back(v);
    return it->second;
  }
  const std::vector<Fr>& values() const { return values_; }
  std::vector<Fr> take() && { return std::move(values_); }

 private:
  struct Key {
    uint64_t l[4];
    static Key of(const Fr& v) {
      Key k;
      static_assert(sizeof(Fr) == sizeof(k.l));
      std::memcpy(k.l, &v, sizeof(k.l));
      return k;
    }
    bool operator==(const Key& o) const { return std::memcmp(l, o.l, sizeof(l)) == 0; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h =
          k.l[0] * 0x9E3779B97F4A7C15ull ^ k.l[1] * 0xC2B2AE3D27D4EB4Full ^ k.l[2] * 0x165667B19E3779F9ull ^ k.l[3];
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::vector<Fr> values_;
};

struct CompactR1cs {
  size_t num_inputs = 0;  // including ONE
  size_t num_aux = 0;
  size_t num_constraints = 0;
  std::vector<Fr> coeffs;  // distinct values; [0] = +1, [1] = -1
  CompactMatrix a, b, c;

  size_t num_columns() const { return num_inputs + num_aux; }

  // The same matrices with full Fr values (for reference computations and tests).
  R1cs expand() const {
    R1cs r{num_inputs, num_aux, num_constraints, {}, {}, {}};
    auto one = [&](const CompactMatrix& m, SparseMatrix& out) {
      out.row_ptr.assign(m.row_ptr.begin(), m.row_ptr.end());
      out.col.assign(m.col.begin(), m.col.end());
      out.val.reserve(m.coeff.size());
      for (uint32_t k : m.coeff) out.val.push_back(coeffs[k]);
    };
    one(a, r.a);
    one(b, r.b);
    one(c, r.c);
    return r;
  }

  // From full matrices (rows must already be normalized: sorted columns, no zeros).
  static CompactR1cs from(const R1cs& r) {
    CompactR1cs out{r.num_inputs, r.num_aux, r.num_constraints, {}, {}, {}, {}};
    CoeffInterner interner;
    auto one = [&](const SparseMatrix& m, CompactMatrix& o) {
      o.row_ptr.assign(m.row_ptr.begin(), m.row_ptr.end());
      o.col.assign(m.col.begin(), m.col.end());
      o.coeff.reserve(m.val.size());
      for (const Fr& v : m.val) o.coeff.push_back(interner.intern(v));
    };
    one(r.a, out.a);
    one(r.b, out.b);
    one(r.c, out.c);
    out.coeffs = std::move(interner).take();
    return out;
  }
};

}  // namespace cuzk::r1cs
