#pragma once
// The plan of the streamed device prover (gpu::GpuStreamedProver, streamed_prover.hpp): from the
// key's sizes, the circuit's shape and a cap on device memory, the arrangement it takes, what it
// holds on the device, what crosses PCIe per partition, and the smallest cap that works. Plain C++
// without CUDA, so that the daemon's placement and `cuzk doctor` can ask on any host.
//
// Device bytes, with m the domain size, D = 32 m (a domain vector), Z = 32 (inputs + aux) (the
// witness z), P the PCE's sections, T the NTT twiddles (16 m, or m/128 compact) and coset power tables, K bases per
// G1 chunk and K/2 per G2 chunk (the same bytes) in a ring of R buffers, S1(K) and S2(K/2) the MSM
// engines' scratch at that size (msm_sizing.hpp), W witnesses per pass over the key:
//   pce3   P + 2 D + W (D + Z) + T + R * 96 K + S1 + S2 + overhead
//          MatVec on the device (GpuPce), a, b, c side by side and H as the resident prover does it.
//   pce2   P +   D + W (D + Z) + T + ...
//          MatVec one matrix at a time into two vectors; H in two (h_poly.hpp's steps).
//   stream2  2 S + D + W (D + Z) + T + ...
//          as pce2, the PCE in pinned host memory streamed by row blocks through a ring of two
//          staging buffers of S bytes (GpuPceStream) instead of resident: P crosses per partition.
//   host2      W * 2 max(D, Z)   + T + ...
//          MatVec on the CPU (pce::matvec), a, b, c uploaded one at a time into two vectors, z
//          uploaded after H into the second one.
// The key's bases stay in pinned host memory and cross PCIe once per pass over the key (every
// partition of a pass shares it), a chunk of K while the MSM of the previous chunk runs.
//
// Choosing (the cap bounds everything; chunks are powers of two from kMaxChunk down, never above
// the largest MSM's bases): 1. MatVec on the device with chunks of at least kGoodChunk bases, pce3,
// pce2 or stream2, whichever takes the largest chunk (in that order on a tie: pce3's H transforms a
// and b as one batch, stream2 moves the PCE every partition); smaller chunks cost MSM work per
// scalar (narrower windows, a bucket reduction each); 2. host2 with the largest chunk that fits
// down to kMinChunk (MatVec on the CPU costs ~1 s a 32 GiB partition, with a, b, c uploaded);
// 3. a device-MatVec mode with a chunk below kGoodChunk. A forced mode or chunk narrows the choice.
#include <cstdint>
#include <optional>
#include <string>

#include "groth16/key_source.hpp"
#include "pce/pce.hpp"

namespace cuzk::gpu {

enum class StreamedMode : uint8_t {
  pce3,     // PCE on the device, three domain vectors
  pce2,     // PCE on the device, two domain vectors
  host2,    // MatVec on the host, two domain vectors, z after H
  stream2,  // PCE streamed from pinned host memory by row blocks, two domain vectors
};
// The staging buffers of stream2 (two): 256 MiB each, ~20 blocks a 32 GiB PoRep MatVec.
inline constexpr uint64_t kPceBlockBytes = uint64_t{256} << 20;
const char* to_string(StreamedMode m);  // "pce3", ...
const char* describe(StreamedMode m);   // "MatVec on the device, H in three vectors", ...

// What the plan needs of a circuit.
struct StreamedShape {
  uint64_t num_inputs = 0;  // ONE included
  uint64_t num_aux = 0;
  uint64_t num_constraints = 0;  // PCE rows (input constraints included)
  uint64_t pce_bytes = 0;        // pce::Pce::section_bytes_total()
  static StreamedShape of(const pce::Pce& pce);
  uint64_t columns() const { return num_inputs + num_aux; }
};

struct StreamedPlanOptions {
  bool b_g2_on_gpu = true;                // false: the G2 MSM on the CPU (no G2 chunks or engine)
  unsigned witnesses_per_pass = 1;        // partitions proved per pass over the key (stage1_batch)
  std::optional<StreamedMode> mode = {};  // forced (tests, benchmarks); otherwise chosen by the cap
  uint64_t chunk_points = 0;              // forced bases per G1 chunk (>= 64); 0: the largest that fits
  unsigned buffers = 3;                   // chunk buffers in the ring (>= 2): copies run buffers - 1 ahead
  // The NTTs' twiddles may be two small tables (gpu::TwiddleLayout::compact: 640 KiB at 2^27)
  // instead of one of m/2 elements (2 GiB at 2^27): taken only when the chosen arrangement and
  // chunk do not fit with the table (the compact one makes H ~1.6x slower). false: the table.
  bool compact_twiddles = true;
  int sms = 144;  // multiprocessors bounding the MSM's slice buffers (H200: 132)
};

// Device bytes by part.
struct StreamedMemory {
  uint64_t pce = 0;          // matrices and dictionary (pce modes), the staging ring (stream2)
  uint64_t vectors = 0;      // domain vectors and z
  uint64_t twiddles = 0;     // NTT twiddles and coset power tables
  uint64_t chunks = 0;       // the ring of base chunk buffers
  uint64_t msm_scratch = 0;  // the G1 (and G2) MSM engines at the chunk size
  uint64_t overhead = 0;     // allocation granularity, small buffers
  uint64_t total() const { return pce + vectors + twiddles + chunks + msm_scratch + overhead; }
  std::string describe() const;  // "12.3 GiB (PCE 4.85, vectors 8.00, ...)"
};

struct StreamedPlan {
  bool fits = false;  // false: nothing fits the cap; the fields describe the smallest arrangement
  StreamedMode mode = StreamedMode::host2;
  uint64_t chunk_points = 0;     // bases per G1 chunk
  uint64_t g2_chunk_points = 0;  // bases per G2 chunk (g2_chunk_for; 0: G2 on the CPU)
  unsigned buffers = 3;          // chunk buffers
  unsigned witnesses_per_pass = 1;
  bool compact_twiddles = true;  // the two small twiddle tables are taken
  uint64_t cap = 0;
  StreamedMemory memory;
  uint64_t smallest_cap = 0;  // the least cap any arrangement works with (these options)
  // Predicted bytes host -> device per partition: bases / witnesses_per_pass, z, density bitmaps,
  // and a, b, c in host2, the PCE in stream2.
  uint64_t h2d_bytes_per_partition = 0;
  // Pinned host memory the prover holds besides the key: a, b, c (host2), the PCE (stream2).
  uint64_t host_pinned_bytes = 0;
  // The MSM engines' max_pairs_per_pass (bounds their sort buffers by the chunk).
  uint64_t g1_max_pairs() const { return 2 * chunk_points; }
  uint64_t g2_max_pairs() const { return 2 * g2_chunk_points; }
  std::string arrangement() const;  // "pce2 (MatVec on the device, ...), 2^22 bases a G1 chunk, ..."
  std::string describe() const;     // the arrangement, its memory, the cap, PCIe bytes, smallest cap
};

inline constexpr uint64_t kMinChunk = uint64_t{1} << 18;
inline constexpr uint64_t kGoodChunk = uint64_t{1} << 21;
inline constexpr uint64_t kMaxChunk = uint64_t{1} << 26;

// The memory of one arrangement (no choice made).
StreamedMemory streamed_memory(const StreamedShape& shape, StreamedMode mode, uint64_t chunk_points,
                               const StreamedPlanOptions& options = {});

// The plan for a cap (bytes). Throws std::invalid_argument for a forced chunk below 64 or
// witnesses_per_pass 0.
StreamedPlan plan_streamed(const groth16::KeySizes& key, const StreamedShape& shape, uint64_t cap,
                           const StreamedPlanOptions& options = {});

// Bytes of one stream2 staging buffer for a circuit: kPceBlockBytes, or less for a PCE smaller than
// that (the whole PCE and its alignment then fit one block).
uint64_t pce_block_bytes(const StreamedShape& shape);
// Bases per G2 chunk for chunks of `chunk_points` G1 bases: half (the same bytes), at least 64.
uint64_t g2_chunk_for(uint64_t chunk_points);
// Bytes of one chunk buffer: a G1 chunk, or a G2 chunk when that is larger (chunks below 128).
uint64_t chunk_buffer_bytes(uint64_t chunk_points, bool b_g2_on_gpu);

std::string format_gib(uint64_t bytes);  // "12.34 GiB"

}  // namespace cuzk::gpu
