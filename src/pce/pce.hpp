#pragma once
// The Pre-Compiled Constraint Evaluator (PCE): a circuit's R1CS structure, recorded once, in the
// form a prover reads for every proof.
//
// A Pce is a set of typed sections (the same bytes in memory and in a .pce file, see
// docs/pce-format.md), so a file can be used in place through mmap:
//   - the coefficient dictionary: the distinct coefficients, entry 0 = +1 and entry 1 = -1 always;
//   - per matrix (A, B, C): CSR row pointers (u32 when the matrix has < 2^32 non-zeros, else u64),
//     column indices (u32, unified columns: inputs first with ONE at 0, then aux), and coefficients
//     (u8 or u16 dictionary indices, or full Fr values when the circuit has > 65536 distinct ones);
//   - the density bitmaps a Groth16 prover needs: A over aux, B over inputs, B over aux (bit i set
//     when variable i has a non-zero coefficient somewhere in that matrix).
// Fr values (dictionary, full coefficients) are stored in Montgomery form, 4 little-endian u64 limbs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "util/lifetimebound.hpp"

namespace cuzk::pce {

using Fr = ff::Fr;

enum class CoeffEncoding : uint8_t { Dict8 = 1, Dict16 = 2, Full = 3 };
const char* to_string(CoeffEncoding e);

// Dictionary entries every Pce has, so that MatVec can special-case them without a lookup.
inline constexpr uint32_t kCoeffPlusOne = 0;
inline constexpr uint32_t kCoeffMinusOne = 1;

enum class MatrixId : uint8_t { A = 0, B = 1, C = 2 };

// Section kinds, in file order. Numbering is part of the file format.
enum class Section : uint32_t {
  Dictionary = 1,
  ARowPtr = 2,
  ACol = 3,
  ACoeff = 4,
  BRowPtr = 5,
  BCol = 6,
  BCoeff = 7,
  CRowPtr = 8,
  CCol = 9,
  CCoeff = 10,
  AAuxDensity = 11,
  BInputDensity = 12,
  BAuxDensity = 13,
};
inline constexpr size_t kNumSections = 13;
inline constexpr size_t section_index(Section s) {
  return static_cast<size_t>(s) - 1;
}
const char* section_name(Section s);  // e.g. "A.col"
inline constexpr Section row_ptr_section(MatrixId m) {
  return static_cast<Section>(2 + 3 * static_cast<uint32_t>(m));
}
inline constexpr Section col_section(MatrixId m) {
  return static_cast<Section>(3 + 3 * static_cast<uint32_t>(m));
}
inline constexpr Section coeff_section(MatrixId m) {
  return static_cast<Section>(4 + 3 * static_cast<uint32_t>(m));
}

// Everything a header records besides the section table.
struct PceInfo {
  std::string circuit_id;   // free text naming the circuit, e.g. "circom:mul3", at most 127 bytes
  uint64_t num_inputs = 0;  // including ONE
  uint64_t num_aux = 0;
  uint64_t num_constraints = 0;  // rows of each matrix, the input constraints included
  std::array<uint64_t, 3> nnz{};
  uint64_t dict_size = 0;  // 0 for CoeffEncoding::Full
  CoeffEncoding encoding = CoeffEncoding::Dict8;
  std::array<uint8_t, 3> row_ptr_width{4, 4, 4};  // bytes per row pointer of A, B, C

  uint64_t num_columns() const { return num_inputs + num_aux; }
  uint64_t nnz_total() const { return nnz[0] + nnz[1] + nnz[2]; }
  // Expected byte length of every section, from the counts alone.
  std::array<uint64_t, kNumSections> section_bytes() const;
};

// A bitmap over `bits` variables, 64 per little-endian u64 word.
class DensityView {
 public:
  DensityView() = default;
  DensityView(std::span<const uint64_t> words, uint64_t bits) : words_(words), bits_(bits) {}
  bool test(uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  uint64_t size() const { return bits_; }
  uint64_t count() const;  // set bits
  std::span<const uint64_t> words() const { return words_; }

 private:
  std::span<const uint64_t> words_;
  uint64_t bits_ = 0;
};

// One CSR matrix; exactly one of row_ptr32/row_ptr64 and one of idx8/idx16/values is non-empty
// (all may be empty for a matrix with no rows).
struct MatrixView {
  uint64_t rows = 0;
  uint64_t nnz = 0;
  std::span<const uint32_t> row_ptr32;
  std::span<const uint64_t> row_ptr64;
  std::span<const uint32_t> col;
  std::span<const uint8_t> idx8;
  std::span<const uint16_t> idx16;
  std::span<const Fr> values;

  uint64_t row_begin(uint64_t r) const { return row_ptr32.empty() ? row_ptr64[r] : row_ptr32[r]; }
  uint64_t row_end(uint64_t r) const { return row_begin(r + 1); }
};

// Keeps the bytes behind a Pce alive (owned buffers, a file mapping, a read buffer).
struct PceStorage {
  virtual ~PceStorage() = default;
};

class Pce {
 public:
  Pce() = default;
  // Wraps sections that `storage` keeps alive. Checks only that each section has the length the
  // counts imply and is 8-byte aligned (throws std::invalid_argument otherwise); the content is
  // validated by validate_structure().
  Pce(PceInfo info, std::array<std::span<const std::byte>, kNumSections> sections,
      std::shared_ptr<const PceStorage> storage);

  // The accessors below return views into the sections: valid while this Pce (or a copy sharing
  // its storage) lives.
  const PceInfo& info() const CUZK_LIFETIMEBOUND { return info_; }
  uint64_t num_inputs() const { return info_.num_inputs; }
  uint64_t num_aux() const { return info_.num_aux; }
  uint64_t num_constraints() const { return info_.num_constraints; }
  uint64_t num_columns() const { return info_.num_columns(); }
  CoeffEncoding encoding() const { return info_.encoding; }

  std::span<const Fr> dictionary() const CUZK_LIFETIMEBOUND { return dictionary_; }
  const MatrixView& matrix(MatrixId m) const CUZK_LIFETIMEBOUND { return matrices_[static_cast<size_t>(m)]; }
  const MatrixView& a() const CUZK_LIFETIMEBOUND { return matrices_[0]; }
  const MatrixView& b() const CUZK_LIFETIMEBOUND { return matrices_[1]; }
  const MatrixView& c() const CUZK_LIFETIMEBOUND { return matrices_[2]; }
  DensityView a_aux_density() const CUZK_LIFETIMEBOUND { return density_[0]; }
  DensityView b_input_density() const CUZK_LIFETIMEBOUND { return density_[1]; }
  DensityView b_aux_density() const CUZK_LIFETIMEBOUND { return density_[2]; }

  std::span<const std::byte> section(Section s) const CUZK_LIFETIMEBOUND { return sections_[section_index(s)]; }
  const std::array<std::span<const std::byte>, kNumSections>& sections() const CUZK_LIFETIMEBOUND { return sections_; }

  // Coefficient k of matrix m (a lookup through the dictionary unless the encoding is Full).
  Fr coefficient(MatrixId m, uint64_t k) const;

  // Full structural check, multi-threaded: row pointers start at 0, never decrease and end at nnz;
  // columns < num_columns and strictly increasing within a row; dictionary indices < dict_size;
  // dictionary entries 0 and 1 are +1 and -1; every Fr is canonical and non-zero; density bitmaps
  // equal the ones the matrices imply (and have no bits past their size). The error says which
  // check failed, where.
  std::string validate_structure() const;  // empty when sound

  // Bytes of all sections together (what the file holds besides header, padding and trailer).
  uint64_t section_bytes_total() const;

 private:
  PceInfo info_;
  std::array<std::span<const std::byte>, kNumSections> sections_{};
  std::shared_ptr<const PceStorage> storage_;
  std::span<const Fr> dictionary_;
  std::array<MatrixView, 3> matrices_{};
  std::array<DensityView, 3> density_{};
};

}  // namespace cuzk::pce
