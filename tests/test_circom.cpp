// The circom readers (src/r1cs/circom_*.hpp) against fixtures compiled by circom2 0.2.23 (circom
// 2.2.3) on --prime bls12381 with witnesses from snarkjs 0.7.6 (tests/circom/regen.sh), and against
// corrupted copies of them: every corruption must come back as an error naming the file part, never
// a crash (the ASan+UBSan build runs this too).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "r1cs/binfile.hpp"
#include "r1cs/circom_r1cs.hpp"
#include "r1cs/circom_wtns.hpp"

namespace cuzk::circom {
namespace {

using Bytes = std::vector<uint8_t>;

std::string fixture(const std::string& name) {
#ifdef CUZK_VECTORS_DIR
  return std::string(CUZK_VECTORS_DIR) + "/../circom/" + name;
#else
  return "tests/circom/" + name;
#endif
}

Bytes load_bytes(const std::string& name) {
  auto b = read_file_bytes(fixture(name));
  if (!b) throw std::runtime_error(b.error());
  return *b;
}

void put_u32(Bytes& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(Bytes& b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}

// Offset of the body of section `id` and the offset of its table entry (12 bytes before the body).
const BinSection& section(const BinFile& f, uint32_t id) {
  const BinSection* s = f.find(id);
  if (s == nullptr) throw std::runtime_error("fixture lacks section " + std::to_string(id));
  return *s;
}

BinFile container(const Bytes& b, const char* magic) {
  auto f = parse_binfile(b, magic, "fixture");
  if (!f) throw std::runtime_error(f.error());
  return *f;
}

// Counts printed by `snarkjs r1cs info` on mul3.r1cs (tests/circom/regen.sh):
//   # of Wires: 8, # of Constraints: 4, # of Private Inputs: 2, # of Public Inputs: 1,
//   # of Labels: 8, # of Outputs: 2.
constexpr uint32_t kWires = 8, kConstraints = 4, kPrvIn = 2, kPubIn = 1, kLabels = 8, kPubOut = 2;

Fr lc_eval(const std::vector<std::pair<uint32_t, Fr>>& lc, const std::vector<Fr>& w) {
  Fr s = Fr::zero();
  for (const auto& [wire, coef] : lc) s += coef * w.at(wire);
  return s;
}

::testing::AssertionResult rejected(const Result<CircomR1cs>& r, const std::string& needle) {
  if (r.ok()) return ::testing::AssertionFailure() << "accepted, expected an error containing \"" << needle << "\"";
  if (r.error().find(needle) == std::string::npos)
    return ::testing::AssertionFailure() << "error \"" << r.error() << "\" lacks \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}
::testing::AssertionResult rejected(const Result<std::vector<Fr>>& r, const std::string& needle) {
  if (r.ok()) return ::testing::AssertionFailure() << "accepted, expected an error containing \"" << needle << "\"";
  if (r.error().find(needle) == std::string::npos)
    return ::testing::AssertionFailure() << "error \"" << r.error() << "\" lacks \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

// A minimal .r1cs writer for shapes circom does not emit: sections in another order, an unknown
// section, empty linear combinations.
struct R1csWriter {
  uint32_t n_wires = 4;
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> lcs;  // 3 per constraint
  bool extra_section = false;

  static void u32(Bytes& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  static void u64(Bytes& b, uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  static void section(Bytes& out, uint32_t id, const Bytes& body) {
    u32(out, id);
    u64(out, body.size());
    out.insert(out.end(), body.begin(), body.end());
  }
  Bytes build() const {
    Bytes hdr;
    u32(hdr, 32);
    for (size_t i = 0; i < 32; ++i) hdr.push_back(static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8))));
    for (uint32_t v : {n_wires, 1u, 1u, 0u}) u32(hdr, v);
    u64(hdr, n_wires);
    u32(hdr, static_cast<uint32_t>(lcs.size() / 3));
    Bytes cons;
    for (const auto& lc : lcs) {
      u32(cons, static_cast<uint32_t>(lc.size()));
      for (const auto& [wire, v] : lc) {
        u32(cons, wire);
        u64(cons, v);
        for (int i = 0; i < 24; ++i) cons.push_back(0);
      }
    }
    Bytes map;
    for (uint32_t i = 0; i < n_wires; ++i) u64(map, i);
    Bytes out = {'r', '1', 'c', 's'};
    u32(out, 1);
    u32(out, extra_section ? 4u : 3u);
    section(out, 1, hdr);
    if (extra_section) section(out, 77, Bytes{1, 2, 3});
    section(out, 3, map);
    section(out, 2, cons);
    return out;
  }
};

TEST(CircomR1cs, FixtureHeaderMatchesSnarkjs) {
  auto r = load_r1cs(fixture("mul3.r1cs"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->n8, 32u);
  EXPECT_EQ(r->n_wires, kWires);
  EXPECT_EQ(r->n_constraints, kConstraints);
  EXPECT_EQ(r->n_prv_in, kPrvIn);
  EXPECT_EQ(r->n_pub_in, kPubIn);
  EXPECT_EQ(r->n_pub_out, kPubOut);
  EXPECT_EQ(r->n_labels, kLabels);
  EXPECT_EQ(r->n_public(), 3u);
  EXPECT_EQ(r->constraints.size(), kConstraints);
  EXPECT_EQ(r->wire_to_label.size(), kWires);
  for (const auto& c : r->constraints) {
    EXPECT_FALSE(c.a.empty());
    EXPECT_FALSE(c.b.empty());
    EXPECT_FALSE(c.c.empty());
  }
}

TEST(CircomR1cs, LoadFromSpanEqualsLoadFromFile) {
  const Bytes b = load_bytes("mul3.r1cs");
  auto a = parse_r1cs(b, "mem");
  auto f = load_r1cs(fixture("mul3.r1cs"));
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_EQ(a->constraints.size(), f->constraints.size());
  for (size_t i = 0; i < a->constraints.size(); ++i) {
    EXPECT_EQ(a->constraints[i].a, f->constraints[i].a);
    EXPECT_EQ(a->constraints[i].b, f->constraints[i].b);
    EXPECT_EQ(a->constraints[i].c, f->constraints[i].c);
  }
  EXPECT_EQ(a->wire_to_label, f->wire_to_label);
}

TEST(CircomWtns, WitnessSatisfiesEveryConstraint) {
  auto r = load_r1cs(fixture("mul3.r1cs"));
  auto w = load_wtns(fixture("mul3.wtns"));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(w.ok()) << w.error();
  ASSERT_EQ(w->size(), kWires);
  EXPECT_TRUE((*w)[0].is_one());
  // mul3.input.json: a = 3, b = 11, c = 5. Wire order: 1, y, w (outputs), b (public), a, c, then ab, z.
  const uint64_t expect[] = {1, 186, 9300, 11, 3, 5, 33, 50};
  for (size_t i = 0; i < kWires; ++i) EXPECT_EQ((*w)[i], Fr::from_u64(expect[i])) << "wire " << i;
  for (size_t i = 0; i < r->constraints.size(); ++i) {
    const auto& c = r->constraints[i];
    EXPECT_EQ(lc_eval(c.a, *w) * lc_eval(c.b, *w), lc_eval(c.c, *w)) << "constraint " << i;
  }
  auto checked = check_witness(*r, *w);
  ASSERT_TRUE(checked.ok()) << checked.error();
  EXPECT_EQ(*checked, kConstraints);

  auto bad = *w;
  bad[6] += Fr::one();
  EXPECT_FALSE(check_witness(*r, bad).ok());
  bad = *w;
  bad[0] = Fr::from_u64(2);
  EXPECT_FALSE(check_witness(*r, bad).ok());
  bad = *w;
  bad.pop_back();
  EXPECT_FALSE(check_witness(*r, bad).ok());
}

TEST(CircomR1cs, TruncationAtEveryOffsetIsRejected) {
  const Bytes b = load_bytes("mul3.r1cs");
  for (size_t n = 0; n < b.size(); ++n) {
    const Bytes t(b.begin(), b.begin() + static_cast<ptrdiff_t>(n));
    auto r = parse_r1cs(t, "cut.r1cs");
    ASSERT_FALSE(r.ok()) << "accepted a file truncated to " << n << " bytes";
    EXPECT_EQ(r.error().rfind("cut.r1cs: ", 0), 0u) << r.error();
  }
}

TEST(CircomWtns, TruncationAtEveryOffsetIsRejected) {
  const Bytes b = load_bytes("mul3.wtns");
  for (size_t n = 0; n < b.size(); ++n) {
    const Bytes t(b.begin(), b.begin() + static_cast<ptrdiff_t>(n));
    auto r = parse_wtns(t, "cut.wtns");
    ASSERT_FALSE(r.ok()) << "accepted a file truncated to " << n << " bytes";
    EXPECT_EQ(r.error().rfind("cut.wtns: ", 0), 0u) << r.error();
  }
}

TEST(CircomR1cs, FlippedBytesInHeaderAndSectionTableAreRejected) {
  const Bytes b = load_bytes("mul3.r1cs");
  const BinFile f = container(b, "r1cs");
  std::vector<size_t> offsets;
  for (size_t i = 0; i < 12; ++i) offsets.push_back(i);  // magic, version, section count
  for (const auto& s : f.sections)
    for (size_t i = 0; i < 12; ++i) offsets.push_back(s.offset - 12 + i);  // table entries
  // The header section body, except nLabels (any value is valid there): n8, prime, the counts.
  const size_t h = section(f, 1).offset;
  for (size_t i = 0; i < 4 + 32 + 4; ++i) offsets.push_back(h + i);       // n8, prime, nWires
  for (size_t i = 0; i < 4; ++i) offsets.push_back(h + 4 + 32 + 24 + i);  // nConstraints
  // nPubOut, nPubIn, nPrvIn: a flip of their lowest bit can give another consistent header
  // (e.g. 2 -> 3 outputs still fit in 8 wires), so only large changes must be caught there.
  std::vector<size_t> coarse;
  for (size_t i = 0; i < 12; ++i) coarse.push_back(h + 4 + 32 + 4 + i);
  for (size_t off : offsets) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      Bytes m = b;
      m[off] ^= mask;
      auto r = parse_r1cs(m, "flip.r1cs");
      EXPECT_FALSE(r.ok()) << "accepted a flip (mask " << int{mask} << ") at offset " << off;
    }
  }
  for (size_t off : coarse) {
    for (uint8_t mask : {uint8_t{0x80}, uint8_t{0xff}}) {
      Bytes m = b;
      m[off] ^= mask;
      EXPECT_FALSE(parse_r1cs(m, "flip.r1cs").ok()) << "accepted a flip (mask " << int{mask} << ") at " << off;
    }
  }
}

TEST(CircomWtns, FlippedBytesInHeaderAndSectionTableAreRejected) {
  const Bytes b = load_bytes("mul3.wtns");
  const BinFile f = container(b, "wtns");
  std::vector<size_t> offsets;
  for (size_t i = 0; i < 12; ++i) offsets.push_back(i);
  for (const auto& s : f.sections)
    for (size_t i = 0; i < 12; ++i) offsets.push_back(s.offset - 12 + i);
  for (size_t i = 0; i < section(f, 1).size; ++i) offsets.push_back(section(f, 1).offset + i);
  for (size_t off : offsets) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      Bytes m = b;
      m[off] ^= mask;
      EXPECT_FALSE(parse_wtns(m, "flip.wtns").ok()) << "accepted a flip (mask " << int{mask} << ") at " << off;
    }
  }
}

TEST(CircomR1cs, AnySingleByteChangeNeverCrashes) {
  // Flips in coefficients may well give another valid file; the point is no crash, no hang.
  for (const char* name : {"mul3.r1cs", "mul3.wtns"}) {
    const Bytes b = load_bytes(name);
    for (size_t off = 0; off < b.size(); ++off) {
      for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x10}, uint8_t{0x80}, uint8_t{0xff}}) {
        Bytes m = b;
        m[off] ^= mask;
        (void)parse_r1cs(m, "x");
        (void)parse_wtns(m, "x");
      }
    }
  }
}

TEST(CircomR1cs, RandomGarbageNeverCrashes) {
  std::mt19937_64 rng(12345);
  const Bytes base = load_bytes("mul3.r1cs");
  for (int iter = 0; iter < 3000; ++iter) {
    Bytes m = base;
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) m[rng() % m.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) m.resize(rng() % (m.size() + 64), static_cast<uint8_t>(rng()));
    (void)parse_r1cs(m, "x");
  }
}

TEST(CircomR1cs, WrongMagicAndVersion) {
  Bytes b = load_bytes("mul3.r1cs");
  EXPECT_TRUE(rejected(parse_r1cs(load_bytes("mul3.wtns"), "w"), "magic is \"wtns\", expected \"r1cs\""));
  Bytes m = b;
  m[0] = 'x';
  EXPECT_TRUE(rejected(parse_r1cs(m, "m"), "file header: magic"));
  m = b;
  put_u32(m, 4, 2);
  EXPECT_TRUE(rejected(parse_r1cs(m, "v"), "file header: version 2, only version 1"));
}

TEST(CircomR1cs, WrongPrimeOrFieldSize) {
  const Bytes b = load_bytes("mul3.r1cs");
  const size_t h = section(container(b, "r1cs"), 1).offset;
  // BN254's r, as circom's default --prime bn128 writes it.
  const uint8_t bn254_le[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
                                0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
  Bytes m = b;
  std::memcpy(m.data() + h + 4, bn254_le, 32);
  auto r = parse_r1cs(m, "bn.r1cs");
  EXPECT_TRUE(rejected(r,
                       "header section (1): unsupported prime "
                       "21888242871839275222246405745257275088548364400416034343698204186575808495617"));
  EXPECT_TRUE(rejected(r, "BN254"));
  m = b;
  put_u32(m, h, 48);
  EXPECT_TRUE(rejected(parse_r1cs(m, "n8.r1cs"), "(n8 = 48)"));
  m = b;
  put_u32(m, h, 0xffffffffu);
  EXPECT_TRUE(rejected(parse_r1cs(m, "n8.r1cs"), "field size n8 = 4294967295 exceeds"));

  Bytes w = load_bytes("mul3.wtns");
  const size_t wh = section(container(w, "wtns"), 1).offset;
  std::memcpy(w.data() + wh + 4, bn254_le, 32);
  EXPECT_TRUE(rejected(parse_wtns(w, "bn.wtns"), "bn.wtns: header section (1): unsupported prime"));
}

TEST(CircomR1cs, OversizedSectionLengths) {
  const Bytes b = load_bytes("mul3.r1cs");
  const BinFile f = container(b, "r1cs");
  for (const auto& s : f.sections) {
    // One byte more misaligns the table after it (or runs past the end for the last section).
    Bytes m = b;
    put_u64(m, s.offset - 8, s.size + 1);
    EXPECT_TRUE(rejected(parse_r1cs(m, "big.r1cs"), "big.r1cs: ")) << "section " << s.id;
    for (uint64_t len : {uint64_t{1} << 32, uint64_t{1} << 63, ~uint64_t{0}, ~uint64_t{0} - 11}) {
      m = b;
      put_u64(m, s.offset - 8, len);
      EXPECT_TRUE(rejected(parse_r1cs(m, "big.r1cs"), "exceeds the")) << "section " << s.id << " len " << len;
    }
  }
  // A section table that announces 2^32-1 sections in a 12-byte file.
  Bytes tiny(b.begin(), b.begin() + 12);
  put_u32(tiny, 8, 0xffffffffu);
  EXPECT_TRUE(rejected(parse_r1cs(tiny, "t"), "section table: entry 0 of 4294967295"));
}

TEST(CircomR1cs, HugeSectionTableIsLinear) {
  // 500,000 empty sections with distinct ids: rejected (no header) quickly, not in quadratic time.
  Bytes m = {'r', '1', 'c', 's', 1, 0, 0, 0};
  const uint32_t n = 500000;
  R1csWriter::u32(m, n);
  for (uint32_t i = 0; i < n; ++i) {
    R1csWriter::u32(m, 100 + i);
    R1csWriter::u64(m, 0);
  }
  EXPECT_TRUE(rejected(parse_r1cs(m, "many"), "many: missing header section (1)"));
}

TEST(CircomR1cs, DuplicateMissingAndTrailing) {
  const Bytes b = load_bytes("mul3.r1cs");
  const BinFile f = container(b, "r1cs");
  const BinSection& wm = section(f, 3);
  // Duplicate: append a second copy of section 3.
  Bytes m = b;
  m.insert(m.end(), b.begin() + static_cast<ptrdiff_t>(wm.offset - 12),
           b.begin() + static_cast<ptrdiff_t>(wm.offset + wm.size));
  put_u32(m, 8, static_cast<uint32_t>(f.sections.size() + 1));
  EXPECT_TRUE(rejected(parse_r1cs(m, "d"), "duplicate section id 3"));
  // Missing: renumber section 3.
  m = b;
  put_u32(m, wm.offset - 12, 9);
  EXPECT_TRUE(rejected(parse_r1cs(m, "d"), "missing wire-to-label section (3)"));
  m = b;
  put_u32(m, section(f, 1).offset - 12, 9);
  EXPECT_TRUE(rejected(parse_r1cs(m, "d"), "missing header section (1)"));
  // Custom gates (PLONK) are refused.
  m = b;
  put_u32(m, wm.offset - 12, 4);
  EXPECT_TRUE(rejected(parse_r1cs(m, "d"), "custom gates"));
  // Trailing garbage after the last section.
  m = b;
  m.push_back(0);
  EXPECT_TRUE(rejected(parse_r1cs(m, "d"), "1 trailing bytes after the last"));
}

TEST(CircomR1cs, CountsMustMatchSizes) {
  const Bytes b = load_bytes("mul3.r1cs");
  const BinFile f = container(b, "r1cs");
  const size_t h = section(f, 1).offset;
  const size_t n_constraints_at = h + 4 + 32 + 24;
  Bytes m = b;
  put_u32(m, n_constraints_at, kConstraints + 1);
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "constraints section (2): constraint 4 of 5, A: truncated"));
  m = b;
  put_u32(m, n_constraints_at, kConstraints - 1);
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "constraints section (2): "));
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "trailing bytes after the 3 constraints"));
  m = b;
  put_u32(m, h + 4 + 32, kWires + 1);  // nWires: the wire map no longer matches
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "wire-to-label section (3): 64 bytes, expected nWires * 8 = 72"));
  m = b;
  put_u32(m, h + 4 + 32 + 12, kWires);  // nPrvIn too large
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "exceeds nWires"));
  // A term count far beyond the section.
  m = b;
  put_u32(m, section(f, 2).offset, 0xffffffffu);
  EXPECT_TRUE(rejected(parse_r1cs(m, "c"), "constraint 0 of 4, A: 4294967295 terms need"));
  // Wtns: value count not matching the values section.
  Bytes w = load_bytes("mul3.wtns");
  const size_t wh = section(container(w, "wtns"), 1).offset;
  put_u32(w, wh + 4 + 32, kWires + 1);
  EXPECT_TRUE(rejected(parse_wtns(w, "c.wtns"), "values section (2): 256 bytes, expected nWitness * n8"));
}

TEST(CircomR1cs, WireIdOutOfRangeAndNonCanonicalCoefficient) {
  const Bytes b = load_bytes("mul3.r1cs");
  const size_t c0 = section(container(b, "r1cs"), 2).offset;  // constraint 0, A: u32 nTerms, then terms
  ASSERT_TRUE(parse_r1cs(b, "ok").ok());
  Bytes m = b;
  put_u32(m, c0 + 4, kWires);
  EXPECT_TRUE(rejected(parse_r1cs(m, "id.r1cs"),
                       "id.r1cs: constraints section (2): constraint 0 of 4, A term 0: "
                       "wire id 8 out of range (nWires = 8)"));
  // The coefficient = r itself, then all ones.
  m = b;
  for (size_t i = 0; i < 32; ++i) m[c0 + 8 + i] = static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8)));
  EXPECT_TRUE(rejected(parse_r1cs(m, "nc.r1cs"), "A term 0 (wire "));
  EXPECT_TRUE(rejected(parse_r1cs(m, "nc.r1cs"), "coefficient is not a canonical field element"));
  m = b;
  for (size_t i = 0; i < 32; ++i) m[c0 + 8 + i] = 0xff;
  EXPECT_TRUE(rejected(parse_r1cs(m, "nc.r1cs"), "not a canonical"));
  // r - 1 is fine.
  m = b;
  for (size_t i = 0; i < 32; ++i) m[c0 + 8 + i] = static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8)));
  m[c0 + 8] -= 1;
  EXPECT_TRUE(parse_r1cs(m, "ok").ok());
}

TEST(CircomWtns, WrongVersionMagicAndNonCanonicalValue) {
  const Bytes b = load_bytes("mul3.wtns");
  Bytes m = b;
  put_u32(m, 4, 1);
  EXPECT_TRUE(rejected(parse_wtns(m, "v.wtns"), "v.wtns: file header: version 1, only version 2"));
  EXPECT_TRUE(rejected(parse_wtns(load_bytes("mul3.r1cs"), "r"), "magic is \"r1cs\", expected \"wtns\""));
  const size_t v = section(container(b, "wtns"), 2).offset;
  m = b;
  for (size_t i = 0; i < 32; ++i) m[v + 32 * 3 + i] = static_cast<uint8_t>(Fr::MOD[i / 8] >> (8 * (i % 8)));
  EXPECT_TRUE(rejected(parse_wtns(m, "nc.wtns"), "values section (2): value 3 is not a canonical"));
  m = b;
  m.push_back(7);
  EXPECT_TRUE(rejected(parse_wtns(m, "t.wtns"), "trailing bytes"));
}

TEST(CircomR1cs, SyntheticShapes) {
  R1csWriter w;
  w.extra_section = true;
  // w1 * w2 = w3 (w3 = 6), then an empty A (0 * anything = 0 with empty C), then 2*w1 * 1 = w3 - w2 - w2.
  w.lcs = {{{1, 1}}, {{2, 1}}, {{3, 1}}, {}, {{0, 5}, {2, 9}}, {}, {{1, 2}}, {{0, 1}}, {{3, 1}, {2, 0}}};
  const Bytes b = w.build();
  auto r = parse_r1cs(b, "syn.r1cs");
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->constraints.size(), 3u);
  EXPECT_TRUE(r->constraints[1].a.empty());
  EXPECT_EQ(r->constraints[1].b.size(), 2u);
  EXPECT_EQ(r->constraints[1].b[1], std::make_pair(uint32_t{2}, Fr::from_u64(9)));
  // w = (1, 2, 3, 6): constraint 2 says 4 = 6 + 0*3, which fails; the first two hold.
  std::vector<Fr> wit = {Fr::one(), Fr::from_u64(2), Fr::from_u64(3), Fr::from_u64(6)};
  auto chk = check_witness(*r, wit);
  ASSERT_FALSE(chk.ok());
  EXPECT_NE(chk.error().find("constraint 2 is not satisfied"), std::string::npos) << chk.error();
  wit[1] = Fr::from_u64(3);  // 3 * 3 = 9 != 6 now fails first at constraint 0
  chk = check_witness(*r, wit);
  ASSERT_FALSE(chk.ok());
  EXPECT_NE(chk.error().find("constraint 0 is not satisfied"), std::string::npos) << chk.error();

  // Many constraints: parse time stays linear and the vectors are exact.
  R1csWriter big;
  big.n_wires = 1000;
  for (uint32_t i = 0; i < 20000; ++i) {
    big.lcs.push_back({{i % 1000, i}, {(i + 1) % 1000, 1}});
    big.lcs.push_back({{0, 1}});
    big.lcs.push_back({});
  }
  auto rb = parse_r1cs(big.build(), "big.r1cs");
  ASSERT_TRUE(rb.ok()) << rb.error();
  ASSERT_EQ(rb->constraints.size(), 20000u);
  EXPECT_EQ(rb->constraints[12345].a[0], std::make_pair(uint32_t{345}, Fr::from_u64(12345)));
}

TEST(CircomFiles, MissingFileNamesThePath) {
  auto r = load_r1cs("/nonexistent/dir/x.r1cs");
  EXPECT_TRUE(rejected(r, "/nonexistent/dir/x.r1cs: cannot open"));
  auto w = load_wtns("/nonexistent/dir/x.wtns");
  EXPECT_TRUE(rejected(w, "/nonexistent/dir/x.wtns: cannot open"));
  EXPECT_TRUE(rejected(load_r1cs("/"), "not a regular file"));
}

TEST(CircomFiles, DecimalPrinting) {
  const uint8_t zero[1] = {0};
  EXPECT_EQ(le_bytes_to_decimal(zero), "0");
  const uint8_t v[3] = {0x40, 0xe2, 0x01};  // 123456
  EXPECT_EQ(le_bytes_to_decimal(v), "123456");
  EXPECT_EQ(le_bytes_to_decimal({}), "0");
}

}  // namespace
}  // namespace cuzk::circom
