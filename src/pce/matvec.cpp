#include "pce/matvec.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "util/tuning.hpp"

namespace cuzk::pce {

const char* to_string(MatVecKernel k) {
  switch (k) {
    case MatVecKernel::Auto:
      return "auto";
    case MatVecKernel::Generic:
      return "generic";
  }
  return "?";
}

namespace {

constexpr Fr kMinusOne = -Fr::one();

// How many non-zeros ahead the z value is prefetched: z is a gather over the whole witness (GBs
// for PoRep) that no hardware prefetcher predicts, while col/coeff stream sequentially.
constexpr uint64_t kPrefetchAhead = 16;
// Smallest chunk worth a task (non-zeros + rows): below this the pool's hand-off costs more.
constexpr uint64_t kMinChunkWork = uint64_t{1} << 14;
// Tasks per thread: a few more than threads so that uneven rows (dense Poseidon rows next to
// boolean ones) still balance through the pool's dynamic scheduling.
constexpr uint64_t kTasksPerThread = 8;

// z as the circuit keeps it: column c < num_inputs is inputs[c], else aux[c - num_inputs] (no
// concatenated copy of a multi-GB vector; the test is one compare, inputs are few).
struct Witness {
  const Fr* inputs;
  const Fr* aux;
  uint64_t num_inputs;
  const Fr* at(uint32_t c) const { return c < num_inputs ? inputs + c : aux + (c - num_inputs); }
};

inline void prefetch(const Fr* p) {
  // An Fr is 32 bytes but vectors only guarantee 16-byte alignment: it may straddle two lines.
  __builtin_prefetch(p);
  __builtin_prefetch(reinterpret_cast<const char*>(p) + sizeof(Fr) - 1);
}

constexpr Fr kOne = Fr::one();

// The class of a coefficient: +1, -1 or anything else (then its value).
struct Coeff {
  enum Kind { Plus, Minus, Other } kind;
  const Fr* value;
};
inline Coeff classify(uint8_t i, const Fr* dict) {
  return {i > 1 ? Coeff::Other : Coeff::Kind(i), dict + i};
}
inline Coeff classify(uint16_t i, const Fr* dict) {
  return {i > 1 ? Coeff::Other : Coeff::Kind(i), dict + i};
}
inline Coeff classify(const Fr& c, const Fr*) {
  return {c == kOne ? Coeff::Plus : c == kMinusOne ? Coeff::Minus : Coeff::Other, &c};
}
static_assert(kCoeffPlusOne == Coeff::Plus && kCoeffMinusOne == Coeff::Minus);

// acc (+)= c·v, branching on the coefficient class and on v ∈ {0, 1}. The first term of a row is
// assigned rather than added to zero (most rows have one to three terms).
template <bool First>
inline void accumulate(Fr& acc, Coeff c, const Fr& v) {
  switch (c.kind) {
    case Coeff::Plus:
      if constexpr (First) {
        acc = v;
      } else {
        acc += v;
      }
      return;
    case Coeff::Minus:
      acc -= v;  // on the first term acc is zero: 0 - v
      return;
    case Coeff::Other:
      if (v.is_zero()) return;
      const Fr t = v.is_one() ? *c.value : *c.value * v;
      if constexpr (First) {
        acc = t;
      } else {
        acc += t;
      }
      return;
  }
}

// Stores a result. Streaming (non-temporal) stores skip the read-for-ownership of the output line:
// at PoRep scale the three outputs are 12.5 GB that are written once and not read back here.
template <bool Stream>
inline void store(Fr* dst, const Fr& v) {
  if constexpr (Stream) {
    auto* d = reinterpret_cast<long long*>(dst);
    const auto& l = v.raw();
    _mm_stream_si64(d, static_cast<long long>(l[0]));
    _mm_stream_si64(d + 1, static_cast<long long>(l[1]));
    _mm_stream_si64(d + 2, static_cast<long long>(l[2]));
    _mm_stream_si64(d + 3, static_cast<long long>(l[3]));
  } else {
    *dst = v;
  }
}

template <MatVecKernel K, bool Stream, class RowPtr, class CoeffT>
__attribute__((noinline)) void rows_kernel(const RowPtr* row_ptr, const uint32_t* col, const CoeffT* coeff,
                                           const Fr* dict, Witness z, uint64_t r0, uint64_t r1, Fr* out) {
  const uint64_t kend = row_ptr[r1];
  uint64_t k = row_ptr[r0];
  auto term = [&](Fr& acc, auto first) {
    if (k + kPrefetchAhead < kend) prefetch(z.at(col[k + kPrefetchAhead]));
    const Fr& v = *z.at(col[k]);
    if constexpr (K == MatVecKernel::Generic) {
      // The baseline: a full coefficient times the value, whatever they are.
      const Fr t = *classify(coeff[k], dict).value * v;
      if constexpr (decltype(first)::value) {
        acc = t;
      } else {
        acc += t;
      }
    } else {
      accumulate<decltype(first)::value>(acc, classify(coeff[k], dict), v);
    }
    ++k;
  };
  for (uint64_t r = r0; r < r1; ++r) {
    const uint64_t e = row_ptr[r + 1];
    Fr acc;
    if (k < e) term(acc, std::true_type{});
    while (k < e) term(acc, std::false_type{});
    store<Stream>(out + r, acc);
  }
}

template <MatVecKernel K, bool Stream>
void run_rows(const Pce& pce, const MatrixView& m, Witness z, uint64_t r0, uint64_t r1, Fr* out) {
  const Fr* dict = pce.dictionary().data();
  auto with_row_ptr = [&](const auto* rp) {
    switch (pce.encoding()) {
      case CoeffEncoding::Dict8:
        return rows_kernel<K, Stream>(rp, m.col.data(), m.idx8.data(), dict, z, r0, r1, out);
      case CoeffEncoding::Dict16:
        return rows_kernel<K, Stream>(rp, m.col.data(), m.idx16.data(), dict, z, r0, r1, out);
      case CoeffEncoding::Full:
        return rows_kernel<K, Stream>(rp, m.col.data(), m.values.data(), dict, z, r0, r1, out);
    }
  };
  if (!m.row_ptr32.empty()) {
    with_row_ptr(m.row_ptr32.data());
  } else {
    with_row_ptr(m.row_ptr64.data());
  }
}

// O(1) checks that the views have the lengths the kernel will index (a Pce constructed from
// sections already guarantees this; a hand-assembled one might not).
void check_matrix(const Pce& pce, const MatrixView& m, const char* name) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string("matvec: matrix ") + name + " " + what);
  };
  if (m.rows != pce.num_constraints()) fail("has a different number of rows than the Pce's constraints");
  if (m.rows == 0) return;
  const uint64_t rp = m.row_ptr32.empty() ? m.row_ptr64.size() : m.row_ptr32.size();
  if (rp != m.rows + 1) fail("has " + std::to_string(rp) + " row pointers for " + std::to_string(m.rows) + " rows");
  if (m.col.size() != m.nnz) fail("has a column array of the wrong length");
  uint64_t coeffs = 0;
  switch (pce.encoding()) {
    case CoeffEncoding::Dict8:
      coeffs = m.idx8.size();
      break;
    case CoeffEncoding::Dict16:
      coeffs = m.idx16.size();
      break;
    case CoeffEncoding::Full:
      coeffs = m.values.size();
      break;
  }
  if (coeffs != m.nnz) fail("has a coefficient array of the wrong length");
  if (pce.encoding() != CoeffEncoding::Full && pce.dictionary().size() < 2) fail("has no ±1 dictionary");
}

void check_size(const char* what, size_t got, uint64_t want) {
  if (got != want) {
    throw std::invalid_argument(std::string("matvec: ") + what + " has " + std::to_string(got) +
                                " values, the Pce needs " + std::to_string(want));
  }
}

struct Task {
  uint64_t r0, r1;
};

// Rows a task processes per matrix before moving to the next one: A, B and C rows of one block
// read z near the same columns, so z is fetched from memory once for the three, not three times.
constexpr uint64_t kBlockRows = 2048;

// Cuts the rows into ranges of about `chunk` work (non-zeros of A, B and C + 3 stores per row),
// by binary search on the summed row pointers.
void plan(const Pce& pce, uint64_t chunk, std::vector<Task>& tasks) {
  const uint64_t rows = pce.num_constraints();
  auto cum = [&](uint64_t r) { return pce.a().row_begin(r) + pce.b().row_begin(r) + pce.c().row_begin(r) + 3 * r; };
  const uint64_t work = cum(rows);
  const uint64_t pieces = std::max<uint64_t>(1, (work + chunk - 1) / chunk);
  uint64_t r0 = 0;
  for (uint64_t p = 1; p <= pieces; ++p) {
    uint64_t r1 = rows;
    if (p < pieces) {
      const uint64_t target = work / pieces * p + std::min(work % pieces, p);
      uint64_t lo = r0, hi = rows;  // first r in [r0, rows] with cum(r) >= target
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (cum(mid) < target) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      r1 = lo;
    }
    if (r1 > r0) tasks.push_back({r0, r1});
    r0 = r1;
  }
}

template <MatVecKernel K, bool Stream>
void run_task(const Pce& pce, Witness z, const Task& task, Fr* const outs[3]) {
  for (uint64_t s = task.r0; s < task.r1; s += kBlockRows) {
    const uint64_t e = std::min(task.r1, s + kBlockRows);
    for (int m = 0; m < 3; ++m) run_rows<K, Stream>(pce, pce.matrix(static_cast<MatrixId>(m)), z, s, e, outs[m]);
  }
  if constexpr (Stream) _mm_sfence();  // streamed stores are weakly ordered: publish before the join
}

// [tuning] matvec_stream / CUZK_MATVEC_STREAM=0|1 (util/tuning.hpp): the store kind.
bool stream_stores() {
  return tuning().matvec_stream;
}

}  // namespace

void matvec(const Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::span<Fr> a, std::span<Fr> b,
            std::span<Fr> c, const MatVecOptions& options) {
  check_size("inputs", inputs.size(), pce.num_inputs());
  check_size("aux", aux.size(), pce.num_aux());
  check_size("output a", a.size(), pce.num_constraints());
  check_size("output b", b.size(), pce.num_constraints());
  check_size("output c", c.size(), pce.num_constraints());
  check_matrix(pce, pce.a(), "A");
  check_matrix(pce, pce.b(), "B");
  check_matrix(pce, pce.c(), "C");
  if (pce.num_constraints() == 0) return;

  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::global();
  const PceInfo& info = pce.info();
  const uint64_t work = info.nnz_total() + 3 * info.num_constraints;
  const uint64_t chunk = options.chunk_work != 0
                             ? options.chunk_work
                             : std::max(kMinChunkWork, work / (uint64_t{pool.size()} * kTasksPerThread));
  std::vector<Task> tasks;  // a few dozen entries
  plan(pce, chunk, tasks);

  const Witness z{inputs.data(), aux.data(), pce.num_inputs()};
  Fr* const outs[3] = {a.data(), b.data(), c.data()};
  const bool stream = stream_stores();
  pool.parallel_for(tasks.size(), [&](size_t t) {
    if (options.kernel == MatVecKernel::Generic) {
      stream ? run_task<MatVecKernel::Generic, true>(pce, z, tasks[t], outs)
             : run_task<MatVecKernel::Generic, false>(pce, z, tasks[t], outs);
    } else {
      stream ? run_task<MatVecKernel::Auto, true>(pce, z, tasks[t], outs)
             : run_task<MatVecKernel::Auto, false>(pce, z, tasks[t], outs);
    }
  });
}

MatVecResult matvec(const Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux, const MatVecOptions& options) {
  MatVecResult r;
  r.a.resize(pce.num_constraints());
  r.b.resize(pce.num_constraints());
  r.c.resize(pce.num_constraints());
  matvec(pce, inputs, aux, r.a, r.b, r.c, options);
  return r;
}

}  // namespace cuzk::pce
