#pragma once
// Batch curve-equation checks for many affine points, e.g. every point of a proving key as it is
// loaded. On CPUs with AVX-512 IFMA the checks run 8 points at a time (fq_ifma.hpp); otherwise
// point by point with Affine::is_on_curve. Both answer exactly the same.
#include <cstddef>
#include <span>

#include "ec/bls12_381.hpp"

namespace cuzk::ec {

// Index of the first point of `pts` that is not on its curve (the point at infinity counts as on
// it), or pts.size() when all are. Coordinates must be fully reduced field elements (as every Fq
// built by the library or a validating decoder is).
size_t first_off_curve(std::span<const G1Affine> pts);
size_t first_off_curve(std::span<const G2Affine> pts);

}  // namespace cuzk::ec
