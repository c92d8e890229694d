// The Pce type and its builder: encoding choice, density bitmaps, structural validation, round
// trips, and circom circuits (compiled by circom2 on --prime bls12381) imported as PCEs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "pce/build.hpp"
#include "pce/from_circom.hpp"
#include "pce/matvec.hpp"
#include "pce/synthetic.hpp"
#include "r1cs/circom_wtns.hpp"
#include "r1cs/r1cs.hpp"
#include "util/rng.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::pce;
using r1cs::CompactMatrix;
using r1cs::CompactR1cs;

std::string fixture(const std::string& name) {
  return std::string(CUZK_VECTORS_DIR) + "/../circom/" + name;
}

// A random CompactR1cs with `distinct` coefficients (+1, -1 and distinct random values).
CompactR1cs random_r1cs(uint64_t seed, size_t inputs, size_t aux, size_t rows, size_t distinct) {
  Xoshiro256 rng(seed);
  CompactR1cs r;
  r.num_inputs = inputs;
  r.num_aux = aux;
  r.num_constraints = rows;
  r1cs::CoeffInterner interner;
  while (interner.values().size() < distinct) interner.intern(Fr::random(rng));
  r.coeffs = interner.values();
  for (CompactMatrix* m : {&r.a, &r.b, &r.c}) {
    for (size_t row = 0; row < rows; ++row) {
      uint32_t col = static_cast<uint32_t>(rng() % 3);
      while (col < inputs + aux && rng() % 4 != 0) {
        m->col.push_back(col);
        m->coeff.push_back(static_cast<uint32_t>(rng() % distinct));
        col += 1 + static_cast<uint32_t>(rng() % 7);
      }
      m->row_ptr.push_back(m->col.size());
    }
  }
  return r;
}

bool same(const CompactR1cs& x, const CompactR1cs& y) {
  auto rx = x.expand(), ry = y.expand();
  auto eq = [](const r1cs::SparseMatrix& p, const r1cs::SparseMatrix& q) {
    return p.row_ptr == q.row_ptr && p.col == q.col && p.val == q.val;
  };
  return rx.num_inputs == ry.num_inputs && rx.num_aux == ry.num_aux && rx.num_constraints == ry.num_constraints &&
         eq(rx.a, ry.a) && eq(rx.b, ry.b) && eq(rx.c, ry.c);
}

TEST(Pce, EncodingIsTheNarrowestThatFits) {
  EXPECT_EQ(build_pce(random_r1cs(1, 3, 50, 40, 2)).encoding(), CoeffEncoding::Dict8);
  EXPECT_EQ(build_pce(random_r1cs(2, 3, 50, 40, 256)).encoding(), CoeffEncoding::Dict8);
  EXPECT_EQ(build_pce(random_r1cs(3, 3, 50, 40, 257)).encoding(), CoeffEncoding::Dict16);
  EXPECT_EQ(build_pce(random_r1cs(4, 3, 50, 40, 65537)).encoding(), CoeffEncoding::Full);
  Pce full = build_pce(random_r1cs(4, 3, 50, 40, 65537));
  EXPECT_EQ(full.info().dict_size, 0u);
  EXPECT_TRUE(full.dictionary().empty());
  // Wider encodings may be forced, narrower ones may not.
  BuildOptions o;
  o.encoding = CoeffEncoding::Full;
  EXPECT_EQ(build_pce(random_r1cs(5, 3, 50, 40, 2), o).encoding(), CoeffEncoding::Full);
  o.encoding = CoeffEncoding::Dict8;
  EXPECT_THROW(build_pce(random_r1cs(6, 3, 50, 40, 300), o), std::invalid_argument);
}

TEST(Pce, RoundTripThroughEveryEncodingAndRowPointerWidth) {
  for (size_t distinct : {2u, 200u, 3000u}) {
    const CompactR1cs r = random_r1cs(10 + distinct, 4, 300, 500, distinct);
    for (auto enc : {CoeffEncoding::Dict8, CoeffEncoding::Dict16, CoeffEncoding::Full}) {
      if (distinct > 256 && enc == CoeffEncoding::Dict8) continue;
      for (bool wide : {false, true}) {
        BuildOptions o;
        o.encoding = enc;
        o.force_row_ptr64 = wide;
        Pce p = build_pce(r, o);
        EXPECT_EQ(p.a().row_ptr64.empty(), !wide);
        EXPECT_TRUE(same(to_compact(p), r)) << distinct << " " << to_string(enc) << " " << wide;
        EXPECT_EQ(p.validate_structure(), "");
        for (uint64_t k = 0; k < p.b().nnz; ++k) ASSERT_EQ(p.coefficient(MatrixId::B, k), r.coeffs[r.b.coeff[k]]);
      }
    }
  }
}

TEST(Pce, CountsAndSectionSizes) {
  const CompactR1cs r = random_r1cs(7, 5, 1000, 777, 9);
  Pce p = build_pce(r);
  EXPECT_EQ(p.num_inputs(), 5u);
  EXPECT_EQ(p.num_aux(), 1000u);
  EXPECT_EQ(p.num_constraints(), 777u);
  EXPECT_EQ(p.info().nnz[0], r.a.nnz());
  EXPECT_EQ(p.info().nnz[1], r.b.nnz());
  EXPECT_EQ(p.info().nnz[2], r.c.nnz());
  EXPECT_EQ(p.info().dict_size, 9u);
  const auto bytes = p.info().section_bytes();
  EXPECT_EQ(bytes[section_index(Section::Dictionary)], 9u * 32);
  EXPECT_EQ(bytes[section_index(Section::ARowPtr)], 778u * 4);
  EXPECT_EQ(bytes[section_index(Section::BCol)], r.b.nnz() * 4);
  EXPECT_EQ(bytes[section_index(Section::CCoeff)], r.c.nnz());
  EXPECT_EQ(bytes[section_index(Section::AAuxDensity)], 16u * 8);  // 1000 bits -> 16 words
  EXPECT_EQ(bytes[section_index(Section::BInputDensity)], 8u);
  uint64_t total = 0;
  for (uint64_t b : bytes) total += b;
  EXPECT_EQ(p.section_bytes_total(), total);
}

// Densities of a hand-made circuit: inputs {ONE, x}, aux {u, v, w}.
TEST(Pce, DensityBitmapsFollowTheMatrices) {
  CompactR1cs r;
  r.num_inputs = 2;
  r.num_aux = 3;
  r.num_constraints = 2;
  r.coeffs = {Fr::one(), -Fr::one()};
  // Row 0: A = u, B = ONE, C = x. Row 1: A = x + w, B = u - w, C = v.
  r.a = CompactMatrix{{0, 1, 3}, {2, 1, 4}, {0, 0, 0}};
  r.b = CompactMatrix{{0, 1, 3}, {0, 2, 4}, {0, 0, 1}};
  r.c = CompactMatrix{{0, 1, 2}, {1, 3}, {0, 0}};
  Pce p = build_pce(r);
  auto bits = [](DensityView d) {
    std::string s;
    for (uint64_t i = 0; i < d.size(); ++i) s += d.test(i) ? '1' : '0';
    return s;
  };
  EXPECT_EQ(bits(p.a_aux_density()), "101");   // u, w (x is an input)
  EXPECT_EQ(bits(p.b_input_density()), "10");  // ONE
  EXPECT_EQ(bits(p.b_aux_density()), "101");   // u, w
  EXPECT_EQ(p.a_aux_density().count(), 2u);
}

TEST(Pce, BuilderRejectsBrokenMatrices) {
  CompactR1cs r = random_r1cs(8, 3, 40, 30, 5);
  CompactR1cs bad = r;
  bad.a.col[0] = 43;  // width is 43
  EXPECT_THROW(build_pce(bad), std::invalid_argument);
  bad = r;
  bad.b.coeff[0] = 5;
  EXPECT_THROW(build_pce(bad), std::invalid_argument);
  bad = r;
  bad.c.row_ptr.pop_back();
  EXPECT_THROW(build_pce(bad), std::invalid_argument);
  bad = r;
  std::swap(bad.coeffs[0], bad.coeffs[1]);
  EXPECT_THROW(build_pce(bad), std::invalid_argument);
}

// Copies the sections of a Pce into writable buffers so that a test can break one of them.
struct MutablePce {
  struct Storage : PceStorage {
    std::array<std::vector<uint64_t>, kNumSections> buf;
  };
  std::shared_ptr<Storage> storage = std::make_shared<Storage>();
  PceInfo info;
  std::array<size_t, kNumSections> bytes{};

  explicit MutablePce(const Pce& p) : info(p.info()) {
    for (size_t i = 0; i < kNumSections; ++i) {
      bytes[i] = p.sections()[i].size();
      storage->buf[i].assign((p.sections()[i].size() + 7) / 8, 0);
      std::memcpy(storage->buf[i].data(), p.sections()[i].data(), p.sections()[i].size());
    }
  }
  template <class T>
  T* at(Section s) {
    return reinterpret_cast<T*>(storage->buf[section_index(s)].data());
  }
  Pce pce() const {
    std::array<std::span<const std::byte>, kNumSections> s{};
    for (size_t i = 0; i < kNumSections; ++i) {
      s[i] = {reinterpret_cast<const std::byte*>(storage->buf[i].data()), bytes[i]};
    }
    return Pce(info, s, storage);
  }
};

TEST(Pce, ValidateStructureNamesTheBrokenCheck) {
  const Pce good = build_pce(random_r1cs(9, 3, 60, 50, 7), BuildOptions{"demo", {}, false});
  ASSERT_EQ(good.validate_structure(), "");
  auto expect = [](MutablePce& m, const std::string& what) {
    const std::string err = m.pce().validate_structure();
    EXPECT_NE(err.find(what), std::string::npos) << "got: " << err;
    EXPECT_NE(err.find("'demo'"), std::string::npos) << err;
  };
  {
    MutablePce m(good);
    m.at<uint32_t>(Section::ACol)[0] = 63;
    expect(m, "is not < width 63");
  }
  {
    MutablePce m(good);
    uint32_t* rp = m.at<uint32_t>(Section::BRowPtr);
    size_t r = 0;
    while (rp[r + 1] - rp[r] < 2) ++r;
    uint32_t* col = m.at<uint32_t>(Section::BCol);
    std::swap(col[rp[r]], col[rp[r] + 1]);
    expect(m, "not strictly increasing");
  }
  {
    MutablePce m(good);
    m.at<uint32_t>(Section::CRowPtr)[50] += 1;
    expect(m, "C.row_ptr[50]");
  }
  {
    MutablePce m(good);
    m.at<uint32_t>(Section::ARowPtr)[0] = 1;
    expect(m, "A.row_ptr[0] is not 0");
  }
  {
    MutablePce m(good);
    uint32_t* rp = m.at<uint32_t>(Section::ARowPtr);
    std::swap(rp[10], rp[20]);
    if (rp[10] != rp[20]) expect(m, "A.row_ptr decreases");
  }
  {
    MutablePce m(good);
    m.at<uint8_t>(Section::CCoeff)[3] = 7;
    expect(m, "is not < dictionary size 7");
  }
  {
    MutablePce m(good);
    m.at<Fr>(Section::Dictionary)[0] = Fr::from_u64(2);
    expect(m, "dictionary entry 0 is not +1");
  }
  {
    MutablePce m(good);
    std::memset(m.at<uint8_t>(Section::Dictionary) + 3 * sizeof(Fr), 0xff, sizeof(Fr));
    expect(m, "dictionary entry 3 is not < r");
  }
  {
    MutablePce m(good);
    m.at<uint64_t>(Section::BAuxDensity)[0] ^= 1;
    expect(m, "B.aux_density does not match");
  }
  {
    MutablePce m(good);
    m.at<uint64_t>(Section::AAuxDensity)[0] |= uint64_t{1} << 63;  // 60 aux: bit 63 is past the end
    expect(m, "A.aux_density does not match");
  }
}

TEST(Pce, ConstructorChecksSectionLengths) {
  const Pce good = build_pce(random_r1cs(11, 3, 60, 50, 7));
  MutablePce m(good);
  m.info.nnz[1] += 1;
  EXPECT_THROW(m.pce(), std::invalid_argument);
  MutablePce m2(good);
  m2.info.dict_size = 300;  // dict8 holds at most 256
  EXPECT_THROW(m2.pce(), std::invalid_argument);
}

// RecordingCS interns coefficients as it records: the compact form expands to what it recorded.
TEST(Pce, RecordingCsCompactFormBuildsAPce) {
  r1cs::RecordingCS cs;
  auto x = cs.alloc([] { return "x"; }, [] { return Fr::zero(); });
  auto in = cs.alloc_input([] { return "in"; }, [] { return Fr::zero(); });
  auto y = cs.alloc([] { return "y"; }, [] { return Fr::zero(); });
  for (uint64_t i = 0; i < 40; ++i) {
    cs.enforce([] { return "c"; }, [&](r1cs::LC lc) { return lc + Fr::from_u64(1ull << i) * x - y; },
               [&](r1cs::LC lc) { return lc + in + x - x; }, [&](r1cs::LC lc) { return lc + y + y; });
  }
  cs.finalize();
  const CompactR1cs c = cs.compact();
  EXPECT_EQ(c.coeffs.size(), 2u + 39);  // +1, -1, 2^1..2^39 (2^0 is +1; y + y gives 2 = 2^1 again)
  Pce p = build_pce(c);
  EXPECT_EQ(p.encoding(), CoeffEncoding::Dict8);
  EXPECT_EQ(p.num_inputs(), 2u);
  EXPECT_EQ(p.num_constraints(), 42u);
  EXPECT_EQ(p.info().nnz[1], 40u);  // x - x cancels
  EXPECT_TRUE(same(to_compact(p), c));
}

TEST(Pce, SyntheticPorepShapeIsSoundAndHasTheScaledCounts) {
  const SyntheticShape shape = SyntheticShape::porep_32g(1e-4);
  const Pce p = synthetic_pce(shape, "synthetic-porep");
  EXPECT_EQ(p.num_constraints(), 13028u);
  EXPECT_EQ(p.info().nnz[0], 30941u);
  EXPECT_EQ(p.info().nnz[1], 13033u);
  EXPECT_EQ(p.info().nnz[2], 28266u);
  EXPECT_EQ(p.validate_structure(), "");
  EXPECT_GT(p.a_aux_density().count(), p.num_aux() / 2);
  // Deterministic in the seed.
  const Pce q = synthetic_pce(shape, "synthetic-porep");
  for (size_t i = 0; i < kNumSections; ++i) {
    ASSERT_TRUE(std::equal(p.sections()[i].begin(), p.sections()[i].end(), q.sections()[i].begin()));
  }
  EXPECT_THROW(SyntheticShape::porep_32g(0.0), std::invalid_argument);
}

TEST(PceCircom, Mul3ImportsWithInputConstraints) {
  auto p = pce_from_circom_file(fixture("mul3.r1cs"));
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->info().circuit_id, "circom:mul3");
  EXPECT_EQ(p->num_inputs(), 4u);  // ONE, y, w, b
  EXPECT_EQ(p->num_aux(), 4u);     // a, c, ab, z (8 wires)
  EXPECT_EQ(p->encoding(), CoeffEncoding::Dict8);
  // The last num_inputs rows are A = input i, B = C = 0.
  const uint64_t first = p->num_constraints() - p->num_inputs();
  for (uint64_t i = 0; i < p->num_inputs(); ++i) {
    const uint64_t row = first + i;
    ASSERT_EQ(p->a().row_end(row) - p->a().row_begin(row), 1u);
    EXPECT_EQ(p->a().col[p->a().row_begin(row)], i);
    EXPECT_EQ(p->b().row_end(row), p->b().row_begin(row));
    EXPECT_EQ(p->c().row_end(row), p->c().row_begin(row));
  }
}

// mix.circom: 64 booleans, a powers-of-two packing and 300 cubic rounds with distinct constants.
TEST(PceCircom, MixWitnessSatisfiesTheImportedMatrices) {
  auto p = pce_from_circom_file(fixture("mix.r1cs"));
  ASSERT_TRUE(p.ok()) << p.error();
  auto w = circom::load_wtns(fixture("mix.wtns"));
  ASSERT_TRUE(w.ok()) << w.error();
  // snarkjs r1cs info: 668 wires, 666 constraints, 1 output, 1 public input.
  EXPECT_EQ(p->num_inputs(), 3u);
  EXPECT_EQ(p->num_aux(), 665u);
  EXPECT_EQ(p->num_constraints(), 669u);
  EXPECT_EQ(p->encoding(), CoeffEncoding::Dict16);  // > 256 distinct coefficients
  EXPECT_GT(p->info().dict_size, 300u);
  ASSERT_EQ(w->size(), p->num_columns());
  const r1cs::R1cs full = to_compact(*p).expand();
  const auto a = r1cs::mul_vec(full.a, *w), b = r1cs::mul_vec(full.b, *w), c = r1cs::mul_vec(full.c, *w);
  for (uint64_t r = 0; r + p->num_inputs() < p->num_constraints(); ++r) ASSERT_EQ(a[r] * b[r], c[r]) << "row " << r;
  // The PCE's MatVec on the circom witness (z = wires as they are: inputs first, then aux).
  const std::span<const Fr> z(*w);
  const MatVecResult mv = matvec(*p, z.first(p->num_inputs()), z.subspan(p->num_inputs()));
  EXPECT_EQ(mv.a, a);
  EXPECT_EQ(mv.b, b);
  EXPECT_EQ(mv.c, c);
  for (uint64_t r = 0; r < p->num_constraints(); ++r) ASSERT_EQ(mv.a[r] * mv.b[r], mv.c[r]) << "row " << r;
  // A broken witness breaks some row.
  std::vector<Fr> bad = *w;
  bad[10] += Fr::one();
  const auto a2 = r1cs::mul_vec(full.a, bad), b2 = r1cs::mul_vec(full.b, bad), c2 = r1cs::mul_vec(full.c, bad);
  bool broken = false;
  for (uint64_t r = 0; r < p->num_constraints(); ++r) broken |= a2[r] * b2[r] != c2[r];
  EXPECT_TRUE(broken);
}

TEST(PceCircom, MissingFileIsAnError) {
  auto p = pce_from_circom_file("/nonexistent/x.r1cs");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("/nonexistent/x.r1cs"), std::string::npos);
}

}  // namespace
