#include "pce/pce.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "pce/owned_sections.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::pce {

const char* to_string(CoeffEncoding e) {
  switch (e) {
    case CoeffEncoding::Dict8:
      return "dict8";
    case CoeffEncoding::Dict16:
      return "dict16";
    case CoeffEncoding::Full:
      return "full";
  }
  return "unknown";
}

const char* section_name(Section s) {
  static constexpr const char* kNames[kNumSections] = {
      "dictionary", "A.row_ptr", "A.col",   "A.coeff",       "B.row_ptr",       "B.col",        "B.coeff",
      "C.row_ptr",  "C.col",     "C.coeff", "A.aux_density", "B.input_density", "B.aux_density"};
  const auto i = static_cast<size_t>(s);
  return i >= 1 && i <= kNumSections ? kNames[i - 1] : "unknown";
}

namespace {

uint64_t bitmap_bytes(uint64_t bits) {
  return (bits + 63) / 64 * 8;
}

uint64_t coeff_bytes(CoeffEncoding e) {
  switch (e) {
    case CoeffEncoding::Dict8:
      return 1;
    case CoeffEncoding::Dict16:
      return 2;
    case CoeffEncoding::Full:
      return sizeof(Fr);
  }
  throw std::invalid_argument("unknown coefficient encoding");
}

template <class T>
std::span<const T> as(std::span<const std::byte> s) {
  return {reinterpret_cast<const T*>(s.data()), s.size() / sizeof(T)};
}

}  // namespace

std::array<uint64_t, kNumSections> PceInfo::section_bytes() const {
  std::array<uint64_t, kNumSections> out{};
  out[section_index(Section::Dictionary)] = encoding == CoeffEncoding::Full ? 0 : dict_size * sizeof(Fr);
  for (uint32_t m = 0; m < 3; ++m) {
    const auto id = static_cast<MatrixId>(m);
    out[section_index(row_ptr_section(id))] = (num_constraints + 1) * row_ptr_width[m];
    out[section_index(col_section(id))] = nnz[m] * 4;
    out[section_index(coeff_section(id))] = nnz[m] * coeff_bytes(encoding);
  }
  out[section_index(Section::AAuxDensity)] = bitmap_bytes(num_aux);
  out[section_index(Section::BInputDensity)] = bitmap_bytes(num_inputs);
  out[section_index(Section::BAuxDensity)] = bitmap_bytes(num_aux);
  return out;
}

uint64_t DensityView::count() const {
  uint64_t n = 0;
  for (uint64_t w : words_) n += static_cast<uint64_t>(std::popcount(w));
  return n;
}

Pce::Pce(PceInfo info, std::array<std::span<const std::byte>, kNumSections> sections,
         std::shared_ptr<const PceStorage> storage)
    : info_(std::move(info)), sections_(sections), storage_(std::move(storage)) {
  if (info_.circuit_id.size() > 127) throw std::invalid_argument("PCE circuit id longer than 127 bytes");
  if (info_.encoding == CoeffEncoding::Full ? info_.dict_size != 0 : info_.dict_size < 2) {
    throw std::invalid_argument("PCE dictionary size does not match the encoding");
  }
  if (info_.encoding == CoeffEncoding::Dict8 && info_.dict_size > 256) {
    throw std::invalid_argument("PCE dict8 encoding with more than 256 dictionary entries");
  }
  if (info_.encoding == CoeffEncoding::Dict16 && info_.dict_size > 65536) {
    throw std::invalid_argument("PCE dict16 encoding with more than 65536 dictionary entries");
  }
  if (info_.num_columns() > (uint64_t{1} << 32) || info_.num_inputs < 1) {
    throw std::invalid_argument("PCE column count out of range (1 <= inputs, inputs + aux <= 2^32)");
  }
  const auto expect = info_.section_bytes();
  for (size_t i = 0; i < kNumSections; ++i) {
    const auto s = static_cast<Section>(i + 1);
    if (sections_[i].size() != expect[i]) {
      throw std::invalid_argument(std::string("PCE section ") + section_name(s) + " has " +
                                  std::to_string(sections_[i].size()) + " bytes, the counts imply " +
                                  std::to_string(expect[i]));
    }
    if (reinterpret_cast<uintptr_t>(sections_[i].data()) % 8 != 0) {
      throw std::invalid_argument(std::string("PCE section ") + section_name(s) + " is not 8-byte aligned");
    }
  }
  for (uint8_t w : info_.row_ptr_width) {
    if (w != 4 && w != 8) throw std::invalid_argument("PCE row pointer width must be 4 or 8");
  }
  dictionary_ = as<Fr>(section(Section::Dictionary));
  for (uint32_t m = 0; m < 3; ++m) {
    const auto id = static_cast<MatrixId>(m);
    MatrixView& v = matrices_[m];
    v.rows = info_.num_constraints;
    v.nnz = info_.nnz[m];
    if (info_.row_ptr_width[m] == 4) {
      v.row_ptr32 = as<uint32_t>(section(row_ptr_section(id)));
    } else {
      v.row_ptr64 = as<uint64_t>(section(row_ptr_section(id)));
    }
    v.col = as<uint32_t>(section(col_section(id)));
    const auto coeff = section(coeff_section(id));
    switch (info_.encoding) {
      case CoeffEncoding::Dict8:
        v.idx8 = as<uint8_t>(coeff);
        break;
      case CoeffEncoding::Dict16:
        v.idx16 = as<uint16_t>(coeff);
        break;
      case CoeffEncoding::Full:
        v.values = as<Fr>(coeff);
        break;
    }
  }
  density_[0] = DensityView(as<uint64_t>(section(Section::AAuxDensity)), info_.num_aux);
  density_[1] = DensityView(as<uint64_t>(section(Section::BInputDensity)), info_.num_inputs);
  density_[2] = DensityView(as<uint64_t>(section(Section::BAuxDensity)), info_.num_aux);
}

Fr Pce::coefficient(MatrixId m, uint64_t k) const {
  const MatrixView& v = matrix(m);
  switch (info_.encoding) {
    case CoeffEncoding::Dict8:
      return dictionary_[v.idx8[k]];
    case CoeffEncoding::Dict16:
      return dictionary_[v.idx16[k]];
    case CoeffEncoding::Full:
      return v.values[k];
  }
  return Fr::zero();
}

uint64_t Pce::section_bytes_total() const {
  uint64_t n = 0;
  for (const auto& s : sections_) n += s.size();
  return n;
}

namespace {

// Keeps the first error seen by any thread (the lowest position wins, so the message is stable).
class FirstError {
 public:
  void report(uint64_t pos, std::string msg) {
    std::lock_guard lock(mu_);
    if (!set_ || pos < pos_) {
      set_ = true;
      pos_ = pos;
      msg_ = std::move(msg);
    }
    any_.store(true, std::memory_order_relaxed);
  }
  bool any() const { return any_.load(std::memory_order_relaxed); }
  std::string take() { return msg_; }

 private:
  std::mutex mu_;
  bool set_ = false;
  uint64_t pos_ = 0;
  std::string msg_;
  std::atomic<bool> any_{false};
};

// Stored Montgomery limbs must be < r; arithmetic on larger limbs would silently be wrong.
bool is_canonical(const Fr& v) {
  return ff::less_than(v.raw(), Fr::MOD);
}

// The dictionary: canonical, non-zero, and +1 / -1 first unless the coefficients are stored in full.
std::string check_dictionary(std::span<const Fr> dictionary, CoeffEncoding encoding, const std::string& where) {
  for (uint64_t i = 0; i < dictionary.size(); ++i) {
    if (!is_canonical(dictionary[i])) return where + ": dictionary entry " + std::to_string(i) + " is not < r";
    if (dictionary[i].is_zero()) return where + ": dictionary entry " + std::to_string(i) + " is zero";
  }
  if (encoding != CoeffEncoding::Full) {
    if (dictionary[kCoeffPlusOne] != Fr::one()) return where + ": dictionary entry 0 is not +1";
    if (dictionary[kCoeffMinusOne] != -Fr::one()) return where + ": dictionary entry 1 is not -1";
  }
  return {};
}

// Row pointers from 0 to nnz, never decreasing: checked first, so that the entries' check only reads
// entries that exist.
std::string check_row_pointers(const MatrixView& v, const std::string& name, ThreadPool& pool) {
  if (v.row_begin(0) != 0) return name + ".row_ptr[0] is not 0";
  if (v.row_begin(v.rows) != v.nnz) {
    return name + ".row_ptr[" + std::to_string(v.rows) + "] = " + std::to_string(v.row_begin(v.rows)) +
           ", expected nnz = " + std::to_string(v.nnz);
  }
  FirstError err;
  pool.parallel_chunks(v.rows, 1 << 16, [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) {
      if (v.row_end(r) < v.row_begin(r)) {
        err.report(r, name + ".row_ptr decreases at row " + std::to_string(r));
        return;
      }
    }
  });
  return err.any() ? err.take() : std::string();
}

// One entry of a row: its column below the width and above the previous entry's (unless `first`),
// its coefficient canonical and non-zero (in full) or a dictionary index. Empty when valid.
std::string check_entry(const MatrixView& v, const PceInfo& in, const std::string& name, size_t r, uint64_t k,
                        bool first, uint64_t prev) {
  const uint64_t col = v.col[k];
  if (col >= in.num_columns()) {
    return name + ".col[" + std::to_string(k) + "] = " + std::to_string(col) + " is not < width " +
           std::to_string(in.num_columns()) + " (row " + std::to_string(r) + ")";
  }
  if (!first && col <= prev) {
    return name + " row " + std::to_string(r) + " columns are not strictly increasing";
  }
  if (in.encoding == CoeffEncoding::Full) {
    if (!is_canonical(v.values[k]) || v.values[k].is_zero()) {
      return name + ".coeff[" + std::to_string(k) + "] is zero or not < r";
    }
    return {};
  }
  const uint64_t idx = in.encoding == CoeffEncoding::Dict8 ? v.idx8[k] : v.idx16[k];
  if (idx >= in.dict_size) {
    return name + ".coeff[" + std::to_string(k) + "] = " + std::to_string(idx) + " is not < dictionary size " +
           std::to_string(in.dict_size);
  }
  return {};
}

// Every entry of matrix m, marking the densities the columns imply.
std::string check_entries(const MatrixView& v, uint32_t m, const std::string& name, const PceInfo& in,
                          DensityBuilder& density, ThreadPool& pool) {
  FirstError err;
  pool.parallel_chunks(v.rows, 4096, [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1 && !err.any(); ++r) {
      uint64_t prev = 0;
      for (uint64_t b = v.row_begin(r), k = b, e = v.row_end(r); k < e; ++k) {
        if (std::string why = check_entry(v, in, name, r, k, k == b, prev); !why.empty()) {
          err.report(r, std::move(why));
          return;
        }
        prev = v.col[k];
        density.mark(static_cast<MatrixId>(m), prev);
      }
    }
  });
  return err.any() ? err.take() : std::string();
}

}  // namespace

std::string Pce::validate_structure() const {
  const PceInfo& in = info_;
  const std::string where = in.circuit_id.empty() ? "PCE" : "PCE '" + in.circuit_id + "'";
  if (!storage_) return where + ": empty (no sections)";
  if (std::string why = check_dictionary(dictionary_, in.encoding, where); !why.empty()) return why;
  ThreadPool& pool = ThreadPool::global();
  static constexpr const char* kNames[3] = {"A", "B", "C"};
  for (uint32_t m = 0; m < 3; ++m) {
    if (std::string why = check_row_pointers(matrices_[m], kNames[m], pool); !why.empty()) return where + ": " + why;
  }
  // Recomputed densities, one word array per bitmap, filled with atomic ORs.
  DensityBuilder density(in.num_inputs, in.num_aux);
  for (uint32_t m = 0; m < 3; ++m) {
    if (std::string why = check_entries(matrices_[m], m, kNames[m], in, density, pool); !why.empty()) {
      return where + ": " + why;
    }
  }
  static constexpr const char* kDensityErrors[3] = {"A.aux_density does not match matrix A",
                                                    "B.input_density does not match matrix B",
                                                    "B.aux_density does not match matrix B"};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<uint64_t> want = density.words(i);
    if (!std::equal(want.begin(), want.end(), density_[i].words().begin())) return where + ": " + kDensityErrors[i];
  }
  return {};
}

}  // namespace cuzk::pce
