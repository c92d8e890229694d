#pragma once
// The Groth16 quotient H on the GPU, from device-resident a = A·z, b = B·z, c = C·z (evaluations on
// the domain of n = 2^log_n points, natural order), in both conventions of the CPU provers:
//   Zcash (bellperson, groth16/prover.cpp compute_h): H's coefficients; the first n - 1 are the
//     scalars of the H query (the top one is 0 for a satisfied circuit).
//   Snarkjs (groth16/prover_zkey.cpp): the n values a'b' - c' on the odd half of the 2n-domain
//     (evaluations, no division: the zkey's H points absorb 1/Z).
// Results are bit-identical to the CPU code's. The result overwrites a; b and c are clobbered.
#include <cuda_runtime_api.h>

#include "ff/bls12_381.hpp"
#include "gpu/ntt.hpp"
#include "poly/domain.hpp"

namespace cuzk::gpu {

// d_a, d_b, d_c: device pointers to n elements each. When they are consecutive (d_b = d_a + n,
// d_c = d_b + n) the transforms run as one batch of 3 (better for small n).
// tw: the NTTs' twiddle layout (gpu/ntt.hpp; the result does not depend on it).
void compute_h(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, poly::RootConvention conv,
               cudaStream_t stream = nullptr, TwiddleLayout tw = TwiddleLayout::table);

// The Zcash H (compute_h's Zcash convention) in steps that need only two vectors of n elements
// live at once (the streamed prover under a small device-memory cap): the same operations as
// compute_h, so the result is bit-identical. In order, with a, b, c produced one at a time:
//   h_steps::coset(d_a)             a's evaluations on the coset (inverse NTT, coset NTT);
//   h_steps::coset(d_b)             the same for b;
//   h_steps::quotient(d_a, d_b)     a := a∘b / Z(shift), stored bit-reversed; b's vector is free;
//   h_steps::c_coefficients(d_c)    c (e.g. in b's vector): n·C, bit-reversed (unscaled inverse NTT);
//   h_steps::finish(d_a, d_c)       a := coset inverse NTT of a − C / Z(shift): H's coefficients.
// All asynchronous on `stream`; log_n as compute_h's.
namespace h_steps {
constexpr TwiddleLayout kTable = TwiddleLayout::table;
void coset(ff::Fr* d_v, unsigned log_n, cudaStream_t stream = nullptr, TwiddleLayout tw = kTable);
void quotient(ff::Fr* d_a, const ff::Fr* d_b, unsigned log_n, cudaStream_t stream = nullptr, TwiddleLayout tw = kTable);
void c_coefficients(ff::Fr* d_c, unsigned log_n, cudaStream_t stream = nullptr, TwiddleLayout tw = kTable);
void finish(ff::Fr* d_a, const ff::Fr* d_c, unsigned log_n, cudaStream_t stream = nullptr, TwiddleLayout tw = kTable);
}  // namespace h_steps

}  // namespace cuzk::gpu
