#pragma once
// What the in-memory builders of a Pce share (build_pce, synthetic_pce) and what
// Pce::validate_structure recomputes: section buffers owned by the Pce, and density bitmaps filled
// concurrently while the matrices are scanned.
#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "pce/pce.hpp"
#include "util/uninit_vector.hpp"

namespace cuzk::pce {

// 8-byte aligned buffers of exactly the lengths `info` implies, zero-filled, or with `zero` false
// left uninitialised but for each buffer's last word (so the padding after a section's last byte
// is zero): for a builder that writes every byte of every section itself, in parallel (the first
// touch of a multi-GB PCE's pages then happens on all threads, not in one memset).
struct OwnedSections final : PceStorage {
  std::array<UninitVector<uint64_t>, kNumSections> buffers;
  std::array<std::span<const std::byte>, kNumSections> spans{};

  explicit OwnedSections(const PceInfo& info, bool zero = true) {
    const auto bytes = info.section_bytes();
    for (size_t i = 0; i < kNumSections; ++i) {
      const uint64_t words = (bytes[i] + 7) / 8;
      if (zero) {
        buffers[i].assign(words, 0);
      } else {
        buffers[i].resize(words);
        if (words != 0) buffers[i].back() = 0;
      }
      spans[i] = {reinterpret_cast<const std::byte*>(buffers[i].data()), bytes[i]};
    }
  }
  template <class T>
  T* data(Section s) {
    return reinterpret_cast<T*>(buffers[section_index(s)].data());
  }
};

// The three density bitmaps (A aux, B input, B aux), set with atomic ORs from any thread.
class DensityBuilder {
 public:
  DensityBuilder(uint64_t num_inputs, uint64_t num_aux)
      : num_inputs_(num_inputs),
        words_{Words((num_aux + 63) / 64), Words((num_inputs + 63) / 64), Words((num_aux + 63) / 64)} {}

  // Column `col` has a non-zero in matrix m (C has no density).
  void mark(MatrixId m, uint64_t col) {
    if (m == MatrixId::C) return;
    const bool aux = col >= num_inputs_;
    if (m == MatrixId::A && !aux) return;
    const uint64_t j = aux ? col - num_inputs_ : col;
    std::atomic<uint64_t>& w = words_[m == MatrixId::A ? 0 : aux ? 2 : 1][j >> 6];
    const uint64_t bit = uint64_t{1} << (j & 63);
    // Bits are only ever set: a plain load skips the locked read-modify-write for a column
    // already marked (nearly every non-zero; a column appears in several rows).
    if ((w.load(std::memory_order_relaxed) & bit) == 0) w.fetch_or(bit, std::memory_order_relaxed);
  }
  // Bitmap i in the order AAuxDensity, BInputDensity, BAuxDensity.
  std::vector<uint64_t> words(size_t i) const {
    std::vector<uint64_t> out(words_[i].size());
    for (size_t k = 0; k < out.size(); ++k) out[k] = words_[i][k].load(std::memory_order_relaxed);
    return out;
  }
  void store(OwnedSections& s) const {
    for (size_t i = 0; i < 3; ++i) {
      const std::vector<uint64_t> w = words(i);
      std::copy(w.begin(), w.end(), s.data<uint64_t>(kSections[i]));
    }
  }
  static constexpr Section kSections[3] = {Section::AAuxDensity, Section::BInputDensity, Section::BAuxDensity};

 private:
  using Words = std::vector<std::atomic<uint64_t>>;
  uint64_t num_inputs_;
  std::array<Words, 3> words_;
};

}  // namespace cuzk::pce
