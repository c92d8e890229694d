#include "pce/synthetic.hpp"

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "pce/owned_sections.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::pce {

namespace {

constexpr uint64_t kDictSize = 2 + 2 * 62;  // ±1, ±2^1..±2^62

}  // namespace

SyntheticShape SyntheticShape::porep_32g(double scale) {
  if (!(scale > 0.0 && scale <= 1.0)) throw std::invalid_argument("synthetic scale must be in (0, 1]");
  auto s = [scale](uint64_t n) { return static_cast<uint64_t>(std::llround(static_cast<double>(n) * scale)); };
  SyntheticShape shape;
  shape.num_constraints = std::max<uint64_t>(1, s(130'278'869));
  shape.num_aux = std::max<uint64_t>(1, s(130'278'869));
  shape.nnz = {s(309'405'051), s(130'327'340), s(282'656'500)};
  return shape;
}

Pce synthetic_pce(const SyntheticShape& shape, const std::string& circuit_id) {
  PceInfo info;
  info.circuit_id = circuit_id;
  info.num_inputs = shape.num_inputs;
  info.num_aux = shape.num_aux;
  info.num_constraints = shape.num_constraints;
  info.nnz = shape.nnz;
  info.dict_size = kDictSize;
  info.encoding = CoeffEncoding::Dict8;
  const uint64_t width = info.num_columns();
  for (int m = 0; m < 3; ++m) {
    info.row_ptr_width[m] = info.nnz[m] > 0xFFFFFFFFull ? 8 : 4;
    // Rows hold ceil(nnz / rows) entries at most, which must fit in the width.
    const uint64_t max_len = (info.nnz[m] + info.num_constraints - 1) / std::max<uint64_t>(1, info.num_constraints);
    if (max_len * 4 > width) throw std::invalid_argument("synthetic PCE: too many non-zeros per row for the width");
  }
  auto storage = std::make_shared<OwnedSections>(info);
  auto raw = [&](Section s) { return storage->data<uint64_t>(s); };

  auto* dict = reinterpret_cast<Fr*>(raw(Section::Dictionary));
  dict[0] = Fr::one();
  dict[1] = -Fr::one();
  Fr p = Fr::one();
  for (uint64_t k = 1; k <= 62; ++k) {
    p += p;
    dict[2 * k] = p;
    dict[2 * k + 1] = -p;
  }

  DensityBuilder density(info.num_inputs, info.num_aux);
  const uint64_t rows = info.num_constraints;
  ThreadPool& pool = ThreadPool::global();
  for (int m = 0; m < 3; ++m) {
    const auto id = static_cast<MatrixId>(m);
    const uint64_t nnz = info.nnz[m];
    // Row r spans [floor(r * nnz / rows), floor((r + 1) * nnz / rows)).
    auto row_start = [&](uint64_t r) {
      return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * nnz) / rows);
    };
    auto* col = reinterpret_cast<uint32_t*>(raw(col_section(id)));
    auto* idx = reinterpret_cast<uint8_t*>(raw(coeff_section(id)));
    void* rp = raw(row_ptr_section(id));
    const size_t chunks = std::max<size_t>(1, std::min<uint64_t>(rows / 4096 + 1, 4096));
    pool.parallel_for(chunks, [&](size_t ch) {
      const uint64_t r0 = rows * ch / chunks, r1 = rows * (ch + 1) / chunks;
      Xoshiro256 rng(shape.seed * 1000003 + static_cast<uint64_t>(m) * 7919 + ch);
      for (uint64_t r = r0; r < r1; ++r) {
        const uint64_t b = row_start(r), e = row_start(r + 1), len = e - b;
        if (info.row_ptr_width[m] == 4) {
          static_cast<uint32_t*>(rp)[r] = static_cast<uint32_t>(b);
        } else {
          static_cast<uint64_t*>(rp)[r] = b;
        }
        if (len == 0) continue;
        // Start near the diagonal (the row's own aux variables); one row in eight jumps far, one in
        // sixteen starts at ONE. Steps of 1..3 keep columns strictly increasing and within reach.
        uint64_t start;
        const uint64_t pick = rng() % 16;
        if (pick == 0) {
          start = 0;
        } else if (pick <= 2) {
          start = rng() % (width - 3 * len);
        } else {
          const uint64_t diag = info.num_inputs + r * info.num_aux / rows;
          start = std::min(diag, width - 3 * len);
        }
        uint64_t c = start;
        for (uint64_t k = b; k < e; ++k) {
          col[k] = static_cast<uint32_t>(c);
          const uint64_t roll = rng();
          const uint64_t cls = roll % 20;  // 14/20 +1, 3/20 -1, 3/20 a power of two
          idx[k] = static_cast<uint8_t>(cls < 14 ? 0 : cls < 17 ? 1 : 2 + (roll >> 8) % (kDictSize - 2));
          density.mark(id, c);
          c += 1 + (roll >> 16) % 3;
        }
      }
    });
    if (info.row_ptr_width[m] == 4) {
      static_cast<uint32_t*>(rp)[rows] = static_cast<uint32_t>(nnz);
    } else {
      static_cast<uint64_t*>(rp)[rows] = nnz;
    }
  }
  density.store(*storage);
  const auto sections = storage->spans;
  return Pce(std::move(info), sections, std::move(storage));
}

}  // namespace cuzk::pce
