#include "pce/build.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pce/owned_sections.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::pce {

namespace {

CoeffEncoding narrowest(uint64_t dict_size) {
  if (dict_size <= 256) return CoeffEncoding::Dict8;
  if (dict_size <= 65536) return CoeffEncoding::Dict16;
  return CoeffEncoding::Full;
}

int rank(CoeffEncoding e) {
  return static_cast<int>(e);
}

void check_matrix(const r1cs::CompactMatrix& m, const char* name, const r1cs::CompactR1cs& r) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string("build_pce: matrix ") + name + ": " + what);
  };
  if (m.row_ptr.size() != r.num_constraints + 1) {
    fail("has " + std::to_string(m.row_ptr.size()) + " row pointers, expected " +
         std::to_string(r.num_constraints + 1));
  }
  if (m.col.size() != m.coeff.size()) fail("column and coefficient counts differ");
  if (m.row_ptr.front() != 0 || m.row_ptr.back() != m.col.size()) fail("row pointers do not span the non-zeros");
}

// The header of the Pce built from r: its counts, the coefficient encoding (the narrowest that
// holds r's table unless options name a wider one) and the row-pointer widths.
PceInfo plan_info(const r1cs::CompactR1cs& r, const r1cs::CompactMatrix* const (&mats)[3],
                  const BuildOptions& options) {
  PceInfo info;
  info.circuit_id = options.circuit_id;
  info.num_inputs = r.num_inputs;
  info.num_aux = r.num_aux;
  info.num_constraints = r.num_constraints;
  const CoeffEncoding fit = narrowest(r.coeffs.size());
  info.encoding = options.encoding.value_or(fit);
  if (rank(info.encoding) < rank(fit)) {
    throw std::invalid_argument(std::string("build_pce: ") + std::to_string(r.coeffs.size()) +
                                " distinct coefficients do not fit encoding " + to_string(info.encoding));
  }
  info.dict_size = info.encoding == CoeffEncoding::Full ? 0 : r.coeffs.size();
  for (int m = 0; m < 3; ++m) {
    info.nnz[m] = mats[m]->nnz();
    info.row_ptr_width[m] = options.force_row_ptr64 || info.nnz[m] > 0xFFFFFFFFull ? 8 : 4;
  }
  if (info.num_columns() > (uint64_t{1} << 32)) throw std::invalid_argument("build_pce: more than 2^32 columns");
  return info;
}

// Plain copies, split over the pool (a 32 GiB PoRep PCE is 130 M rows and 722 M non-zeros).
void copy_row_pointers(const r1cs::CompactMatrix& src, unsigned width, OwnedSections& storage, MatrixId id,
                       ThreadPool& pool) {
  const uint64_t* rp = src.row_ptr.data();
  if (width == 4) {
    uint32_t* dst = storage.data<uint32_t>(row_ptr_section(id));
    pool.parallel_chunks(src.row_ptr.size(), 1 << 16, [&](size_t i0, size_t i1) {
      for (size_t i = i0; i < i1; ++i) dst[i] = static_cast<uint32_t>(rp[i]);
    });
  } else {
    uint64_t* dst = storage.data<uint64_t>(row_ptr_section(id));
    pool.parallel_chunks(src.row_ptr.size(), 1 << 16,
                         [&](size_t i0, size_t i1) { std::copy(rp + i0, rp + i1, dst + i0); });
  }
}

// Columns, coefficients (as the encoding stores them) and densities in one pass over the
// non-zeros; false if a column or coefficient index is out of range.
bool copy_entries(const r1cs::CompactR1cs& r, const r1cs::CompactMatrix& src, MatrixId id, const PceInfo& info,
                  OwnedSections& storage, DensityBuilder& density, ThreadPool& pool) {
  const uint64_t width = info.num_columns();
  const uint64_t dict = r.coeffs.size();
  uint32_t* cols = storage.data<uint32_t>(col_section(id));
  const Section coeff = coeff_section(id);
  std::atomic<bool> bad{false};
  auto pass = [&](auto store) {
    pool.parallel_chunks(src.nnz(), 1 << 16, [&](size_t k0, size_t k1) {
      const uint32_t* scol = src.col.data();
      const uint32_t* sidx = src.coeff.data();
      for (size_t k = k0; k < k1; ++k) {
        const uint32_t idx = sidx[k];
        const uint32_t col = scol[k];
        if (idx >= dict || col >= width) {
          bad.store(true);
          return;
        }
        cols[k] = col;
        store(k, idx);
        density.mark(id, col);
      }
    });
  };
  switch (info.encoding) {
    case CoeffEncoding::Dict8: {
      uint8_t* out = storage.data<uint8_t>(coeff);
      pass([out](size_t k, uint32_t idx) { out[k] = static_cast<uint8_t>(idx); });
      break;
    }
    case CoeffEncoding::Dict16: {
      uint16_t* out = storage.data<uint16_t>(coeff);
      pass([out](size_t k, uint32_t idx) { out[k] = static_cast<uint16_t>(idx); });
      break;
    }
    case CoeffEncoding::Full: {
      Fr* out = storage.data<Fr>(coeff);
      pass([out, &r](size_t k, uint32_t idx) { out[k] = r.coeffs[idx]; });
      break;
    }
  }
  return !bad;
}

}  // namespace

Pce build_pce(const r1cs::CompactR1cs& r, const BuildOptions& options) {
  if (r.coeffs.size() < 2 || r.coeffs[0] != Fr::one() || r.coeffs[1] != -Fr::one()) {
    throw std::invalid_argument("build_pce: the coefficient table must start with +1, -1");
  }
  const r1cs::CompactMatrix* const mats[3] = {&r.a, &r.b, &r.c};
  const char* names[3] = {"A", "B", "C"};
  for (int m = 0; m < 3; ++m) check_matrix(*mats[m], names[m], r);
  PceInfo info = plan_info(r, mats, options);

  // Not zeroed: every section is written below (the dictionary, the row pointers, columns and
  // coefficients by the parallel passes, which are then the pages' first touch, the densities).
  auto storage = std::make_shared<OwnedSections>(info, /*zero=*/false);
  if (info.encoding != CoeffEncoding::Full) {
    std::copy(r.coeffs.begin(), r.coeffs.end(), storage->data<Fr>(Section::Dictionary));
  }
  ThreadPool& pool = ThreadPool::global();
  DensityBuilder density(info.num_inputs, info.num_aux);
  for (int m = 0; m < 3; ++m) {
    const auto id = static_cast<MatrixId>(m);
    copy_row_pointers(*mats[m], info.row_ptr_width[m], *storage, id, pool);
    if (!copy_entries(r, *mats[m], id, info, *storage, density, pool)) {
      throw std::invalid_argument(std::string("build_pce: matrix ") + names[m] +
                                  " has a column >= width or a coefficient index >= table size");
    }
  }
  density.store(*storage);

  const auto sections = storage->spans;
  Pce pce(std::move(info), sections, std::move(storage));
  if (std::string err = pce.validate_structure(); !err.empty()) throw std::invalid_argument("build_pce: " + err);
  return pce;
}

r1cs::CompactR1cs to_compact(const Pce& pce) {
  r1cs::CompactR1cs out;
  out.num_inputs = pce.num_inputs();
  out.num_aux = pce.num_aux();
  out.num_constraints = pce.num_constraints();
  r1cs::CoeffInterner interner;  // only for full values; dictionary indices are kept as they are
  r1cs::CompactMatrix* mats[3] = {&out.a, &out.b, &out.c};
  for (int m = 0; m < 3; ++m) {
    const auto id = static_cast<MatrixId>(m);
    const MatrixView& v = pce.matrix(id);
    r1cs::CompactMatrix& dst = *mats[m];
    dst.row_ptr.resize(v.rows + 1);
    for (uint64_t i = 0; i <= v.rows; ++i) dst.row_ptr[i] = v.row_begin(i);
    dst.col.assign(v.col.begin(), v.col.end());
    dst.coeff.resize(v.nnz);
    for (uint64_t k = 0; k < v.nnz; ++k) {
      if (pce.encoding() == CoeffEncoding::Dict8) {
        dst.coeff[k] = v.idx8[k];
      } else if (pce.encoding() == CoeffEncoding::Dict16) {
        dst.coeff[k] = v.idx16[k];
      } else {
        dst.coeff[k] = interner.intern(v.values[k]);
      }
    }
  }
  if (pce.encoding() == CoeffEncoding::Full) {
    out.coeffs = std::move(interner).take();
  } else {
    out.coeffs.assign(pce.dictionary().begin(), pce.dictionary().end());
  }
  return out;
}

}  // namespace cuzk::pce
