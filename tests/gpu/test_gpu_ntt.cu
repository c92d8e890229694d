// GPU NTT, H and MatVec against the CPU code (poly::Domain, groth16::compute_h, the snarkjs H
// sequence of prover_zkey, pce::matvec) on random inputs: every transform variant, both root
// conventions, both orders on each side, batches, round trips; H in both conventions; MatVec on
// built-in circuits and random sparse matrices in every coefficient encoding and row-pointer width.
// Mismatches report the first differing index with both values.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "circuits/builtin.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/ntt.hpp"
#include "gpu_test_support.cuh"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/pce_matvec.hpp"
#include "groth16/gpu/pce_stream.hpp"
#include "groth16/prover.hpp"
#include "pce/build.hpp"
#include "pce/matvec.hpp"
#include "poly/domain.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using ff::Fr;
using gpu::NttOrder;
using poly::RootConvention;

namespace {

std::vector<Fr> random_vec(size_t n, uint64_t seed) {
  Xoshiro256 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

// First mismatch, with both values, or success.
::testing::AssertionResult same_values(const std::vector<Fr>& got, const std::vector<Fr>& want,
                                       const std::string& what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      size_t count = 0;
      for (size_t j = i; j < got.size(); ++j) count += got[j] != want[j];
      return ::testing::AssertionFailure()
             << what << ": first mismatch at index " << i << " of " << got.size() << " (" << count << " differ): gpu "
             << got[i].to_hex() << " cpu " << want[i].to_hex();
    }
  }
  return ::testing::AssertionSuccess();
}

uint32_t rev_bits(uint32_t i, unsigned log_n) {
  uint32_t r = 0;
  for (unsigned b = 0; b < log_n; ++b) r |= ((i >> b) & 1u) << (log_n - 1 - b);
  return r;
}

// Bit-reverses each of the `batch` vectors of 2^log_n elements (host).
std::vector<Fr> permuted(const std::vector<Fr>& v, unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  std::vector<Fr> out(v.size());
  for (size_t off = 0; off < v.size(); off += n)
    for (uint32_t i = 0; i < n; ++i) out[off + rev_bits(i, log_n)] = v[off + i];
  return out;
}

std::vector<Fr> download(const gpu::DeviceBuffer<Fr>& d) {
  std::vector<Fr> v(d.size());
  d.download(v);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  return v;
}
gpu::DeviceBuffer<Fr> upload(const std::vector<Fr>& v) {
  gpu::DeviceBuffer<Fr> d(v.size());
  d.upload(v);
  return d;
}

enum class Kind { Forward, Inverse, CosetForward, CosetInverse };
const char* name(Kind k) {
  switch (k) {
    case Kind::Forward:
      return "forward";
    case Kind::Inverse:
      return "inverse";
    case Kind::CosetForward:
      return "coset_forward";
    default:
      return "coset_inverse";
  }
}

void cpu_transform(const poly::Domain& dom, Kind k, std::vector<Fr>& v, const Fr& shift) {
  const size_t n = dom.size();
  for (size_t off = 0; off < v.size(); off += n) {
    std::span<Fr> s(v.data() + off, n);
    switch (k) {
      case Kind::Forward:
        dom.fft(s);
        break;
      case Kind::Inverse:
        dom.ifft(s);
        break;
      case Kind::CosetForward:
        dom.coset_fft(s, shift);
        break;
      case Kind::CosetInverse:
        dom.coset_ifft(s, shift);
        break;
    }
  }
}

void gpu_transform(const gpu::GpuDomain& dom, Kind k, Fr* d, size_t batch, const Fr& shift, NttOrder in, NttOrder out) {
  switch (k) {
    case Kind::Forward:
      dom.forward(d, batch, in, out);
      break;
    case Kind::Inverse:
      dom.inverse(d, batch, in, out);
      break;
    case Kind::CosetForward:
      dom.coset_forward(d, batch, shift, in, out);
      break;
    case Kind::CosetInverse:
      dom.coset_inverse(d, batch, shift, in, out);
      break;
  }
}

const char* order_name(NttOrder o) {
  return o == NttOrder::Natural ? "natural" : "bitrev";
}

// Every variant and order pair at 2^log_n, against the CPU domain of the same convention.
void check_all_variants(unsigned log_n, RootConvention conv, gpu::TwiddleLayout tw = gpu::TwiddleLayout::table) {
  const size_t n = size_t{1} << log_n;
  const size_t batch = log_n <= 11 ? 5 : (log_n <= 20 ? 2 : 1);
  const auto gdom = gpu::GpuDomain::get(log_n, conv, tw);
  ASSERT_EQ(gdom->twiddle_layout(), tw);
  ASSERT_EQ(gdom->size(), n);
  const poly::Domain& dom = gdom->host();
  ASSERT_TRUE(dom.omega() == poly::Domain::create(n, conv).value().omega());
  const std::vector<Fr> x = random_vec(n * batch, 1000 * log_n + static_cast<unsigned>(conv));
  Xoshiro256 rng(log_n);
  const Fr shift = Fr::random(rng);
  for (Kind k : {Kind::Forward, Kind::Inverse, Kind::CosetForward, Kind::CosetInverse}) {
    std::vector<Fr> want = x;
    cpu_transform(dom, k, want, shift);
    for (NttOrder in : {NttOrder::Natural, NttOrder::BitReversed}) {
      for (NttOrder out : {NttOrder::Natural, NttOrder::BitReversed}) {
        gpu::DeviceBuffer<Fr> d = upload(in == NttOrder::Natural ? x : permuted(x, log_n));
        gpu_transform(*gdom, k, d.data(), batch, shift, in, out);
        std::vector<Fr> got = download(d);
        if (out == NttOrder::BitReversed) got = permuted(got, log_n);
        ASSERT_TRUE(same_values(got, want,
                                std::string(name(k)) + " 2^" + std::to_string(log_n) + " " + to_string(conv) + " " +
                                    order_name(in) + "->" + order_name(out) + " batch " + std::to_string(batch)));
      }
    }
  }
}

class GpuNttSizes : public ::testing::TestWithParam<unsigned> {};

TEST_P(GpuNttSizes, EveryVariantMatchesCpuZcash) {
  CUZK_REQUIRE_GPU();
  check_all_variants(GetParam(), RootConvention::Zcash);
}
TEST_P(GpuNttSizes, EveryVariantMatchesCpuSnarkjs) {
  CUZK_REQUIRE_GPU();
  check_all_variants(GetParam(), RootConvention::Snarkjs);
}
// The compact twiddles (two small tables whose product is w^j) give the same values: sizes with
// one high table entry (2^12 and below), several, and the largest a test allocates quickly.
TEST_P(GpuNttSizes, CompactTwiddlesMatchCpu) {
  CUZK_REQUIRE_GPU();
  check_all_variants(GetParam(), RootConvention::Zcash, gpu::TwiddleLayout::compact);
  check_all_variants(GetParam(), RootConvention::Snarkjs, gpu::TwiddleLayout::compact);
}
INSTANTIATE_TEST_SUITE_P(Sizes, GpuNttSizes, ::testing::Values(1u, 2u, 3u, 10u, 11u, 12u, 16u, 17u, 20u, 24u),
                         [](const auto& info) { return "log" + std::to_string(info.param); });

// Exact known values independent of the CPU NTT: the transform of a delta at 1 is (w^i), of the
// all-ones vector is (n, 0, ..., 0).
TEST(GpuNtt, KnownTransforms) {
  CUZK_REQUIRE_GPU();
  for (RootConvention conv : {RootConvention::Zcash, RootConvention::Snarkjs}) {
    const unsigned log_n = 13;
    const size_t n = size_t{1} << log_n;
    const auto gdom = gpu::GpuDomain::get(log_n, conv);
    const Fr w = poly::root_of_unity(log_n, conv);
    std::vector<Fr> delta(n, Fr::zero());
    delta[1] = Fr::one();
    gpu::DeviceBuffer<Fr> d = upload(delta);
    gdom->forward(d.data(), 1, NttOrder::Natural, NttOrder::Natural);
    std::vector<Fr> want(n);
    Fr p = Fr::one();
    for (auto& v : want) {
      v = p;
      p *= w;
    }
    ASSERT_TRUE(same_values(download(d), want, std::string("delta_1 ") + to_string(conv)));
    std::vector<Fr> ones(n, Fr::one());
    d = upload(ones);
    gdom->forward(d.data(), 1, NttOrder::Natural, NttOrder::BitReversed);
    std::vector<Fr> want2(n, Fr::zero());
    want2[0] = Fr::from_u64(n);
    ASSERT_TRUE(same_values(download(d), want2, std::string("ones ") + to_string(conv)));
  }
}

TEST(GpuNtt, BlockSizeDoesNotChangeResults) {
  CUZK_REQUIRE_GPU();
  struct Restore {
    ~Restore() { gpu::set_ntt_pass_threads(256); }
  } restore;
  gpu::set_ntt_pass_threads(128);
  check_all_variants(17, RootConvention::Zcash);
  check_all_variants(9, RootConvention::Snarkjs);
  EXPECT_THROW(gpu::set_ntt_pass_threads(100), std::invalid_argument);
  EXPECT_THROW(gpu::set_ntt_pass_threads(512), std::invalid_argument);  // above the launch bound
}

TEST(GpuNtt, RoundTripsRestoreTheInput) {
  CUZK_REQUIRE_GPU();
  for (unsigned log_n : {5u, 14u, 19u}) {
    const auto gdom = gpu::GpuDomain::get(log_n, RootConvention::Zcash);
    const size_t batch = 3;
    const std::vector<Fr> x = random_vec(gdom->size() * batch, 77 + log_n);
    gpu::DeviceBuffer<Fr> d = upload(x);
    const Fr shift = Fr::from_u64(12345);
    gdom->forward(d.data(), batch, NttOrder::Natural, NttOrder::BitReversed);
    gdom->inverse(d.data(), batch, NttOrder::BitReversed, NttOrder::Natural);
    ASSERT_TRUE(same_values(download(d), x, "fft/ifft 2^" + std::to_string(log_n)));
    gdom->coset_forward(d.data(), batch, shift, NttOrder::Natural, NttOrder::Natural);
    gdom->coset_inverse(d.data(), batch, shift, NttOrder::Natural, NttOrder::Natural);
    ASSERT_TRUE(same_values(download(d), x, "coset round trip 2^" + std::to_string(log_n)));
  }
}

TEST(GpuNtt, BitReverseMatchesHostPermutation) {
  CUZK_REQUIRE_GPU();
  for (unsigned log_n : {1u, 4u, 15u}) {
    const std::vector<Fr> x = random_vec((size_t{2} << log_n), log_n);
    gpu::DeviceBuffer<Fr> d = upload(x);
    gpu::bit_reverse(d.data(), log_n, 2);
    ASSERT_TRUE(same_values(download(d), permuted(x, log_n), "bit_reverse 2^" + std::to_string(log_n)));
  }
}

TEST(GpuNtt, RejectsBadArguments) {
  CUZK_REQUIRE_GPU();
  EXPECT_THROW(gpu::GpuDomain::get(0, RootConvention::Zcash), std::invalid_argument);
  EXPECT_THROW(gpu::GpuDomain::get(29, RootConvention::Zcash), std::invalid_argument);
  const auto gdom = gpu::GpuDomain::get(4, RootConvention::Zcash);
  gpu::DeviceBuffer<Fr> d(16);
  EXPECT_THROW(gdom->forward(d.data(), 0, NttOrder::Natural, NttOrder::Natural), std::invalid_argument);
  EXPECT_THROW(gdom->coset_inverse(d.data(), 1, Fr::zero(), NttOrder::Natural, NttOrder::Natural),
               std::invalid_argument);
}

// snarkjs' H sequence as groth16/prover_zkey.cpp runs it on the CPU: iFFT, coset FFT on the odd
// half of the 2n-domain (shift w_{2n}), then a*b - c.
std::vector<Fr> cpu_h_snarkjs(unsigned log_n, std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c) {
  const poly::Domain dom = poly::Domain::create(size_t{1} << log_n, RootConvention::Snarkjs).value();
  const Fr shift = poly::root_of_unity(log_n + 1, RootConvention::Snarkjs);
  for (auto* v : {&a, &b, &c}) {
    dom.ifft(*v);
    dom.coset_fft(*v, shift);
  }
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] * b[i] - c[i];
  return a;
}

void check_h(unsigned log_n, RootConvention conv, bool packed) {
  const size_t n = size_t{1} << log_n;
  const std::vector<Fr> a = random_vec(n, 11 + log_n), b = random_vec(n, 22 + log_n), c = random_vec(n, 33 + log_n);
  std::vector<Fr> want;
  if (conv == RootConvention::Zcash) {
    want = groth16::compute_h(n, a, b, c);
  } else {
    want = cpu_h_snarkjs(log_n, a, b, c);
  }
  std::vector<Fr> got;
  if (packed) {
    std::vector<Fr> abc(a);
    abc.insert(abc.end(), b.begin(), b.end());
    abc.insert(abc.end(), c.begin(), c.end());
    gpu::DeviceBuffer<Fr> d = upload(abc);
    gpu::compute_h(d.data(), d.data() + n, d.data() + 2 * n, log_n, conv);
    got = download(d);
  } else {
    gpu::DeviceBuffer<Fr> da = upload(a), db = upload(b), dc = upload(c);
    gpu::compute_h(da.data(), db.data(), dc.data(), log_n, conv);
    got = download(da);
  }
  got.resize(want.size());
  ASSERT_TRUE(same_values(
      got, want,
      std::string("H ") + to_string(conv) + " 2^" + std::to_string(log_n) + (packed ? " packed" : " separate")));
}

TEST(GpuH, MatchesCpuProverZcash) {
  CUZK_REQUIRE_GPU();
  for (unsigned log_n : {1u, 2u, 10u, 13u, 20u}) {
    check_h(log_n, RootConvention::Zcash, true);
    check_h(log_n, RootConvention::Zcash, false);
  }
}

TEST(GpuH, MatchesCpuProverSnarkjs) {
  CUZK_REQUIRE_GPU();
  ASSERT_TRUE(poly::Domain::create(1024, RootConvention::Snarkjs).value().default_coset_shift() ==
              poly::root_of_unity(11, RootConvention::Snarkjs));
  for (unsigned log_n : {1u, 2u, 10u, 13u, 20u}) {
    check_h(log_n, RootConvention::Snarkjs, true);
    check_h(log_n, RootConvention::Snarkjs, false);
  }
}

// MatVec on the device equals pce::matvec; then H from the device-resident a, b, c equals the CPU
// prover's, and its top coefficient is 0 (a satisfied circuit: deg H <= n - 2).
void check_matvec(const pce::Pce& p, const std::vector<Fr>& inputs, const std::vector<Fr>& aux, const std::string& what,
                  bool with_h) {
  const pce::MatVecResult cpu = pce::matvec(p, inputs, aux);
  const gpu::GpuPce g(p);
  ASSERT_EQ(g.num_constraints(), p.num_constraints());
  const size_t rows = p.num_constraints();
  const size_t len = poly::Domain::size_for(rows);
  gpu::PinnedBuffer<Fr> zin(inputs.size()), zaux(aux.size());
  std::copy(inputs.begin(), inputs.end(), zin.data());
  std::copy(aux.begin(), aux.end(), zaux.data());
  gpu::DeviceBuffer<Fr> z(g.num_columns()), abc(3 * len);
  g.upload_witness(std::span<const Fr>(zin.data(), zin.size()), std::span<const Fr>(zaux.data(), zaux.size()),
                   z.data());
  // Garbage in the padding must be overwritten with zeros.
  CUZK_CUDA_CHECK(cudaMemset(abc.data(), 0x5a, abc.bytes()));
  g.matvec(z.data(), abc.data(), abc.data() + len, abc.data() + 2 * len, len);
  const std::vector<Fr> all = download(abc);
  const std::vector<Fr>* want[3] = {&cpu.a, &cpu.b, &cpu.c};
  for (size_t m = 0; m < 3; ++m) {
    std::vector<Fr> got(all.begin() + m * len, all.begin() + m * len + len);
    std::vector<Fr> w = *want[m];
    w.resize(len, Fr::zero());
    ASSERT_TRUE(same_values(got, w, what + " matrix " + "ABC"[m]));
  }
  // The same from the PCE streamed by row blocks (GpuPceStream): blocks of a few rows each (every
  // long row crosses a block's edge somewhere), and a block per several hundred rows.
  for (uint64_t block : {uint64_t{64} << 10, uint64_t{1} << 20}) {
    gpu::GpuPceStream st(p, block);
    gpu::Stream s;
    CUZK_CUDA_CHECK(cudaMemset(abc.data(), 0x5a, abc.bytes()));
    for (size_t m = 0; m < 3; ++m) st.matvec_one(static_cast<pce::MatrixId>(m), z.data(), abc.data() + m * len, len, s);
    s.sync();
    const std::vector<Fr> streamed = download(abc);
    for (size_t m = 0; m < 3; ++m) {
      std::vector<Fr> got(streamed.begin() + m * len, streamed.begin() + m * len + len);
      std::vector<Fr> w = *want[m];
      w.resize(len, Fr::zero());
      ASSERT_TRUE(same_values(got, w,
                              what + " streamed in blocks of " + std::to_string(block) + " bytes (" +
                                  std::to_string(st.blocks(static_cast<pce::MatrixId>(m))) + " blocks), matrix " +
                                  "ABC"[m]));
    }
    EXPECT_GT(st.copied(), 0u);
  }
  if (!with_h) return;
  const unsigned log_n = static_cast<unsigned>(__builtin_ctzll(len));
  gpu::compute_h(abc.data(), abc.data() + len, abc.data() + 2 * len, log_n, RootConvention::Zcash);
  std::vector<Fr> got = download(abc);
  EXPECT_TRUE(got[len - 1].is_zero()) << what << ": H has degree n - 1, the circuit is not satisfied";
  got.resize(len - 1);
  ASSERT_TRUE(same_values(got, groth16::compute_h(len, cpu.a, cpu.b, cpu.c), what + " H"));
}

TEST(GpuMatVec, BuiltinCircuitsMatchCpuAndGiveH) {
  CUZK_REQUIRE_GPU();
  for (const char* spec_text : {"filecoin-like:2^12", "chain:1000", "filecoin-like:2^16"}) {
    const circuits::BuiltinSpec spec = circuits::parse_builtin(spec_text).value();
    const pce::Pce p = pce::build_pce(circuits::record_builtin(spec));
    const circuits::BuiltinWitness w = circuits::witness_builtin(spec, 99);
    check_matvec(p, w.inputs, w.aux, spec_text, true);
  }
}

// Rows of ~4 terms; with `long_rows`, every 37th row instead has one of the lengths around the GPU
// MatVec's split between a thread per row and a warp per row (64 terms) and far beyond it.
r1cs::CompactR1cs random_r1cs(uint64_t seed, size_t inputs, size_t aux, size_t rows, size_t distinct,
                              bool long_rows = false) {
  Xoshiro256 rng(seed);
  r1cs::CompactR1cs r;
  r.num_inputs = inputs;
  r.num_aux = aux;
  r.num_constraints = rows;
  r1cs::CoeffInterner interner;
  interner.intern(Fr::one());
  interner.intern(-Fr::one());
  while (interner.values().size() < distinct) interner.intern(Fr::random(rng));
  r.coeffs = interner.values();
  for (r1cs::CompactMatrix* m : {&r.a, &r.b, &r.c}) {
    for (size_t row = 0; row < rows; ++row) {
      uint32_t col = static_cast<uint32_t>(rng() % 3);
      if (long_rows && row % 37 == 5) {
        constexpr size_t kLengths[] = {63, 64, 65, 66, 100, 511, 1500};
        const size_t len = kLengths[(row / 37) % std::size(kLengths)];
        for (size_t k = 0; k < len && col < inputs + aux; ++k, col += 1 + static_cast<uint32_t>(rng() % 2)) {
          m->col.push_back(col);
          m->coeff.push_back(static_cast<uint32_t>(rng() % distinct));
        }
        m->row_ptr.push_back(m->col.size());
        continue;
      }
      while (col < inputs + aux && rng() % 5 != 0) {
        m->col.push_back(col);
        m->coeff.push_back(static_cast<uint32_t>(rng() % distinct));
        col += 1 + static_cast<uint32_t>(rng() % 9);
      }
      m->row_ptr.push_back(m->col.size());
    }
  }
  return r;
}

TEST(GpuMatVec, RandomSparseEveryEncodingAndRowPointerWidth) {
  CUZK_REQUIRE_GPU();
  for (size_t distinct : {2u, 200u, 3000u, 70000u}) {
    const r1cs::CompactR1cs r = random_r1cs(5 + distinct, 4, 3000, 5000, distinct);
    Xoshiro256 rng(distinct);
    std::vector<Fr> inputs(4), aux(3000);
    inputs[0] = Fr::one();
    for (size_t i = 1; i < inputs.size(); ++i) inputs[i] = Fr::random(rng);
    for (auto& v : aux) v = rng() % 3 == 0 ? Fr::from_u64(rng() % 2) : Fr::random(rng);
    for (auto enc : {pce::CoeffEncoding::Dict8, pce::CoeffEncoding::Dict16, pce::CoeffEncoding::Full}) {
      if ((distinct > 256 && enc == pce::CoeffEncoding::Dict8) || (distinct > 65536 && enc != pce::CoeffEncoding::Full))
        continue;
      for (bool wide : {false, true}) {
        pce::BuildOptions o;
        o.encoding = enc;
        o.force_row_ptr64 = wide;
        const pce::Pce p = pce::build_pce(r, o);
        check_matvec(p, inputs, aux,
                     "random " + std::to_string(distinct) + " " + pce::to_string(enc) + (wide ? " u64" : " u32"),
                     false);
      }
    }
  }
}

// Long rows go to a warp each (pce_matvec.cu); lengths on both sides of the split and far past it.
TEST(GpuMatVec, LongRowsEqualCpu) {
  CUZK_REQUIRE_GPU();
  const r1cs::CompactR1cs r = random_r1cs(77, 4, 4000, 3000, 200, true);
  Xoshiro256 rng(78);
  std::vector<Fr> inputs(4), aux(4000);
  inputs[0] = Fr::one();
  for (size_t i = 1; i < inputs.size(); ++i) inputs[i] = Fr::random(rng);
  for (auto& v : aux) v = Fr::random(rng);
  for (auto enc : {pce::CoeffEncoding::Dict8, pce::CoeffEncoding::Dict16, pce::CoeffEncoding::Full}) {
    for (bool wide : {false, true}) {
      pce::BuildOptions o;
      o.encoding = enc;
      o.force_row_ptr64 = wide;
      const pce::Pce p = pce::build_pce(r, o);
      check_matvec(p, inputs, aux, std::string("long rows ") + pce::to_string(enc) + (wide ? " u64" : " u32"), false);
    }
  }
}

TEST(GpuMatVec, RejectsWrongSizes) {
  CUZK_REQUIRE_GPU();
  const pce::Pce p = pce::build_pce(random_r1cs(1, 2, 10, 8, 2));
  const gpu::GpuPce g(p);
  gpu::DeviceBuffer<Fr> z(g.num_columns()), out(3 * 8);
  std::vector<Fr> inputs(2), aux(9);
  EXPECT_THROW(g.upload_witness(inputs, aux, z.data()), std::invalid_argument);
  EXPECT_THROW(g.matvec(z.data(), out.data(), out.data() + 7, out.data() + 14, 7), std::invalid_argument);
  // Streamed: outputs too short, and a staging block smaller than one row.
  gpu::GpuPceStream st(p, 4096);
  EXPECT_THROW(st.matvec_one(pce::MatrixId::A, z.data(), out.data(), 7, nullptr), std::invalid_argument);
  EXPECT_THROW(gpu::GpuPceStream(p, 16), std::invalid_argument);
}

}  // namespace
