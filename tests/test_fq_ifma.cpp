// The AVX-512 IFMA Fq kernels (ec/fq_ifma.hpp) against the scalar Fq arithmetic and affine
// addition, and the MSM with the vector path on and off. Skipped on CPUs without IFMA.
#include <gtest/gtest.h>

#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/fq_ifma.hpp"
#include "ec/msm.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using ff::Fq;

namespace {

#define REQUIRE_IFMA()                                                       \
  do {                                                                       \
    if (!fq_ifma::cpu_supported()) GTEST_SKIP() << "CPU lacks AVX-512 IFMA"; \
  } while (0)

Fq edge(int i, Xoshiro256& rng) {
  switch (i % 6) {
    case 0:
      return Fq::zero();
    case 1:
      return Fq::one();
    case 2:
      return -Fq::one();  // p - 1 (as a value)
    case 3:
      return Fq::from_raw({0, 0, 0, 0, 0, 0});
    case 4: {
      Fq::LimbsT m = Fq::MOD;  // raw p - 1: the largest stored integer
      m[0] -= 1;
      return Fq::from_raw(m);
    }
    default:
      return Fq::random(rng);
  }
}

void run_op(int op, const Fq* a, const Fq* b, Fq* r) {
  uint64_t x[8][6], y[8][6], z[8][6];
  for (int l = 0; l < 8; ++l)
    for (int i = 0; i < 6; ++i) {
      x[l][i] = a[l].raw()[i];
      y[l][i] = b[l].raw()[i];
    }
  fq_ifma::test_op(op, x, y, z);
  for (int l = 0; l < 8; ++l) r[l] = Fq::from_raw({z[l][0], z[l][1], z[l][2], z[l][3], z[l][4], z[l][5]});
}

TEST(FqIfma, ArithmeticMatchesScalar) {
  REQUIRE_IFMA();
  Xoshiro256 rng(11);
  for (int rep = 0; rep < 400; ++rep) {
    Fq a[8], b[8], r[8];
    for (int l = 0; l < 8; ++l) {
      a[l] = rep < 100 ? edge(rep + l, rng) : Fq::random(rng);
      b[l] = rep < 100 ? edge(rep * 7 + l * 3, rng) : Fq::random(rng);
    }
    run_op(0, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l] * b[l]) << rep << " " << l;
    run_op(4, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l] * b[l]) << rep << " " << l;
    run_op(5, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l].square()) << rep << " " << l;
    run_op(1, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l] + b[l]) << rep << " " << l;
    run_op(2, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l] - b[l]) << rep << " " << l;
    run_op(3, a, b, r);
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], a[l]) << rep << " " << l;
  }
}

// g1_batch_add / g2_batch_add against the scalar affine addition, for every batch size 1..70
// (padding of the last vector step), a batch larger than the kernel's chunk, and both signs.
template <class C>
void check_batch_add(size_t min_k, size_t max_k, uint64_t seed) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  Xoshiro256 rng(seed);
  J gen;
  if constexpr (std::is_same_v<C, G1Config>) {
    gen = J(g1_generator());
  } else {
    gen = J(g2_generator());
  }
  for (size_t k = min_k; k <= max_k; ++k) {
    std::vector<A> q(k), p(k), want(k);
    std::vector<uint8_t> neg(k);
    for (size_t i = 0; i < k; ++i) {
      q[i] = gen.mul(Fr::random(rng)).to_affine();
      p[i] = gen.mul(Fr::random(rng)).to_affine();
      neg[i] = rng() & 1;
      want[i] = (J(q[i]) + J(neg[i] ? -p[i] : p[i])).to_affine();
    }
    std::vector<uint64_t*> qp(k);
    std::vector<const uint64_t*> pp(k);
    for (size_t i = 0; i < k; ++i) {
      qp[i] = reinterpret_cast<uint64_t*>(&q[i]);
      pp[i] = reinterpret_cast<const uint64_t*>(&p[i]);
    }
    if constexpr (std::is_same_v<C, G1Config>) {
      fq_ifma::g1_batch_add(qp.data(), pp.data(), neg.data(), k);
    } else {
      fq_ifma::g2_batch_add(qp.data(), pp.data(), neg.data(), k);
    }
    for (size_t i = 0; i < k; ++i) {
      ASSERT_EQ(q[i].x, want[i].x) << k << " " << i;
      ASSERT_EQ(q[i].y, want[i].y) << k << " " << i;
    }
  }
}

TEST(FqIfma, G1BatchAddMatchesScalar) {
  REQUIRE_IFMA();
  check_batch_add<G1Config>(1, 70, 12);
  check_batch_add<G1Config>(2050, 2050, 15);  // split into chunks of 1024
}

TEST(FqIfma, G2BatchAddMatchesScalar) {
  REQUIRE_IFMA();
  check_batch_add<G2Config>(1, 40, 14);
}

// The whole MSM with the vector path on and forced off: identical results, and equal to the
// naive sum, including degenerate inputs (repeated points and small repeated scalars, which
// exercise doublings and cancellations in the buckets).
template <class C>
void check_msm_on_off(std::initializer_list<size_t> sizes) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  ThreadPool pool(2);
  Xoshiro256 rng(13);
  for (size_t n : sizes) {
    std::vector<A> bases;
    if constexpr (std::is_same_v<C, G1Config>) {
      bases = g1_test_bases(n, 3, &pool);
    } else {
      bases = g2_test_bases(n, 3, &pool);
    }
    std::vector<Fr> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = (i % 5 == 0) ? Fr::from_u64(i % 3 + 2) : Fr::random(rng);
    for (size_t i = 0; i + 1 < n; i += 17) bases[i + 1] = bases[i];  // repeated points
    MsmOptions o;
    o.pool = &pool;
    fq_ifma::set_enabled(true);
    const J on = msm(std::span<const A>(bases), std::span<const Fr>(k), o);
    fq_ifma::set_enabled(false);
    const J off = msm(std::span<const A>(bases), std::span<const Fr>(k), o);
    fq_ifma::set_enabled(true);
    J want;
    for (size_t i = 0; i < n; ++i) want += J(bases[i]).mul(k[i]);
    EXPECT_EQ(on.to_affine(), off.to_affine()) << n;
    EXPECT_EQ(on.to_affine(), want.to_affine()) << n;
  }
}

TEST(FqIfma, G1MsmOnOffAgree) {
  REQUIRE_IFMA();
  check_msm_on_off<G1Config>({100, 3000, size_t{1} << 14});
}

TEST(FqIfma, G2MsmOnOffAgree) {
  REQUIRE_IFMA();
  check_msm_on_off<G2Config>({100, 3000});
}

}  // namespace
