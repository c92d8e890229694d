// bellperson .params / .vk reader and writer: round trips, the byte layout against an independent
// encoder written here, scan_params, and corrupted files (truncation at every offset, hostile
// counts, trailing bytes, non-canonical coordinates, off-curve points, wrong flags, infinity,
// non-subgroup points, circuit mismatches).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ec/msm.hpp"
#include "groth16/params_file.hpp"

namespace cuzk::groth16 {
namespace {

namespace fs = std::filesystem;
using ec::Fq;
using ec::Fq2;

// ---- helpers ----

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("cuzk_test_params_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replaces the file by a new one (unlinking first: ext4 flushes a file truncated to zero and rewritten,
// which costs milliseconds per call).
void write_bytes(const std::string& path, std::span<const uint8_t> b) {
  std::error_code ec;
  fs::remove(path, ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  ASSERT_TRUE(out.good()) << path;
}

struct Sizes {
  size_t ic, h, l, a, b;
};

// Valid keys: distinct subgroup points from the test bases.
ProvingKey make_pk(const Sizes& s, uint64_t seed) {
  const size_t n1 = 3 + s.ic + s.h + s.l + s.a + s.b;
  auto g1 = ec::g1_test_bases(n1, seed);
  auto g2 = ec::g2_test_bases(3 + s.b, seed + 1000);
  ProvingKey pk;
  size_t k = 0, k2 = 0;
  pk.vk.alpha_g1 = g1[k++];
  pk.vk.beta_g1 = g1[k++];
  pk.vk.delta_g1 = g1[k++];
  pk.vk.beta_g2 = g2[k2++];
  pk.vk.gamma_g2 = g2[k2++];
  pk.vk.delta_g2 = g2[k2++];
  auto take = [&](size_t n) {
    std::vector<G1Affine> v(g1.begin() + static_cast<ptrdiff_t>(k), g1.begin() + static_cast<ptrdiff_t>(k + n));
    k += n;
    return v;
  };
  pk.vk.ic = take(s.ic);
  pk.h = take(s.h);
  pk.l = take(s.l);
  pk.a = take(s.a);
  pk.b_g1 = take(s.b);
  pk.b_g2.assign(g2.begin() + 3, g2.end());
  return pk;
}

// The small key most corruption tests use: 2 inputs, domain 4, 3 aux, A aux density 2, B input
// density 1, B aux density 2.
constexpr Sizes SMALL{2, 3, 3, 4, 3};
ParamsExpect small_expect() {
  ParamsExpect e;
  e.num_inputs = 2;
  e.num_aux = 3;
  e.domain_size = 4;
  e.a_aux_density = 2;
  e.b_input_density = 1;
  e.b_aux_density = 2;
  return e;
}

// ---- an independent encoder (the format as documented, not the library's encoders) ----

void put_be32(std::vector<uint8_t>& o, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) o.push_back(static_cast<uint8_t>(v >> s));
}
void put_fq(std::vector<uint8_t>& o, const Fq& x) {
  uint8_t b[48];
  x.to_bytes_be(std::span<uint8_t>(b, 48));
  o.insert(o.end(), b, b + 48);
}
void put_g1(std::vector<uint8_t>& o, const G1Affine& p) {
  put_fq(o, p.x);
  put_fq(o, p.y);
}
void put_g2(std::vector<uint8_t>& o, const G2Affine& p) {
  put_fq(o, p.x.c1);
  put_fq(o, p.x.c0);
  put_fq(o, p.y.c1);
  put_fq(o, p.y.c0);
}
std::vector<uint8_t> ref_vk(const VerifyingKey& vk) {
  std::vector<uint8_t> o;
  put_g1(o, vk.alpha_g1);
  put_g1(o, vk.beta_g1);
  put_g2(o, vk.beta_g2);
  put_g2(o, vk.gamma_g2);
  put_g1(o, vk.delta_g1);
  put_g2(o, vk.delta_g2);
  put_be32(o, static_cast<uint32_t>(vk.ic.size()));
  for (auto& p : vk.ic) put_g1(o, p);
  return o;
}
std::vector<uint8_t> ref_params(const ProvingKey& pk) {
  std::vector<uint8_t> o = ref_vk(pk.vk);
  for (const auto* sec : {&pk.h, &pk.l, &pk.a, &pk.b_g1}) {
    put_be32(o, static_cast<uint32_t>(sec->size()));
    for (auto& p : *sec) put_g1(o, p);
  }
  put_be32(o, static_cast<uint32_t>(pk.b_g2.size()));
  for (auto& p : pk.b_g2) put_g2(o, p);
  return o;
}
std::vector<uint8_t> g1_bytes(const G1Affine& p) {
  std::vector<uint8_t> o;
  put_g1(o, p);
  return o;
}
std::vector<uint8_t> g2_bytes(const G2Affine& p) {
  std::vector<uint8_t> o;
  put_g2(o, p);
  return o;
}

void expect_vk_eq(const VerifyingKey& a, const VerifyingKey& b) {
  EXPECT_TRUE(a.alpha_g1 == b.alpha_g1);
  EXPECT_TRUE(a.beta_g1 == b.beta_g1);
  EXPECT_TRUE(a.beta_g2 == b.beta_g2);
  EXPECT_TRUE(a.gamma_g2 == b.gamma_g2);
  EXPECT_TRUE(a.delta_g1 == b.delta_g1);
  EXPECT_TRUE(a.delta_g2 == b.delta_g2);
  EXPECT_TRUE(a.ic == b.ic);
}
void expect_pk_eq(const ProvingKey& a, const ProvingKey& b) {
  expect_vk_eq(a.vk, b.vk);
  EXPECT_TRUE(a.h == b.h);
  EXPECT_TRUE(a.l == b.l);
  EXPECT_TRUE(a.a == b.a);
  EXPECT_TRUE(a.b_g1 == b.b_g1);
  EXPECT_TRUE(a.b_g2 == b.b_g2);
}

// Curve points outside the prime-order subgroup (the cofactors are large, so the first x that
// gives a curve point almost surely works; the test asserts it).
G1Affine g1_non_subgroup() {
  for (uint64_t x = 1;; ++x) {
    Fq fx = Fq::from_u64(x);
    if (auto y = (fx.square() * fx + ec::G1Config::b()).sqrt()) {
      G1Affine p(fx, *y);
      if (p.is_on_curve() && !ec::g1_in_subgroup(p)) return p;
    }
  }
}
G2Affine g2_non_subgroup() {
  for (uint64_t x = 1;; ++x) {
    Fq2 fx(Fq::from_u64(x), Fq::one());
    if (auto y = (fx.square() * fx + ec::G2Config::b()).sqrt()) {
      G2Affine p(fx, *y);
      if (p.is_on_curve() && !ec::g2_in_subgroup(p)) return p;
    }
  }
}

// Byte offset of point `index` of a section by name, from the layout.
uint64_t point_offset(const ParamsLayout& L, const std::string& section, uint64_t index) {
  static const std::pair<const char*, uint64_t> fixed[] = {{"vk.alpha_g1", 0},   {"vk.beta_g1", 96},
                                                           {"vk.beta_g2", 192},  {"vk.gamma_g2", 384},
                                                           {"vk.delta_g1", 576}, {"vk.delta_g2", 672}};
  for (auto& [n, off] : fixed)
    if (section == n) return off;
  const ParamsSection* s = section == "vk.ic"  ? &L.ic
                           : section == "h"    ? &L.h
                           : section == "l"    ? &L.l
                           : section == "a"    ? &L.a
                           : section == "b_g1" ? &L.b_g1
                                               : &L.b_g2;
  return s->offset + index * s->point_bytes;
}
bool is_g2(const std::string& section) {
  return section == "vk.beta_g2" || section == "vk.gamma_g2" || section == "vk.delta_g2" || section == "b_g2";
}
bool is_fixed(const std::string& section) {
  return section.rfind("vk.", 0) == 0 && section != "vk.ic";
}
// The part of the error message that locates the point.
std::string where(const std::string& section, uint64_t index) {
  std::string w = "section '";
  w += section;
  w += '\'';
  if (is_fixed(section)) {
    w += " (offset";
  } else {
    w += " point ";
    w += std::to_string(index);
  }
  return w;
}

const std::vector<std::pair<std::string, uint64_t>> ALL_POINTS = {
    {"vk.alpha_g1", 0}, {"vk.beta_g1", 0},  {"vk.beta_g2", 0}, {"vk.gamma_g2", 0},
    {"vk.delta_g1", 0}, {"vk.delta_g2", 0}, {"vk.ic", 1},      {"h", 2},
    {"l", 0},           {"a", 3},           {"b_g1", 1},       {"b_g2", 2}};

// Fixture: the small key written with the reference encoder.
class ParamsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    pk_ = make_pk(SMALL, 7);
    bytes_ = ref_params(pk_);
    path_ = dir_.file("small.params");
    write_bytes(path_, bytes_);
    auto L = scan_params(path_);
    ASSERT_TRUE(L.ok()) << L.error();
    layout_ = *L;
  }
  // Writes `b` to a fresh file and reads it.
  Result<ProvingKey> read_modified(const std::vector<uint8_t>& b, const ParamsReadOptions& o = {}) {
    std::string p = dir_.file("mod.params");
    write_bytes(p, b);
    return read_params(p, o);
  }

  // Writes `b` to a fresh file and returns the read error ("(read succeeded)" if none).
  std::string read_err(const std::vector<uint8_t>& b) {
    std::string p = dir_.file("mod.params");
    write_bytes(p, b);
    auto r = read_params(p);
    if (r.ok()) return "(read succeeded)";
    EXPECT_EQ(r.error().rfind(p + ": ", 0), 0u) << r.error();
    return r.error();
  }
  // Applies `mutate` to the encoding of each point of ALL_POINTS in turn; the read must fail with
  // a message naming the file, section, index, offset and `reason`.
  template <class F>
  void check_each_point(const char* reason, F&& mutate) {
    for (auto& [section, index] : ALL_POINTS) {
      auto b = bytes_;
      const uint64_t off = point_offset(layout_, section, index);
      mutate(b.data() + off, is_g2(section) ? size_t{192} : size_t{96});
      std::string err = read_err(b);
      EXPECT_NE(err.find(where(section, index)), std::string::npos) << section << ": " << err;
      EXPECT_NE(err.find("(offset " + std::to_string(off) + ")"), std::string::npos) << section << ": " << err;
      EXPECT_NE(err.find(reason), std::string::npos) << section << ": " << err;
    }
  }

  TempDir dir_;
  ProvingKey pk_;
  std::vector<uint8_t> bytes_;
  std::string path_;
  ParamsLayout layout_;
};

// ---- round trips and layout ----

TEST_F(ParamsFile, WriterMatchesReferenceEncoder) {
  std::string p = dir_.file("w.params");
  auto w = write_params(pk_, p);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(read_file_bytes(p), bytes_);
  EXPECT_EQ(vk_bytes(pk_.vk), ref_vk(pk_.vk));
  // The params file starts with the vk serialization.
  auto vkb = vk_bytes(pk_.vk);
  EXPECT_TRUE(std::equal(vkb.begin(), vkb.end(), bytes_.begin()));
  // The vk is 864 bytes, then n_ic.
  EXPECT_EQ(vkb.size(), 864u + 4 + 96 * SMALL.ic);
  EXPECT_EQ(vkb[864], 0);
  EXPECT_EQ(vkb[867], SMALL.ic);
}

TEST_F(ParamsFile, RoundTrip) {
  auto r = read_params(path_);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_pk_eq(*r, pk_);
  // With every check on and the right expectations.
  ParamsReadOptions o;
  o.subgroup_checks = true;
  o.expect = small_expect();
  auto r2 = read_params(path_, o);
  ASSERT_TRUE(r2.ok()) << r2.error();
  expect_pk_eq(*r2, pk_);
  // Overwriting an existing file (atomic replace) and reading it back.
  ProvingKey other = make_pk({1, 7, 2, 1, 5}, 99);
  ASSERT_TRUE(write_params(other, path_).ok());
  auto r3 = read_params(path_);
  ASSERT_TRUE(r3.ok()) << r3.error();
  expect_pk_eq(*r3, other);
}

TEST_F(ParamsFile, EmptySections) {
  ProvingKey pk = make_pk({1, 0, 0, 0, 0}, 3);
  std::string p = dir_.file("empty.params");
  ASSERT_TRUE(write_params(pk, p).ok());
  EXPECT_EQ(read_file_bytes(p), ref_params(pk));
  auto r = read_params(p);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_pk_eq(*r, pk);
  // A vk without ic points.
  VerifyingKey vk = pk.vk;
  vk.ic.clear();
  ASSERT_TRUE(write_vk(vk, p).ok());
  auto v = read_vk(p);
  ASSERT_TRUE(v.ok()) << v.error();
  expect_vk_eq(*v, vk);
}

TEST_F(ParamsFile, VkRoundTrip) {
  std::string p = dir_.file("k.vk");
  auto w = write_vk(pk_.vk, p);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(read_file_bytes(p), ref_vk(pk_.vk));
  auto r = read_vk(p);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_vk_eq(*r, pk_.vk);
  auto b = ref_vk(pk_.vk);
  auto q = parse_vk(b, "mem");
  ASSERT_TRUE(q.ok()) << q.error();
  expect_vk_eq(*q, pk_.vk);
  // A .params file is not a .vk (trailing bytes).
  auto bad = read_vk(path_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("trailing bytes after section 'vk.ic'"), std::string::npos) << bad.error();
}

TEST_F(ParamsFile, ScanLayout) {
  const ParamsLayout& L = layout_;
  EXPECT_EQ(L.file_size, bytes_.size());
  uint64_t pos = 864;
  auto check = [&](const ParamsSection& s, uint64_t count, uint64_t ps, const char* what) {
    EXPECT_EQ(s.count_offset, pos) << what;
    EXPECT_EQ(s.offset, pos + 4) << what;
    EXPECT_EQ(s.count, count) << what;
    EXPECT_EQ(s.point_bytes, ps) << what;
    pos += 4 + count * ps;
    EXPECT_EQ(s.end(), pos) << what;
  };
  check(L.ic, SMALL.ic, 96, "ic");
  check(L.h, SMALL.h, 96, "h");
  check(L.l, SMALL.l, 96, "l");
  check(L.a, SMALL.a, 96, "a");
  check(L.b_g1, SMALL.b, 96, "b_g1");
  check(L.b_g2, SMALL.b, 192, "b_g2");
  EXPECT_EQ(pos, bytes_.size());
  EXPECT_EQ(L.vk_bytes(), 864u + 4 + 96 * SMALL.ic);
  EXPECT_EQ(L.num_inputs(), SMALL.ic);
  EXPECT_EQ(L.num_aux(), SMALL.l);
  EXPECT_EQ(L.domain_size(), SMALL.h + 1);
  EXPECT_TRUE(check_params_expect(L, small_expect(), "x").ok());
}

// ---- corruption ----

TEST_F(ParamsFile, TruncationAtEveryOffset) {
  std::string p = dir_.file("trunc.params");
  write_bytes(p, bytes_);
  for (size_t n = bytes_.size(); n-- > 0;) {
    fs::resize_file(p, n);
    auto r = read_params(p);
    ASSERT_FALSE(r.ok()) << "length " << n;
    EXPECT_NE(r.error().find(p), std::string::npos) << r.error();
    const bool named = r.error().find("truncated") != std::string::npos ||
                       r.error().find("exceeds the file size") != std::string::npos;
    EXPECT_TRUE(named) << r.error();
    ASSERT_FALSE(scan_params(p).ok()) << "length " << n;
  }
  // The vk alone: every truncation of the serialization, in memory and as a file.
  auto vkb = ref_vk(pk_.vk);
  for (size_t n = 0; n < vkb.size(); ++n) {
    ASSERT_FALSE(parse_vk(std::span<const uint8_t>(vkb.data(), n), "vk").ok()) << "length " << n;
  }
  write_bytes(p, std::span<const uint8_t>(vkb.data(), vkb.size() - 1));
  auto v = read_vk(p);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find("'vk.ic' count 2"), std::string::npos) << v.error();
}

TEST_F(ParamsFile, HostileCounts) {
  struct Case {
    const ParamsSection* s;
    const char* name;
  };
  for (const Case& c : {Case{&layout_.ic, "vk.ic"}, Case{&layout_.h, "h"}, Case{&layout_.l, "l"}, Case{&layout_.a, "a"},
                        Case{&layout_.b_g1, "b_g1"}, Case{&layout_.b_g2, "b_g2"}}) {
    auto b = bytes_;
    for (int k = 0; k < 4; ++k) b[c.s->count_offset + k] = 0xff;
    auto r = read_modified(b);
    ASSERT_FALSE(r.ok()) << c.name;
    std::string want = "'";
    want += c.name;
    want += "' count 4294967295";
    EXPECT_NE(r.error().find(want), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("exceeds the file size"), std::string::npos) << r.error();
    EXPECT_FALSE(scan_params(dir_.file("mod.params")).ok());
    // One more point than the file holds.
    b = bytes_;
    b[c.s->count_offset + 3] = static_cast<uint8_t>(b[c.s->count_offset + 3] + 1);
    r = read_modified(b);
    ASSERT_FALSE(r.ok()) << c.name;
    if (c.s == &layout_.b_g2) {
      EXPECT_NE(r.error().find("exceeds the file size"), std::string::npos) << r.error();
    }
  }
  // A count one less leaves trailing bytes behind b_g2.
  auto b = bytes_;
  b[layout_.b_g2.count_offset + 3] -= 1;
  auto r = read_modified(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("192 trailing bytes after section 'b_g2'"), std::string::npos) << r.error();
  // The vk: a hostile ic count.
  auto vkb = ref_vk(pk_.vk);
  for (int k = 0; k < 4; ++k) vkb[864 + k] = 0xff;
  auto v = parse_vk(vkb, "hostile.vk");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find("hostile.vk: section 'vk.ic' count 4294967295"), std::string::npos) << v.error();
}

TEST_F(ParamsFile, TrailingBytes) {
  auto b = bytes_;
  b.push_back(0);
  auto r = read_modified(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("1 trailing bytes after section 'b_g2'"), std::string::npos) << r.error();
  EXPECT_FALSE(scan_params(dir_.file("mod.params")).ok());
  auto vkb = ref_vk(pk_.vk);
  vkb.push_back(1);
  auto v = parse_vk(vkb, "t.vk");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find("trailing"), std::string::npos) << v.error();
}

TEST_F(ParamsFile, OffCurveInEachSection) {
  check_each_point("not on the curve", [](uint8_t* p, size_t n) { p[n - 1] ^= 1; });
}

TEST_F(ParamsFile, NonCanonicalCoordinateInEachSection) {
  // x (x.c1 for G2) = q: 0x1a0111ea... has the flag bits clear.
  uint8_t q[48];
  (Fq::zero() - Fq::one()).to_bytes_be(std::span<uint8_t>(q, 48));  // q - 1
  q[47] += 1;                                                       // q (q - 1 is even: no carry)
  check_each_point("not canonical", [&](uint8_t* p, size_t) { std::memcpy(p, q, 48); });
  // y too.
  check_each_point("not canonical", [&](uint8_t* p, size_t n) { std::memcpy(p + n / 2, q, 48); });
}

TEST_F(ParamsFile, CompressedFlagInEachSection) {
  check_each_point("compression flag", [](uint8_t* p, size_t) { p[0] |= 0x80; });
  check_each_point("sort flag", [](uint8_t* p, size_t) { p[0] |= 0x20; });
}

TEST_F(ParamsFile, InfinityInEachSection) {
  check_each_point("point at infinity is not allowed", [](uint8_t* p, size_t n) {
    std::memset(p, 0, n);
    p[0] = 0x40;
  });
  // Infinity with leftover coordinates is malformed.
  check_each_point("coordinates are not zero", [](uint8_t* p, size_t) { p[0] |= 0x40; });
}

TEST_F(ParamsFile, VkPointErrorsFromReadVk) {
  auto vkb = ref_vk(pk_.vk);
  std::string p = dir_.file("bad.vk");
  auto b = vkb;
  b[96 + 95] ^= 1;  // beta_g1 off the curve
  write_bytes(p, b);
  auto r = read_vk(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(p + ": section 'vk.beta_g1' (offset 96): G1 point is not on the curve"), std::string::npos)
      << r.error();
  b = vkb;
  b[868 + 96 + 5] ^= 1;  // ic[1] x changed: off the curve (or not canonical)
  auto q = parse_vk(b, "m.vk");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().find("m.vk: section 'vk.ic' point 1 (offset 964)"), std::string::npos) << q.error();
}

TEST_F(ParamsFile, NonSubgroupPoints) {
  const G1Affine p1 = g1_non_subgroup();
  const G2Affine p2 = g2_non_subgroup();
  ASSERT_TRUE(p1.is_on_curve());
  ASSERT_FALSE(ec::g1_in_subgroup_by_order(p1));
  ASSERT_TRUE(p2.is_on_curve());
  ASSERT_FALSE(ec::g2_in_subgroup_by_order(p2));
  const auto e1 = g1_bytes(p1), e2 = g2_bytes(p2);
  ParamsReadOptions checked;
  checked.subgroup_checks = true;
  // The big sections: accepted without the flag, rejected with it.
  for (auto& [section, index] : ALL_POINTS) {
    if (section.rfind("vk.", 0) == 0) continue;
    auto b = bytes_;
    const uint64_t off = point_offset(layout_, section, index);
    const auto& e = is_g2(section) ? e2 : e1;
    std::copy(e.begin(), e.end(), b.begin() + static_cast<ptrdiff_t>(off));
    auto r = read_modified(b);
    ASSERT_TRUE(r.ok()) << section << ": " << r.error();
    if (section == "h") {
      EXPECT_TRUE(r->h[index] == p1);
    }
    if (section == "b_g2") {
      EXPECT_TRUE(r->b_g2[index] == p2);
    }
    r = read_modified(b, checked);
    ASSERT_FALSE(r.ok()) << section;
    EXPECT_NE(r.error().find(where(section, index)), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("not in the prime-order subgroup"), std::string::npos) << r.error();
  }
  // The vk points: always rejected, by read_params (either setting) and by parse_vk.
  for (auto& [section, index] : ALL_POINTS) {
    if (section.rfind("vk.", 0) != 0) continue;
    auto b = bytes_;
    const uint64_t off = point_offset(layout_, section, index);
    const auto& e = is_g2(section) ? e2 : e1;
    std::copy(e.begin(), e.end(), b.begin() + static_cast<ptrdiff_t>(off));
    for (bool flag : {false, true}) {
      ParamsReadOptions o;
      o.subgroup_checks = flag;
      auto r = read_modified(b, o);
      ASSERT_FALSE(r.ok()) << section;
      EXPECT_NE(r.error().find(where(section, index)), std::string::npos) << r.error();
      EXPECT_NE(r.error().find("not in the prime-order subgroup"), std::string::npos) << r.error();
    }
    auto v = parse_vk(std::span<const uint8_t>(b.data(), layout_.vk_bytes()), "vk");
    ASSERT_FALSE(v.ok()) << section;
    EXPECT_NE(v.error().find("not in the prime-order subgroup"), std::string::npos) << v.error();
  }
}

TEST_F(ParamsFile, ExpectMismatches) {
  struct Case {
    const char* field;
    void (*change)(ParamsExpect&);
  };
  const Case cases[] = {
      {"num_inputs", [](ParamsExpect& e) { e.num_inputs += 1; }},
      {"num_aux", [](ParamsExpect& e) { e.num_aux -= 1; }},
      {"domain_size", [](ParamsExpect& e) { e.domain_size *= 2; }},
      {"domain_size", [](ParamsExpect& e) { e.domain_size = 0; }},
      {"a count", [](ParamsExpect& e) { e.a_aux_density += 1; }},
      {"b_g1 count", [](ParamsExpect& e) { e.b_input_density += 1; }},
      {"b_g2 count", [](ParamsExpect& e) { e.b_aux_density -= 1; }},
  };
  for (const Case& c : cases) {
    ParamsReadOptions o;
    o.expect = small_expect();
    c.change(*o.expect);
    auto r = read_params(path_, o);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_NE(r.error().find(path_ + ": parameters do not match the circuit"), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(std::string(c.field) + ":"), std::string::npos) << r.error();
    EXPECT_FALSE(check_params_expect(layout_, *o.expect, "x").ok()) << c.field;
  }
  // num_inputs also moves the expected a count: both are reported.
  ParamsExpect e = small_expect();
  e.num_inputs = 3;
  auto r = check_params_expect(layout_, e, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("num_inputs: the file has 2, the circuit needs 3"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("a count: the file has 4, the circuit needs 5"), std::string::npos) << r.error();
}

TEST_F(ParamsFile, MissingFileAndDirectory) {
  const std::string missing = dir_.file("nope.params");
  auto r = read_params(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(missing + ": cannot open"), std::string::npos) << r.error();
  auto s = scan_params(missing);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find(missing + ": cannot open"), std::string::npos) << s.error();
  auto v = read_vk(missing);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find(missing + ": cannot open"), std::string::npos) << v.error();
  fs::create_directories(dir_.file("adir"));
  EXPECT_FALSE(scan_params(dir_.file("adir")).ok());
  EXPECT_FALSE(read_params(dir_.file("adir")).ok());
  // Writing into a missing directory fails with the path.
  auto w = write_params(pk_, dir_.file("no/such/dir/x.params"));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().find("x.params"), std::string::npos) << w.error();
}

TEST_F(ParamsFile, WriterRejectsInfinity) {
  {
    ProvingKey pk = pk_;
    pk.l[1] = G1Affine();
    const std::string p = dir_.file("inf.params");
    auto w = write_params(pk, p);
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().find(p + ": cannot write section 'l' point 1"), std::string::npos) << w.error();
    EXPECT_FALSE(fs::exists(p));  // nothing left behind
    EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(p).parent_path()), fs::directory_iterator()),
              1);  // only small.params: no temporary file either
  }
  {
    ProvingKey pk = pk_;
    pk.b_g2[2] = G2Affine();
    auto w = write_params(pk, dir_.file("inf.params"));
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().find("section 'b_g2' point 2"), std::string::npos) << w.error();
  }
  {
    VerifyingKey vk = pk_.vk;
    vk.gamma_g2 = G2Affine();
    auto w = write_vk(vk, dir_.file("inf.vk"));
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().find("section 'vk.gamma_g2'"), std::string::npos) << w.error();
    vk = pk_.vk;
    vk.ic[1] = G1Affine();
    w = write_vk(vk, dir_.file("inf.vk"));
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().find("section 'vk.ic' point 1"), std::string::npos) << w.error();
    // vk_bytes still serializes it (0x40 then zeros), which the reader rejects.
    auto b = vk_bytes(vk);
    EXPECT_EQ(b[868 + 96], 0x40);
    auto r = parse_vk(b, "v");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("point at infinity is not allowed"), std::string::npos) << r.error();
  }
}

// Sections spanning several parallel work items: round trip, progress, and the lowest bad index
// reported whatever the scheduling.
TEST(ParamsFileLarge, ParallelDecodeProgressAndFirstError) {
  TempDir dir;
  ProvingKey pk = make_pk({3, 20000, 9000, 50, 9000}, 11);
  const std::string p = dir.file("large.params");
  std::vector<std::pair<uint64_t, uint64_t>> wcalls;
  auto w = write_params(pk, p, [&](uint64_t d, uint64_t t) { wcalls.emplace_back(d, t); });
  ASSERT_TRUE(w.ok()) << w.error();
  const auto bytes = read_file_bytes(p);
  EXPECT_EQ(bytes, ref_params(pk));
  ASSERT_FALSE(wcalls.empty());
  EXPECT_EQ(wcalls.back().first, bytes.size());
  EXPECT_EQ(wcalls.back().second, bytes.size());

  std::vector<std::pair<uint64_t, uint64_t>> calls;
  ParamsReadOptions o;
  o.progress = [&](uint64_t d, uint64_t t) { calls.emplace_back(d, t); };
  auto r = read_params(p, o);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_pk_eq(*r, pk);
  ASSERT_GT(calls.size(), 5u);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].first, calls[i].first);
  EXPECT_EQ(calls.back().first, bytes.size());
  EXPECT_EQ(calls.back().second, bytes.size());

  auto L = scan_params(p);
  ASSERT_TRUE(L.ok()) << L.error();
  auto b = bytes;
  for (uint64_t idx : {uint64_t{19999}, uint64_t{12345}, uint64_t{5000}, uint64_t{4097}}) {
    b[L->h.offset + idx * 96 + 95] ^= 1;
  }
  const std::string q = dir.file("bad.params");
  write_bytes(q, b);
  for (int rep = 0; rep < 3; ++rep) {
    auto e = read_params(q);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().find("section 'h' point 4097 "), std::string::npos) << e.error();
  }
}

// The streaming reader (ParamsKeySource): the same points as read_params in windows of any width,
// handed on in order with their first index; a bad point's error names its absolute index.
TEST(ParamsKeySourceTest, WindowsEqualReadParams) {
  TempDir dir;
  ProvingKey pk = make_pk({3, 20000, 9000, 50, 9000}, 11);
  const std::string p = dir.file("k.params");
  ASSERT_TRUE(write_params(pk, p).ok());
  for (uint64_t window : {uint64_t{1} << 20, uint64_t{4096}, uint64_t{7}}) {
    auto src = ParamsKeySource::open(p, {}, window);
    ASSERT_TRUE(src.ok()) << src.error();
    EXPECT_EQ(vk_bytes(src->vk()), vk_bytes(pk.vk));
    EXPECT_EQ(src->sizes(), KeySizes::of(pk));
    uint64_t next = 0, calls = 0;
    src->read_g1(G1Section::l, [&](uint64_t first, std::span<const G1Affine> pts) {
      EXPECT_EQ(first, next);
      EXPECT_LE(pts.size(), window);
      next += pts.size();
      ++calls;
    });
    EXPECT_EQ(next, pk.l.size());
    EXPECT_EQ(calls, (pk.l.size() + window - 1) / window);
    expect_pk_eq(collect_key(*src), pk);
  }
  // The key in memory as a source gives the same.
  expect_pk_eq(collect_key(MemoryKeySource(pk)), pk);

  auto L = scan_params(p);
  ASSERT_TRUE(L.ok()) << L.error();
  auto b = read_file_bytes(p);
  b[L->b_g2.offset + 8001 * 192 + 191] ^= 1;  // off the curve, in the 1143rd window of 7
  const std::string q = dir.file("bad.params");
  write_bytes(q, b);
  auto src = ParamsKeySource::open(q, {}, 7);
  ASSERT_TRUE(src.ok()) << src.error();  // the vk is fine: the bad point shows when it is read
  uint64_t seen = 0;
  try {
    src->read_b_g2([&](uint64_t, std::span<const G2Affine> pts) { seen += pts.size(); });
    ADD_FAILURE() << "a bad b_g2 point was streamed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("section 'b_g2' point 8001 "), std::string::npos) << e.what();
  }
  EXPECT_EQ(seen, 8001u - 8001u % 7);  // every window before the bad one, none after

  // A file replaced by one of another size after open is refused, not read with the old layout.
  ASSERT_TRUE(write_params(make_pk({1, 7, 2, 1, 5}, 99), q).ok());
  EXPECT_THROW(src->read_g1(G1Section::h, [](uint64_t, std::span<const G1Affine>) {}), std::runtime_error);
  // A vk that does not decode fails at open.
  auto c = read_file_bytes(p);
  c[96 + 95] ^= 1;
  write_bytes(q, c);
  auto bad = ParamsKeySource::open(q);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("vk.beta_g1"), std::string::npos) << bad.error();
  EXPECT_FALSE(ParamsKeySource::open(p, {}, 0).ok());
}

// A ~100 MB file: `test_params_file --gtest_also_run_disabled_tests --gtest_filter='*Speed*'`.
TEST(ParamsFileLarge, DISABLED_Speed100MB) {
  TempDir dir;
  auto t0 = std::chrono::steady_clock::now();
  ProvingKey pk = make_pk({8, (1 << 19) - 1, 200000, 150008, 100000}, 5);
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  auto t1 = std::chrono::steady_clock::now();
  const std::string p = dir.file("speed.params");
  ASSERT_TRUE(write_params(pk, p).ok());
  auto t2 = std::chrono::steady_clock::now();
  const double mb = static_cast<double>(fs::file_size(p)) / 1e6;
  auto r = read_params(p);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t3 = std::chrono::steady_clock::now();
  ParamsReadOptions o;
  o.subgroup_checks = true;
  auto r2 = read_params(p, o);
  ASSERT_TRUE(r2.ok()) << r2.error();
  auto t4 = std::chrono::steady_clock::now();
  auto L = scan_params(p);
  ASSERT_TRUE(L.ok());
  auto t5 = std::chrono::steady_clock::now();
  std::printf("file %.1f MB on %u threads (keys built in %.2f s)\n", mb, ThreadPool::global().size(), secs(t0, t1));
  std::printf("write_params                 %.3f s  %.0f MB/s\n", secs(t1, t2), mb / secs(t1, t2));
  std::printf("read_params                  %.3f s  %.0f MB/s\n", secs(t2, t3), mb / secs(t2, t3));
  std::printf("read_params subgroup_checks  %.3f s  %.0f MB/s\n", secs(t3, t4), mb / secs(t3, t4));
  std::printf("scan_params                  %.6f s\n", secs(t4, t5));
}

}  // namespace
}  // namespace cuzk::groth16
