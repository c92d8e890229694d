#pragma once
// The TEST-ONLY setup (groth16/setup.hpp) streamed through a FixedBaseMultiplier (the CPU tables
// here, batched GPU kernels in groth16/gpu/fixed_base.hpp), for keys too large for setup()'s all-in-memory
// working set: the 32 GiB PoRep key is ~47 GB of points. The QAP values at tau stay in memory
// (3 x 32 bytes a column: ~12.5 GB at 32 GiB); every section's scalars are made chunk by chunk from
// them, multiplied, checked and handed on while the next chunk is computed. Two destinations:
//
//  - setup_to_file: a bellperson .params file, each chunk written at its final offset. Host memory
//    is the QAP values plus two chunks, whatever the key's size. The file is written through
//    AtomicFile (space reserved up front, so a full disk fails at the start; nothing under the
//    final name until the last byte is on disk), and is byte-identical to
//    write_params(setup(pce, tw)) for any multiplier: every point is a unique group element and the
//    layout is fixed.
//  - setup_to_memory: the ProvingKey itself, each chunk decoded in place by the .params reader's
//    own decoder (decode_params_points), so the key is exactly what read_params of setup_to_file's
//    file returns, without the file (a 32 GiB WindowPoSt key does not fit a 64 GiB disk) and without
//    a serialized copy: host memory is the key plus the QAP values and two chunks.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "groth16/key_source.hpp"
#include "groth16/setup.hpp"
#include "util/result.hpp"

namespace cuzk::groth16 {

// k_i * G for the generator G of G1 or G2, encoded uncompressed (zcash: 96 / 192 bytes, the point at
// infinity with its 0x40 flag). Implementations may keep tables and device memory between calls.
class FixedBaseMultiplier {
 public:
  virtual ~FixedBaseMultiplier() = default;
  // For logs: "cpu (16 threads)", "gpu 0 (NVIDIA H200)".
  virtual std::string describe() const = 0;
  // Called once before the first multiplication with the counts to come (to size tables).
  virtual void prepare(uint64_t g1_count, uint64_t g2_count) = 0;
  // out.size() must be 96 (g1) or 192 (g2) times scalars.size().
  virtual void g1(std::span<const Fr> scalars, std::span<uint8_t> out) = 0;
  virtual void g2(std::span<const Fr> scalars, std::span<uint8_t> out) = 0;
  // Points per call that keep the implementation busy (the writer's chunk size).
  virtual size_t chunk_points() const = 0;
};

// FixedBaseTable on the pool's threads.
std::unique_ptr<FixedBaseMultiplier> cpu_fixed_base_multiplier(ThreadPool* pool = nullptr);

struct SetupFileStats {
  uint64_t file_bytes = 0;  // the .params file's size (setup_to_memory: the size it would have)
  uint64_t g1_points = 0, g2_points = 0;
  double qap_s = 0;         // Lagrange basis + u, v, w at tau
  double multiply_s = 0;    // scalars + fixed-base multiplications (the writer overlaps)
  double write_wait_s = 0;  // time spent waiting for the disk (setup_to_memory: for the decoder)
  double total_s = 0;
};

// What both destinations take.
struct SetupStreamOptions {
  SetupProgressFn progress;  // points done / total
  ThreadPool* pool = nullptr;
  size_t chunk_points = 0;  // 0: the multiplier's choice
  // Polled between chunks; true stops the setup with an error ("interrupted"); a file's partial
  // data is removed (e.g. on SIGINT: a 47 GB temporary file would otherwise fill the disk).
  std::function<bool()> cancelled;
};

struct SetupFileOptions : SetupStreamOptions {
  std::string vk_path;  // also write the .vk (atomically); empty: no .vk
};

struct SetupMemoryOptions : SetupStreamOptions {
  // Check every point's subgroup as it is decoded (ParamsReadOptions::subgroup_checks).
  bool subgroup_checks = false;
};

// The point counts of the key the setup makes for this Pce (what its .params file holds), from the
// Pce's counts and density bitmaps alone. Throws std::invalid_argument when the Pce is too large
// for a domain (> 2^28 rows).
KeySizes setup_key_sizes(const pce::Pce& pce);
// Host bytes the streaming setup holds besides the key's points, for a budget: the QAP values at
// tau (3 per column) with the Lagrange basis they are made from, and two chunks of encoded points
// with their scalars. The multiplier's own tables are not included.
uint64_t setup_working_bytes(const pce::Pce& pce, size_t chunk_points);

// TEST-ONLY (see setup.hpp). Errors: the exceptions setup() documents as an error result, a point at
// infinity (which bellperson's reader rejects), a section of more than 2^32 - 1 points, I/O errors
// (a full disk: at the start). On any error no file exists under `params_path`.
Result<SetupFileStats> setup_to_file(const pce::Pce& pce, const ToxicWaste& tw, const std::string& params_path,
                                     FixedBaseMultiplier& mul, const SetupFileOptions& options = {});

// TEST-ONLY (see setup.hpp). The key that read_params would return for setup_to_file's file (the
// same toxic waste gives the same key, vk included). Errors as setup_to_file's, without the I/O
// ones; out of memory is an error. `stats`, when given, is filled.
Result<ProvingKey> setup_to_memory(const pce::Pce& pce, const ToxicWaste& tw, FixedBaseMultiplier& mul,
                                   const SetupMemoryOptions& options = {}, SetupFileStats* stats = nullptr);

}  // namespace cuzk::groth16
