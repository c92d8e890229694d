// The streamed prover's plan (streamed_plan.hpp): sizes only, no device.
#include "groth16/gpu/streamed_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "gpu/msm_sizing.hpp"
#include "poly/domain.hpp"

namespace cuzk::gpu {

namespace {

constexpr uint64_t kG1Point = 96, kG2Point = 192, kFr = 32;  // device layout (x, y), Fr
constexpr uint64_t kXyzzG1 = 192, kXyzzG2 = 384;
constexpr uint64_t kMiB = uint64_t{1} << 20;
// cudaMalloc's granularity (2 MiB pages) over the prover's ~70 allocations (its vectors, the
// PCE's 13 sections, each MSM engine's ~20 buffers), CUB's alignment.
constexpr uint64_t kOverhead = 128 * kMiB;

uint64_t round_2mib(uint64_t b) {
  return (b + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
}

uint64_t domain_of(const StreamedShape& s) {
  return poly::Domain::size_for(std::max<uint64_t>(s.num_constraints, 2));
}

// The twiddles (the table of w^j, j < m/2, unless compact; the two small tables that make it) and
// the two coset power tables H uses (4096 low powers and m/4096 high ones each; ntt.cu).
uint64_t twiddle_bytes(uint64_t m, bool compact) {
  const uint64_t pow = round_2mib(4096 * kFr) + round_2mib(std::max<uint64_t>(1, m / 4096) * kFr);
  const uint64_t small = round_2mib(4096 * kFr) + round_2mib(std::max<uint64_t>(1, m / 2 / 4096) * kFr);
  return (compact ? 0 : round_2mib(m / 2 * kFr)) + small + 2 * pow;
}

uint64_t vector_bytes(StreamedMode mode, uint64_t m, uint64_t cols, unsigned w) {
  const uint64_t d = m * kFr, z = cols * kFr;
  switch (mode) {
    case StreamedMode::pce3:
      return 2 * d + w * (d + z);
    case StreamedMode::pce2:
    case StreamedMode::stream2:
      return d + w * (d + z);
    case StreamedMode::host2:
      return w * 2 * std::max(d, z);
  }
  return 0;
}

uint64_t largest_msm(const groth16::KeySizes& key, bool g2) {
  // A G2 chunk holds half the points of a G1 chunk (the same bytes).
  return std::max({key.h, key.l, key.a, key.b_g1, g2 ? 2 * key.b_g2 : 0});
}

// The largest useful chunk: a power of two covering the largest MSM, within [64, kMaxChunk].
uint64_t top_chunk(const groth16::KeySizes& key, bool g2) {
  return std::min(kMaxChunk, std::bit_ceil(std::max<uint64_t>(64, largest_msm(key, g2))));
}

std::string chunk_text(uint64_t k) {
  if (std::has_single_bit(k)) return "2^" + std::to_string(std::countr_zero(k));
  return std::to_string(k);
}

std::string gib_number(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / double(uint64_t{1} << 30));
  return buf;
}

uint64_t h2d_bytes(const groth16::KeySizes& key, const StreamedShape& shape, StreamedMode mode,
                   const StreamedPlanOptions& o) {
  const unsigned w = std::max(1u, o.witnesses_per_pass);
  uint64_t bases = (key.h + key.l + key.a + key.b_g1) * kG1Point + (o.b_g2_on_gpu ? key.b_g2 * kG2Point : 0);
  uint64_t b = bases / w + shape.columns() * kFr;
  // Density bitmaps and their prefixes (12 bytes a word): A aux, B inputs and aux on G1 (and G2).
  const uint64_t words = (shape.num_aux + 63) / 64 + (shape.num_inputs + 63) / 64;
  b += words * 12 * (o.b_g2_on_gpu ? 3 : 2);
  if (mode == StreamedMode::host2) b += 3 * shape.num_constraints * kFr;
  if (mode == StreamedMode::stream2) b += shape.pce_bytes;
  return b;
}

uint64_t host_pinned(const StreamedShape& shape, StreamedMode mode) {
  return mode == StreamedMode::host2     ? 3 * shape.num_constraints * kFr
         : mode == StreamedMode::stream2 ? shape.pce_bytes
                                         : 0;
}

}  // namespace

const char* to_string(StreamedMode m) {
  switch (m) {
    case StreamedMode::pce3:
      return "pce3";
    case StreamedMode::pce2:
      return "pce2";
    case StreamedMode::host2:
      return "host2";
    case StreamedMode::stream2:
      return "stream2";
  }
  return "?";
}

const char* describe(StreamedMode m) {
  switch (m) {
    case StreamedMode::pce3:
      return "MatVec on the device, H in three vectors";
    case StreamedMode::pce2:
      return "MatVec on the device, H in two vectors";
    case StreamedMode::host2:
      return "MatVec on the host, H in two vectors, z after H";
    case StreamedMode::stream2:
      return "MatVec on the device with the PCE streamed from the host, H in two vectors";
  }
  return "?";
}

StreamedShape StreamedShape::of(const pce::Pce& pce) {
  return {pce.num_inputs(), pce.num_aux(), pce.num_constraints(), pce.section_bytes_total()};
}

uint64_t pce_block_bytes(const StreamedShape& shape) {
  return std::min(kPceBlockBytes, round_2mib(shape.pce_bytes + 2 * kMiB));
}

uint64_t g2_chunk_for(uint64_t chunk_points) {
  return std::max<uint64_t>(64, chunk_points / 2);
}

uint64_t chunk_buffer_bytes(uint64_t chunk_points, bool b_g2_on_gpu) {
  return std::max(chunk_points * kG1Point, b_g2_on_gpu ? g2_chunk_for(chunk_points) * kG2Point : 0);
}

std::string format_gib(uint64_t bytes) {
  return gib_number(bytes) + " GiB";
}

std::string StreamedMemory::describe() const {
  return format_gib(total()) + " (PCE " + gib_number(pce) + ", vectors " + gib_number(vectors) + ", twiddles " +
         gib_number(twiddles) + ", base chunks " + gib_number(chunks) + ", MSM scratch " + gib_number(msm_scratch) +
         ", overhead " + gib_number(overhead) + ")";
}

std::string StreamedPlan::arrangement() const {
  return std::string(to_string(mode)) + " (" + gpu::describe(mode) + "), " + chunk_text(chunk_points) +
         " bases a G1 chunk, " + std::to_string(buffers) + " chunk buffers, " + std::to_string(witnesses_per_pass) +
         " witness(es) a pass, " + (compact_twiddles ? "compact" : "table") + " twiddles";
}

std::string StreamedPlan::describe() const {
  char pcie[64];
  std::snprintf(pcie, sizeof pcie, "%.1f GB", static_cast<double>(h2d_bytes_per_partition) / 1e9);
  if (!fits) {
    return "nothing fits a " + format_gib(cap) + " cap; the smallest arrangement, " + arrangement() + ", needs " +
           memory.describe();
  }
  return arrangement() + ": " + memory.describe() + " of a " + format_gib(cap) + " cap; " + pcie +
         " host->device a partition; smallest workable cap " + format_gib(smallest_cap);
}

StreamedMemory streamed_memory(const StreamedShape& shape, StreamedMode mode, uint64_t chunk_points,
                               const StreamedPlanOptions& o) {
  const uint64_t m = domain_of(shape);
  const unsigned w = std::max(1u, o.witnesses_per_pass);
  const uint64_t k = chunk_points, k2 = g2_chunk_for(k);
  StreamedMemory mem;
  mem.pce = mode == StreamedMode::host2     ? 0
            : mode == StreamedMode::stream2 ? 2 * pce_block_bytes(shape)
                                            : shape.pce_bytes;
  mem.vectors = vector_bytes(mode, m, shape.columns(), w);
  mem.twiddles = twiddle_bytes(m, o.compact_twiddles);
  mem.chunks = std::max(2u, o.buffers) * chunk_buffer_bytes(k, o.b_g2_on_gpu);
  // A chunk's density slice may span every scalar of its MSM (a sparse density): its words and
  // prefixes, 12 bytes each, on each engine.
  const uint64_t density = ((shape.columns() + 63) / 64 + 1) * 12;
  mem.msm_scratch = msm_detail::msm_scratch_bytes(k, kXyzzG1, o.sms, 0, 2 * k) + density;
  if (o.b_g2_on_gpu) mem.msm_scratch += msm_detail::msm_scratch_bytes(k2, kXyzzG2, o.sms, 0, 2 * k2) + density;
  mem.overhead = kOverhead;
  return mem;
}

StreamedPlan plan_streamed(const groth16::KeySizes& key, const StreamedShape& shape, uint64_t cap,
                           const StreamedPlanOptions& o) {
  if (o.witnesses_per_pass == 0) throw std::invalid_argument("plan_streamed: witnesses_per_pass must be at least 1");
  if (o.buffers < 2) throw std::invalid_argument("plan_streamed: the chunk ring needs at least two buffers");
  if (o.chunk_points != 0 && o.chunk_points < 64)
    throw std::invalid_argument("plan_streamed: a chunk holds at least 64 bases (one density word), got " +
                                std::to_string(o.chunk_points));
  const uint64_t top = o.chunk_points ? o.chunk_points : top_chunk(key, o.b_g2_on_gpu);
  const uint64_t low = o.chunk_points ? o.chunk_points : std::min(kMinChunk, top);
  const uint64_t good = o.chunk_points ? o.chunk_points : std::min(kGoodChunk, top);
  std::vector<StreamedMode> modes = {StreamedMode::pce3, StreamedMode::pce2, StreamedMode::stream2,
                                     StreamedMode::host2};
  if (o.mode) modes = {*o.mode};

  StreamedPlan plan;
  plan.cap = cap;
  plan.witnesses_per_pass = o.witnesses_per_pass;
  plan.buffers = o.buffers;
  auto take = [&](StreamedMode mode, uint64_t k, const StreamedPlanOptions& use) {
    plan.mode = mode;
    plan.chunk_points = k;
    plan.g2_chunk_points = o.b_g2_on_gpu ? g2_chunk_for(k) : 0;
    plan.compact_twiddles = use.compact_twiddles;
    plan.memory = streamed_memory(shape, mode, k, use);
    plan.h2d_bytes_per_partition = h2d_bytes(key, shape, mode, o);
    plan.host_pinned_bytes = host_pinned(shape, mode);
  };
  // The largest chunk in [lo, top] (powers of two down from top) with which `mode` fits; 0: none.
  auto largest_fit = [&](StreamedMode mode, uint64_t lo) -> uint64_t {
    for (uint64_t k = top; k >= lo && k > 0; k /= 2)
      if (streamed_memory(shape, mode, k, o).total() <= cap) return k;
    return 0;
  };

  // The smallest arrangement, for the error and for `cuzk doctor`.
  plan.smallest_cap = UINT64_MAX;
  StreamedMode smallest = modes.front();
  for (StreamedMode mode : modes) {
    const uint64_t need = streamed_memory(shape, mode, low, o).total();
    if (need < plan.smallest_cap) plan.smallest_cap = need, smallest = mode;
  }

  // The one twiddle table (a faster H) when the chosen arrangement and chunk fit with it, else
  // the two small tables.
  auto choose = [&](StreamedMode mode, uint64_t k) {
    StreamedPlanOptions use = o;
    use.compact_twiddles = false;
    if (o.compact_twiddles && streamed_memory(shape, mode, k, use).total() > cap) use.compact_twiddles = true;
    take(mode, k, use);
    plan.fits = true;
    return plan;
  };

  // 1. MatVec on the device with a good chunk: the larger chunk wins, in the modes' order on a tie
  //    (pce3's H runs a, b, c as one batch, as the resident prover's; stream2 moves the PCE).
  StreamedMode best = StreamedMode::pce3;
  uint64_t best_k = 0;
  for (StreamedMode mode : modes) {
    if (mode == StreamedMode::host2) continue;
    if (const uint64_t k = largest_fit(mode, good); k > best_k) best = mode, best_k = k;
  }
  if (best_k != 0) return choose(best, best_k);
  // 2. MatVec on the host with any chunk; 3. the PCE on the device with a small chunk.
  for (StreamedMode mode : modes)
    if (mode == StreamedMode::host2)
      if (const uint64_t k = largest_fit(mode, low); k != 0) return choose(mode, k);
  for (StreamedMode mode : modes)
    if (const uint64_t k = largest_fit(mode, low); k != 0) return choose(mode, k);
  take(smallest, low, o);
  return plan;
}

}  // namespace cuzk::gpu
