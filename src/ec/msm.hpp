#pragma once
// Multi-scalar multiplication sum_i k_i * P_i on the CPU for G1 and G2.
//
// Algorithm (msm_pippenger.hpp): Pippenger's bucket method with signed (balanced) window digits,
// so a window of c bits needs 2^(c-1) buckets. Buckets are affine and filled with batched affine
// additions (one field inversion shared by a whole batch, Montgomery's trick: about 6
// multiplications per addition instead of 11 for a mixed Jacobian addition), then reduced by
// running sums (also batched). The windows are jobs that all threads of the pool share
// dynamically (points claimed in chunks, one bucket array per participating thread), so slow or
// shared cores do not hold the result back. Filecoin-style witnesses are dominated by 0 and 1:
// scalars equal to 0 are skipped, scalars equal to 1 bypass Pippenger and are summed directly
// (batched affine sums). On CPUs with AVX-512 IFMA the batched additions run 8 at a time in vector
// registers (ec/fq_ifma.hpp; bit-identical results; CUZK_MSM_SIMD=0 in the environment or
// fq_ifma::set_enabled(false) forces the scalar code). Up to a few hundred thousand scalars the
// endomorphism split (msm_glv.hpp: k = k1 + k2 z^2, 127-bit halves over P_i and phi(P_i)) halves
// the windows; CUZK_MSM_GLV=0 in the environment or MsmConfig::endo turns it off. Small MSMs (up
// to a few thousand points) take another path (MsmPath::kShared): one batch serves all windows of a
// point, and the windows are reduced together, since per-window batches of a few hundred points
// are mostly inversions and reduction tails.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ec/bls12_381.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::ec {

// Endomorphism split of the scalars (msm_glv.hpp): k = k1 + k2 z^2 with 127-bit halves, run over
// the points P_i and phi(P_i) (phi(P) = [z^2]P). Same results, fewer windows.
enum class MsmEndo : uint8_t {
  kAuto,  // msm_default_config decides by size (never when CUZK_MSM_GLV=0 is in the environment)
  kOff,
  kOn,  // also for large MSMs (the bases must be fewer than 2^31; else it stays off)
};

// Which engine runs the MSM (msm_pippenger.hpp).
enum class MsmPath : uint8_t {
  kAuto,    // msm_default_config decides by size (kJobs when a jobs knob below is set)
  kJobs,    // Pippenger jobs (window, bucket range) shared dynamically by the threads: large MSMs
  kShared,  // each point added into all windows of a group, batches shared by the windows, the
            // windows reduced together: small MSMs, where per-window batches are mostly inversions
};

// Tuning knobs (0 = automatic). Exposed for benchmarks and tuning; callers normally leave them.
struct MsmConfig {
  unsigned window_bits = 0;       // c: window width in bits (2..24)
  unsigned splits = 0;            // bucket ranges per window: jobs = windows * splits
  unsigned batch = 0;             // batch-affine batch size; ignored for Jacobian buckets
  bool jacobian_buckets = false;  // true: Jacobian buckets with mixed additions (the slower baseline)
  size_t chunk = 0;               // max non-trivial scalars recoded per pass (memory bound); 0 = auto
  MsmEndo endo = MsmEndo::kAuto;  // endomorphism split
  MsmPath path = MsmPath::kAuto;  // window_bits applies to either path, the other knobs to kJobs
};

struct MsmOptions {
  // Optional density bitmap, bellperson semantics: scalars are the full assignment (one per bit);
  // scalar i contributes iff bit i is set, paired with base number popcount(bits < i). bases.size()
  // must equal the number of set bits among the first scalars.size() bits (later bits are
  // ignored); the bitmap needs at least ceil(scalars.size()/64) words. nullptr = every scalar has
  // its base (bases.size() == scalars.size()).
  const std::vector<uint64_t>* density = nullptr;  // bit i = word i/64, bit i%64
  ThreadPool* pool = nullptr;                      // default ThreadPool::global()
  const MsmConfig* config = nullptr;               // nullptr = msm_default_config
};

// Bases may contain the point at infinity. Size mismatches throw std::invalid_argument.
G1 msm(std::span<const G1Affine> bases, std::span<const Fr> scalars, const MsmOptions& = {});
G2 msm(std::span<const G2Affine> bases, std::span<const Fr> scalars, const MsmOptions& = {});
// sum_i k_i P_i + sum_j l_j Q_j as one MSM over the points of both (one set of windows and bucket
// reductions instead of two; Groth16's C and H terms). Each part needs as many scalars as points;
// options.density must be null.
G1 msm_sum(std::span<const G1Affine> bases1, std::span<const Fr> scalars1, std::span<const G1Affine> bases2,
           std::span<const Fr> scalars2, const MsmOptions& = {});
// Same with canonical (non-Montgomery) little-endian scalars; values >= r are reduced mod r.
G1 msm_canonical(std::span<const G1Affine> bases, std::span<const ff::Limbs<4>> scalars, const MsmOptions& = {});
G2 msm_canonical(std::span<const G2Affine> bases, std::span<const ff::Limbs<4>> scalars, const MsmOptions& = {});

// The configuration msm() picks for `n` scalars that are neither 0 nor 1, on `threads` threads
// (endo: kOn or kOff; path: kJobs or kShared). `endo` or `path` other than kAuto fixes that choice.
// (msm() multiplies up to 2 such scalars' points one by one when no configuration is given.)
MsmConfig msm_default_config(size_t n, unsigned threads, bool g2, MsmEndo endo = MsmEndo::kAuto,
                             MsmPath path = MsmPath::kAuto);
// Number of signed-digit windows of width c needed for scalars < r, or with `endo` for the split
// halves (magnitudes <= z^2/2 + 1, about 2^126.4).
unsigned msm_num_windows(unsigned window_bits, bool endo = false);
// The process-wide default for MsmEndo::kAuto: on unless CUZK_MSM_GLV=0 was in the environment.
bool msm_endo_default();

// Cheap, reproducible bases for tests and benchmarks: P_i = (a + i*b) * G with (a, b) =
// test_bases_dlog(seed), built by repeated additions and a parallel batch conversion to affine.
std::pair<Fr, Fr> test_bases_dlog(uint64_t seed);
std::vector<G1Affine> g1_test_bases(size_t n, uint64_t seed, ThreadPool* pool = nullptr);
std::vector<G2Affine> g2_test_bases(size_t n, uint64_t seed, ThreadPool* pool = nullptr);

}  // namespace cuzk::ec
