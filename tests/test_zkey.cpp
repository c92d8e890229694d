// The snarkjs Groth16 .zkey reader against snarkjs 0.7.6's own reader (fixtures made by
// tests/zkey/regen.sh: X.zkey, X.verification_key.json and X.expect.json, the latter written by
// snarkjs's zKey.exportJson), against the circuits' .r1cs, and on corrupted files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/zkey.hpp"
#include "r1cs/binfile.hpp"
#include "r1cs/circom_r1cs.hpp"
#include "test_helpers.hpp"

namespace cuzk::groth16 {
namespace {

using json = nlohmann::json;
using ec::Fq2;

std::string fixture_dir() {
  return std::string(CUZK_VECTORS_DIR) + "/../zkey";
}
std::string circom_dir() {
  return std::string(CUZK_VECTORS_DIR) + "/../circom";
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using test::fq;
using test::fr;
using test::read_json;

// snarkjs objects: G1 [x, y, z], G2 [[x0, x1], [y0, y1], [z0, z1]]; affine z = 1, infinity z = 0.
void expect_g1(const json& j, const G1Affine& p, const std::string& what) {
  if (j[2] == "0") {
    EXPECT_TRUE(p.infinity) << what;
    return;
  }
  ASSERT_EQ(j[2], "1") << what;
  ASSERT_FALSE(p.infinity) << what;
  EXPECT_TRUE(p.x == fq(j[0]) && p.y == fq(j[1])) << what;
}
void expect_g2(const json& j, const G2Affine& p, const std::string& what) {
  if (j[2][0] == "0" && j[2][1] == "0") {
    EXPECT_TRUE(p.infinity) << what;
    return;
  }
  ASSERT_EQ(j[2][0], "1") << what;
  ASSERT_EQ(j[2][1], "0") << what;
  ASSERT_FALSE(p.infinity) << what;
  EXPECT_TRUE(p.x == Fq2(fq(j[0][0]), fq(j[0][1])) && p.y == Fq2(fq(j[1][0]), fq(j[1][1]))) << what;
}

template <class P>
size_t count_infinity(const std::vector<P>& v) {
  size_t k = 0;
  for (const auto& p : v) k += p.infinity ? 1 : 0;
  return k;
}

// ---------------------------------------------------------------------------------------------
// Agreement with snarkjs

class ZkeyFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(ZkeyFixture, MatchesSnarkjsExportJson) {
  const std::string c = GetParam();
  const json e = read_json(fixture_dir() + "/" + c + ".expect.json");
  // With every point subgroup-checked too, on the small key only (mix takes seconds under ASan).
  const std::vector<bool> modes = c == "mul3" ? std::vector<bool>{false, true} : std::vector<bool>{false};
  for (bool all_subgroups : modes) {
    SCOPED_TRACE(all_subgroups ? "all subgroup checks" : "default checks");
    ZkeyOptions opt;
    opt.check_all_subgroups = all_subgroups;
    auto zr = load_zkey(fixture_dir() + "/" + c + ".zkey", opt);
    ASSERT_TRUE(zr.ok()) << zr.error();
    const Zkey& z = *zr;
    ASSERT_EQ(e["protocol"], "groth16");
    EXPECT_EQ(z.n8q, e["n8q"].get<uint32_t>());
    EXPECT_EQ(z.n8r, e["n8r"].get<uint32_t>());
    EXPECT_EQ(e["q"],
              "40024095552216673934177898257359041565568828199390078853320581361240316504908378644426876291290156640378"
              "94272559787");
    EXPECT_EQ(e["r"], "52435875175126190479447740508185965837690552500527637822603658699938581184513");
    EXPECT_EQ(z.n_vars, e["nVars"].get<uint32_t>());
    EXPECT_EQ(z.n_public, e["nPublic"].get<uint32_t>());
    EXPECT_EQ(z.domain_size, e["domainSize"].get<uint32_t>());
    EXPECT_EQ(z.log2_domain_size, e["power"].get<uint32_t>());

    expect_g1(e["vk_alpha_1"], z.alpha1, "alpha1");
    expect_g1(e["vk_beta_1"], z.beta1, "beta1");
    expect_g2(e["vk_beta_2"], z.beta2, "beta2");
    expect_g2(e["vk_gamma_2"], z.gamma2, "gamma2");
    expect_g1(e["vk_delta_1"], z.delta1, "delta1");
    expect_g2(e["vk_delta_2"], z.delta2, "delta2");
    EXPECT_TRUE(z.gamma2 == ec::g2_generator()) << "snarkjs always uses gamma = 1";

    ASSERT_EQ(z.ic.size(), e["IC"].size());
    for (size_t i = 0; i < z.ic.size(); ++i) expect_g1(e["IC"][i], z.ic[i], "IC " + std::to_string(i));

    ASSERT_EQ(z.coefs.size(), e["nCoefs"].get<size_t>());
    ASSERT_GE(e["coefs"].size(), 14u);
    for (const auto& j : e["coefs"]) {
      const auto& k = z.coefs.at(j["index"].get<size_t>());
      const std::string what = "coefficient " + j["index"].dump();
      EXPECT_EQ(k.matrix, j["matrix"].get<uint32_t>()) << what;
      EXPECT_EQ(k.constraint, j["constraint"].get<uint32_t>()) << what;
      EXPECT_EQ(k.signal, j["signal"].get<uint32_t>()) << what;
      EXPECT_TRUE(k.value == fr(j["value"])) << what << " = " << j["value"];
    }

    ASSERT_EQ(z.a.size(), z.n_vars);
    ASSERT_EQ(z.b1.size(), z.n_vars);
    ASSERT_EQ(z.b2.size(), z.n_vars);
    ASSERT_EQ(z.c.size(), z.n_vars - z.n_public - 1);
    ASSERT_EQ(z.h.size(), z.domain_size);
    for (const auto& j : e["A"]) expect_g1(j["point"], z.a.at(j["index"]), "A " + j["index"].dump());
    for (const auto& j : e["B1"]) expect_g1(j["point"], z.b1.at(j["index"]), "B1 " + j["index"].dump());
    for (const auto& j : e["B2"]) expect_g2(j["point"], z.b2.at(j["index"]), "B2 " + j["index"].dump());
    for (const auto& j : e["C"]) {
      // snarkjs indexes C by signal (nPublic + 1 ..); ours starts at 0.
      expect_g1(j["point"], z.c.at(j["index"].get<size_t>() - z.n_public - 1), "C " + j["index"].dump());
    }
    for (const auto& j : e["H"]) expect_g1(j["point"], z.h.at(j["index"]), "H " + j["index"].dump());
    const auto& inf = e["infinity_counts"];
    EXPECT_EQ(count_infinity(z.a), inf["A"].get<size_t>());
    EXPECT_EQ(count_infinity(z.b1), inf["B1"].get<size_t>());
    EXPECT_EQ(count_infinity(z.b2), inf["B2"].get<size_t>());
    EXPECT_EQ(count_infinity(z.c), inf["C"].get<size_t>());
    EXPECT_EQ(count_infinity(z.h), inf["H"].get<size_t>());
    EXPECT_GT(count_infinity(z.b1), 0u) << "the fixtures should exercise points at infinity";
  }
}

TEST_P(ZkeyFixture, MatchesVerificationKeyJson) {
  const std::string c = GetParam();
  const json vk = read_json(fixture_dir() + "/" + c + ".verification_key.json");
  auto z = load_zkey(fixture_dir() + "/" + c + ".zkey");
  ASSERT_TRUE(z.ok()) << z.error();
  EXPECT_EQ(vk["protocol"], "groth16");
  EXPECT_EQ(vk["curve"], "bls12381");
  EXPECT_EQ(vk["nPublic"].get<uint32_t>(), z->n_public);
  expect_g1(vk["vk_alpha_1"], z->alpha1, "vk_alpha_1");
  expect_g2(vk["vk_beta_2"], z->beta2, "vk_beta_2");
  expect_g2(vk["vk_gamma_2"], z->gamma2, "vk_gamma_2");
  expect_g2(vk["vk_delta_2"], z->delta2, "vk_delta_2");
  ASSERT_EQ(vk["IC"].size(), z->ic.size());
  for (size_t i = 0; i < z->ic.size(); ++i) expect_g1(vk["IC"][i], z->ic[i], "IC " + std::to_string(i));
}

// The coefficient section is the circuit's A and B matrices (per constraint: A terms, then B
// terms, in r1cs order) followed by the input rows (0, nConstraints + s, s, 1): this checks the
// coef * R^2 conversion against the standard-form coefficients of the .r1cs, independently of
// snarkjs's reader.
TEST_P(ZkeyFixture, CoefficientsAreTheR1csMatrices) {
  const std::string c = GetParam();
  auto z = load_zkey(fixture_dir() + "/" + c + ".zkey");
  ASSERT_TRUE(z.ok()) << z.error();
  auto r1cs = circom::load_r1cs(circom_dir() + "/" + c + ".r1cs");
  ASSERT_TRUE(r1cs.ok()) << r1cs.error();
  ASSERT_EQ(z->n_vars, r1cs->n_wires);
  ASSERT_EQ(z->n_public, r1cs->n_pub_out + r1cs->n_pub_in);
  // Smallest power of two strictly greater than nConstraints + nPublic.
  uint64_t n = 1;
  while (n <= uint64_t{r1cs->n_constraints} + z->n_public) n <<= 1;
  EXPECT_EQ(z->domain_size, n);
  std::vector<ZkeyCoef> expect;
  for (uint32_t i = 0; i < r1cs->n_constraints; ++i) {
    for (const auto& [w, v] : r1cs->constraints[i].a) expect.push_back({0, i, w, v});
    for (const auto& [w, v] : r1cs->constraints[i].b) expect.push_back({1, i, w, v});
  }
  for (uint32_t s = 0; s <= z->n_public; ++s) expect.push_back({0, r1cs->n_constraints + s, s, Fr::one()});
  ASSERT_EQ(z->coefs.size(), expect.size());
  for (size_t i = 0; i < expect.size(); ++i) {
    const auto& a = z->coefs[i];
    const auto& b = expect[i];
    ASSERT_TRUE(a.matrix == b.matrix && a.constraint == b.constraint && a.signal == b.signal && a.value == b.value)
        << "coefficient " << i << ": zkey (" << a.matrix << ", " << a.constraint << ", " << a.signal << ", "
        << a.value.to_hex() << "), r1cs (" << b.matrix << ", " << b.constraint << ", " << b.signal << ", "
        << b.value.to_hex() << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ZkeyFixture, ::testing::Values("mul3", "mix"));

// The stored coefficient bytes are coef * R^2 mod r (R = 2^256): the input row's 1 is R^2.
TEST(Zkey, CoefficientBytesAreDoubleMontgomery) {
  const auto bytes = read_bytes(fixture_dir() + "/mul3.zkey");
  auto bf = circom::parse_binfile(bytes, "zkey", "mul3.zkey");
  ASSERT_TRUE(bf.ok()) << bf.error();
  const auto body = bf->body(*bf->find(4));
  const size_t last = (body.size() - 4) / 44 - 1;  // (0, nConstraints + nPublic, nPublic, 1)
  const auto value = body.subspan(4 + last * 44 + 12, 32);
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(value[i], static_cast<uint8_t>(Fr::R2[i / 8] >> (8 * (i % 8)))) << "byte " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Corruption

struct Sec {
  uint32_t id;
  std::vector<uint8_t> body;
};

// The fixture split into its sections, and back.
std::vector<Sec> split(const std::vector<uint8_t>& file) {
  auto bf = circom::parse_binfile(file, "zkey", "fixture");
  if (!bf.ok()) throw std::runtime_error(bf.error());
  std::vector<Sec> out;
  for (const auto& s : bf->sections) {
    const auto b = bf->body(s);
    out.push_back({s.id, {b.begin(), b.end()}});
  }
  return out;
}

void put_u32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
void set_u32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.at(at + i) = static_cast<uint8_t>(x >> (8 * i));
}
uint32_t get_u32(const std::vector<uint8_t>& v, size_t at) {
  uint32_t x = 0;
  for (int i = 3; i >= 0; --i) x = x << 8 | v.at(at + i);
  return x;
}

std::vector<uint8_t> join(const std::vector<Sec>& secs, uint32_t version = 1) {
  std::vector<uint8_t> out = {'z', 'k', 'e', 'y'};
  put_u32(out, version);
  put_u32(out, static_cast<uint32_t>(secs.size()));
  for (const auto& s : secs) {
    put_u32(out, s.id);
    const uint64_t n = s.body.size();
    put_u32(out, static_cast<uint32_t>(n));
    put_u32(out, static_cast<uint32_t>(n >> 32));
    out.insert(out.end(), s.body.begin(), s.body.end());
  }
  return out;
}

std::vector<uint8_t>& body(std::vector<Sec>& secs, uint32_t id) {
  for (auto& s : secs)
    if (s.id == id) return s.body;
  throw std::runtime_error("no section " + std::to_string(id));
}

// Header offsets (section 2): n8q(4) q(48) n8r(4) r(32) nVars nPublic domainSize, then points.
constexpr size_t kNVars = 88, kNPublic = 92, kDomain = 96, kAlpha1 = 100, kBeta1 = 196, kBeta2 = 292, kGamma2 = 484,
                 kDelta1 = 676, kDelta2 = 772;

class ZkeyCorrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = read_bytes(fixture_dir() + "/mul3.zkey");
    secs_ = split(file_);
    ASSERT_TRUE(parse_zkey(join(secs_), "t.zkey").ok()) << "re-serialised fixture must parse";
  }
  // Parses `bytes`; expects an error containing every one of `needles` (and the file name).
  void expect_reject(const std::vector<uint8_t>& bytes, std::initializer_list<std::string> needles,
                     const ZkeyOptions& opt = {}) {
    auto z = parse_zkey(bytes, "t.zkey", opt);
    ASSERT_FALSE(z.ok()) << "accepted; expected an error with " << *needles.begin();
    EXPECT_EQ(z.error().rfind("t.zkey: ", 0), 0u) << z.error();
    for (const auto& n : needles) EXPECT_NE(z.error().find(n), std::string::npos) << z.error() << "\n  missing: " << n;
  }
  std::vector<uint8_t> file_;
  std::vector<Sec> secs_;
};

TEST_F(ZkeyCorrupt, TruncationAtEveryOffset) {
  for (size_t len = 0; len < file_.size(); len += (len < 1100 ? 1 : 7)) {
    std::vector<uint8_t> t(file_.begin(), file_.begin() + static_cast<ptrdiff_t>(len));
    auto z = parse_zkey(t, "t.zkey");
    ASSERT_FALSE(z.ok()) << "truncated to " << len << " bytes";
    ASSERT_EQ(z.error().rfind("t.zkey: ", 0), 0u) << z.error();
  }
}

// Each section cut short by 1 byte, one point, and to nothing, with a consistent container.
TEST_F(ZkeyCorrupt, SectionsShorterThanTheHeaderSays) {
  const std::pair<uint32_t, std::string> cases[] = {
      {1, "protocol section (1)"},     {2, "Groth16 header section (2)"}, {3, "IC section (3)"},
      {4, "coefficients section (4)"}, {5, "A points section (5)"},       {6, "B1 points section (6)"},
      {7, "B2 points section (7)"},    {8, "C points section (8)"},       {9, "H points section (9)"}};
  for (const auto& [id, name] : cases) {
    for (size_t cut : {size_t{1}, size_t{96}, size_t{1} << 30}) {
      auto s = secs_;
      auto& b = body(s, id);
      b.resize(b.size() > cut ? b.size() - cut : 0);
      SCOPED_TRACE(name + " cut by " + std::to_string(cut));
      expect_reject(join(s), {name});
    }
    auto s = secs_;
    body(s, id).push_back(0);  // one byte too many
    SCOPED_TRACE(name + " one byte longer");
    expect_reject(join(s), {name});
  }
}

TEST_F(ZkeyCorrupt, MissingSection) {
  for (uint32_t id = 1; id <= 9; ++id) {
    auto s = secs_;
    std::erase_if(s, [&](const Sec& x) { return x.id == id; });
    expect_reject(join(s), {"missing"});
  }
  // Section 10 (MPC transcript) is not needed.
  auto s = secs_;
  std::erase_if(s, [](const Sec& x) { return x.id == 10; });
  EXPECT_TRUE(parse_zkey(join(s), "t.zkey").ok());
}

TEST_F(ZkeyCorrupt, WrongMagicOrVersion) {
  auto f = file_;
  f[0] = 'p';
  expect_reject(f, {"magic"});
  expect_reject(join(secs_, 2), {"version 2"});
}

TEST_F(ZkeyCorrupt, WrongProtocol) {
  for (auto [p, name] : {std::pair<uint32_t, const char*>{2, "PLONK"}, {10, "FFLONK"}, {0, "unknown"}}) {
    auto s = secs_;
    set_u32(body(s, 1), 0, p);
    expect_reject(join(s), {"protocol section (1)", "protocol " + std::to_string(p), name, "Groth16"});
  }
}

TEST_F(ZkeyCorrupt, WrongPrimes) {
  {  // BN254 base field (n8q = 32): the section shrinks by 16 bytes.
    auto s = secs_;
    auto& h = body(s, 2);
    static const uint8_t bn254_q[32] = {0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71,
                                        0x68, 0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                        0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
    std::vector<uint8_t> nh;
    put_u32(nh, 32);
    nh.insert(nh.end(), bn254_q, bn254_q + 32);
    nh.insert(nh.end(), h.begin() + 52, h.end());
    h = nh;
    expect_reject(join(s), {"Groth16 header section (2)", "base field prime", "BN254"});
  }
  {  // q off by one bit
    auto s = secs_;
    body(s, 2)[4] ^= 1;
    expect_reject(join(s), {"Groth16 header section (2)", "unsupported base field prime"});
  }
  {  // n8q absurd
    auto s = secs_;
    set_u32(body(s, 2), 0, 0xffffffffu);
    expect_reject(join(s), {"Groth16 header section (2)", "n8q"});
  }
  {  // r off by one bit
    auto s = secs_;
    body(s, 2)[56] ^= 1;
    expect_reject(join(s), {"Groth16 header section (2)", "unsupported prime"});
  }
}

TEST_F(ZkeyCorrupt, InconsistentCounts) {
  const auto h = body(secs_, 2);
  const uint32_t n_vars = get_u32(h, kNVars), n_public = get_u32(h, kNPublic), domain = get_u32(h, kDomain);
  auto with = [&](size_t at, uint32_t v) {
    auto s = secs_;
    set_u32(body(s, 2), at, v);
    return join(s);
  };
  expect_reject(with(kNVars, n_vars + 1), {"A points section (5)", "nVars * 96"});
  expect_reject(with(kNVars, n_vars - 1), {"A points section (5)"});
  expect_reject(with(kNVars, 0), {"nVars is 0"});
  expect_reject(with(kNVars, 0xffffffffu), {"A points section (5)"});
  expect_reject(with(kNPublic, n_public + 1), {"IC section (3)", "(nPublic + 1) * 96"});
  expect_reject(with(kNPublic, n_vars), {"nPublic + 1", "exceeds nVars"});
  expect_reject(with(kNPublic, 0xffffffffu), {"exceeds nVars"});
  expect_reject(with(kDomain, domain * 2), {"H points section (9)", "domainSize * 96"});
  expect_reject(with(kDomain, domain + 1), {"not a power of two"});
  expect_reject(with(kDomain, 0), {"not a power of two"});
  expect_reject(with(kDomain, 0x80000000u), {"H points section (9)"});
  {
    auto s = secs_;
    auto& c = body(s, 4);
    set_u32(c, 0, get_u32(c, 0) + 1);
    expect_reject(join(s), {"coefficients section (4)", "count and section length disagree"});
    set_u32(c, 0, 0xffffffffu);
    expect_reject(join(s), {"coefficients section (4)", "count and section length disagree"});
  }
}

TEST_F(ZkeyCorrupt, BadCoefficientEntries) {
  auto with = [&](size_t entry, size_t field, uint32_t v) {
    auto s = secs_;
    set_u32(body(s, 4), 4 + entry * 44 + field * 4, v);
    return join(s);
  };
  expect_reject(with(2, 0, 2), {"coefficients section (4)", "entry 2 of", "matrix id 2"});
  expect_reject(with(3, 1, 8), {"coefficients section (4)", "entry 3", "constraint 8 out of range"});
  expect_reject(with(4, 2, 8), {"coefficients section (4)", "entry 4", "signal 8 out of range"});
  {  // value = r (not canonical)
    auto s = secs_;
    auto& c = body(s, 4);
    for (size_t i = 0; i < 32; ++i) c[4 + 5 * 44 + 12 + i] = static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8)));
    expect_reject(join(s), {"coefficients section (4)", "entry 5", "not a canonical field element"});
  }
}

TEST_F(ZkeyCorrupt, PointsOffTheCurveOrNotCanonical) {
  {  // IC[1].y + 1 (Montgomery limb 0)
    auto s = secs_;
    body(s, 3)[96 + 48] ^= 1;
    expect_reject(join(s), {"IC section (3)", "point 1 of 4", "not on the curve"});
  }
  for (auto [id, name, at] : {std::tuple<uint32_t, const char*, size_t>{5, "A points section (5)", 2},
                              {6, "B1 points section (6)", 1},
                              {8, "C points section (8)", 3},
                              {9, "H points section (9)", 7}}) {
    auto s = secs_;
    body(s, id)[at * 96 + 7] ^= 0x10;
    expect_reject(join(s), {name, "point " + std::to_string(at), "not on the curve"});
  }
  {
    auto s = secs_;
    body(s, 7)[5 * 192 + 100] ^= 0x10;
    expect_reject(join(s), {"B2 points section (7)", "point 5", "not on the curve"});
  }
  {  // a coordinate = q (not reduced)
    auto s = secs_;
    auto& a = body(s, 5);
    for (size_t i = 0; i < 48; ++i) a[96 * 3 + i] = static_cast<uint8_t>(Fq::MOD[i / 8] >> (8 * (i % 8)));
    expect_reject(join(s), {"A points section (5)", "point 3", "not reduced"});
  }
  {  // an infinity point with one stray byte
    auto s = secs_;
    const Zkey z = *parse_zkey(file_, "mul3");
    size_t inf = 0;
    while (!z.b1.at(inf).infinity) ++inf;
    body(s, 6)[inf * 96 + 95] = 1;
    expect_reject(join(s), {"B1 points section (6)", "point " + std::to_string(inf), "not on the curve"});
  }
  for (auto [off, label] : {std::pair<size_t, const char*>{kAlpha1, "alpha1"},
                            {kBeta1, "beta1"},
                            {kBeta2, "beta2"},
                            {kGamma2, "gamma2"},
                            {kDelta1, "delta1"},
                            {kDelta2, "delta2"}}) {
    auto s = secs_;
    body(s, 2)[off + 3] ^= 0x40;
    expect_reject(join(s), {"Groth16 header section (2)", label, "not on the curve"});
    auto t = secs_;  // at infinity
    const size_t len = (std::string(label).back() == '2') ? 192 : 96;
    std::fill_n(body(t, 2).begin() + static_cast<ptrdiff_t>(off), len, 0);
    expect_reject(join(t), {"Groth16 header section (2)", label, "point at infinity"});
  }
}

// An on-curve G1 point outside the prime-order subgroup: rejected in the VK by default, in the
// big sections only with check_all_subgroups.
TEST_F(ZkeyCorrupt, SubgroupChecks) {
  G1Affine p;
  for (uint64_t x = 1;; ++x) {
    const Fq fx = Fq::from_u64(x);
    auto y = (fx.square() * fx + ec::G1Config::b()).sqrt();
    if (!y) continue;
    p = G1Affine(fx, *y);
    if (!ec::g1_in_subgroup(p)) break;
  }
  const auto enc = ec::g1_to_snarkjs(p);
  {
    auto s = secs_;
    std::copy(enc.begin(), enc.end(), body(s, 2).begin() + kAlpha1);
    expect_reject(join(s), {"alpha1", "subgroup"});
    ZkeyOptions off;
    off.check_vk_subgroup = false;
    EXPECT_TRUE(parse_zkey(join(s), "t.zkey", off).ok());
  }
  {
    auto s = secs_;
    std::copy(enc.begin(), enc.end(), body(s, 3).begin() + 96);
    expect_reject(join(s), {"IC section (3)", "point 1", "subgroup"});
  }
  for (uint32_t id : {5u, 6u, 8u, 9u}) {
    auto s = secs_;
    std::copy(enc.begin(), enc.end(), body(s, id).begin() + 96);
    EXPECT_TRUE(parse_zkey(join(s), "t.zkey").ok()) << "section " << id;
    ZkeyOptions all;
    all.check_all_subgroups = true;
    expect_reject(join(s), {"section (" + std::to_string(id) + ")", "point 1", "subgroup"}, all);
  }
}

// Every single-byte flip: never a crash; rejected wherever the byte belongs to a point, a prime, a
// count or a section length.
TEST_F(ZkeyCorrupt, FlippedBytes) {
  auto bf = circom::parse_binfile(file_, "zkey", "mul3");
  ASSERT_TRUE(bf.ok());
  ZkeyOptions opt;
  opt.check_vk_subgroup = false;  // keeps the 7,000 parses fast (on-curve checks still run)
  for (size_t i = 0; i < file_.size(); ++i) {
    auto f = file_;
    f[i] ^= 0xa5;
    auto r = parse_zkey(f, "t.zkey", opt);
    if (r.ok()) {
      // Only bytes whose change can leave a valid key: the MPC section, section ids in the table
      // (10 ↔ another unused id), and coefficient values.
      const circom::BinSection* in = nullptr;
      for (const auto& s : bf->sections)
        if (i >= s.offset && i < s.offset + s.size) in = &s;
      const bool mpc = in != nullptr && in->id == 10;
      const bool coef_value = in != nullptr && in->id == 4 && i >= in->offset + 4 && (i - in->offset - 4) % 44 >= 12;
      const bool table = in == nullptr && i >= 12;
      EXPECT_TRUE(mpc || coef_value || table) << "flip at offset " << i << " accepted";
    } else {
      EXPECT_EQ(r.error().rfind("t.zkey: ", 0), 0u) << r.error();
    }
  }
}

TEST(Zkey, LoadMissingFileNamesThePath) {
  auto z = load_zkey(fixture_dir() + "/no-such.zkey");
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().find("no-such.zkey"), std::string::npos) << z.error();
}

}  // namespace
}  // namespace cuzk::groth16
