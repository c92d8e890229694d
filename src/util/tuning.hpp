#pragma once
// Process-wide tuning switches of the arithmetic kernels, in one place. The kernels (ec/msm.cpp,
// ec/fq_ifma.cpp, pce/matvec.cpp, gpu/msm_impl.cuh) read tuning(); nothing else in the tree reads
// these environment variables.
//
// Values come from, in order: the defaults below; the daemon's [tuning] config section
// (set_tuning at start-up); the environment variables, read once, which override both (for
// measurements without a config file):
//   CUZK_MSM_SIMD=0|1                 msm_simd
//   CUZK_MSM_GLV=0|1                  msm_glv
//   CUZK_MATVEC_STREAM=0|1            matvec_stream
//   CUZK_GPU_MSM_REDUCE_THREADS=N     gpu_msm_reduce_threads (32..4096)
//   CUZK_GPU_MSM_PREFETCH=0|1         gpu_msm_prefetch
//   CUZK_GPU_MSM_AFFINE=0|1           gpu_msm_affine
// A malformed value is reported by env_tuning_overrides (the daemon refuses to start with it).
#include <optional>
#include <string>
#include <vector>

namespace cuzk {

struct Tuning {
  bool msm_simd = true;                            // AVX-512 IFMA bucket kernels in CPU MSMs (when the CPU has them)
  bool msm_glv = true;                             // the GLV endomorphism in CPU MSMs of moderate size
  bool matvec_stream = true;                       // non-temporal stores in the CPU MatVec
  std::optional<unsigned> gpu_msm_reduce_threads;  // per SM in the GPU bucket reduction; unset: 256
  std::optional<bool> gpu_msm_prefetch;            // base prefetch in the GPU accumulation; unset: G1 only
  std::optional<bool> gpu_msm_affine;              // batch-affine GPU bucket accumulation; unset: off
};

// One setting with where its value came from ("default", "config" or the variable's name).
struct TuningValue {
  std::string key, value, source;
};

// The effective tuning (the defaults plus the environment until set_tuning is called).
const Tuning& tuning();
// Replaces the effective tuning; call before the kernels run (start-up), not concurrently with them.
void set_tuning(const Tuning& t);

// Applies the environment's overrides to `t`; returns one entry per variable applied, or throws
// std::invalid_argument naming a variable whose value is malformed.
std::vector<TuningValue> apply_env_tuning(Tuning& t);
// Every key of `t` with its value, for logs and status (sources from `overridden`, else `base`).
std::vector<TuningValue> describe_tuning(const Tuning& t, const std::vector<TuningValue>& overridden,
                                         const std::string& base);

}  // namespace cuzk
