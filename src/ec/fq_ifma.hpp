#pragma once
// AVX-512 IFMA batch-affine additions over Fq and Fq2 (BLS12-381 G1 and G2), used by the MSM bucket flush
// (msm_buckets.hpp). See fq_ifma.cpp for the representation and the bounds.
//
// Elements are passed in the library's own form: 6 little-endian 64-bit limbs, Montgomery with
// R = 2^384, fully reduced. Results are bit-identical to the scalar Fq formulas.
//
// Only fq_ifma.cpp contains AVX-512 code (per-function target attributes); callers must check
// active() first, which combines run-time CPU detection with a process-wide switch.
#include <cstddef>
#include <cstdint>

namespace cuzk::ec::fq_ifma {

// This CPU has AVX-512F and AVX-512 IFMA (checked once).
bool cpu_supported();
// Process-wide switch; set_enabled(false) forces the scalar bucket additions (tests, benchmarks).
// Default on, unless the environment variable CUZK_MSM_SIMD is "0" at start-up.
void set_enabled(bool enabled);
// Enabled and supported.
bool active();

// For i < k: q[i] += (neg[i] ? -p[i] : p[i]) as affine points, sharing one field inversion.
// q[i] points to 12 words (x then y) of a bucket, p[i] to 12 words (x then y) of a base point.
// Preconditions: all q[i] distinct, q[i].x != p[i].x (no doubling, no cancellation: callers keep
// those on the scalar path). Requires active().
void g1_batch_add(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k);
// The same over Fq2 (BLS12-381 G2): coordinates of 12 words (c0 then c1), points of 24 words.
void g2_batch_add(uint64_t* const* q, const uint64_t* const* p, const uint8_t* neg, size_t k);

// For i < k: ok[i] = 1 if the point p[i] (x then y, fully reduced coordinates of 6 words for G1,
// 12 for G2; not the point at infinity) satisfies the curve equation y^2 = x^3 + b, else 0.
// Requires active().
void g1_on_curve(const uint64_t* const* p, size_t k, uint8_t* ok);
void g2_on_curve(const uint64_t* const* p, size_t k, uint8_t* ok);

// Test hooks on 8 elements a[l], b[l] (6 words each, < p): the 8-lane kernels round-tripped
// through the 52-bit representation, returning canonical results in r[l].
//   op 0: a*b*2^-384 (the scalar Montgomery product), 1: a + b, 2: a - b, 3: a (conversion only),
//   4: a*b*2^-384 through the shortened product (division by 2^400), 5: a*a*2^-384 (squaring).
void test_op(int op, const uint64_t (*a)[6], const uint64_t (*b)[6], uint64_t (*r)[6]);

}  // namespace cuzk::ec::fq_ifma
