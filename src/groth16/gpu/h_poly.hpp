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
#include "poly/domain.hpp"

namespace cuzk::gpu {

// d_a, d_b, d_c: device pointers to n elements each. When they are consecutive (d_b = d_a + n,
// d_c = d_b + n) the transforms run as one batch of 3 (better for small n).
void compute_h(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, poly::RootConvention conv,
               cudaStream_t stream = nullptr);

}  // namespace cuzk::gpu
