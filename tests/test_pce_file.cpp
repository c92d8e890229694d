// The .pce file format (docs/pce-format.md): round trips in both load modes, conformance with the
// documented layout (checked with an independent implementation of the checksums), rejection of
// every kind of damaged or foreign file with a message naming the check, and crash safety of saves.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pce/build.hpp"
#include "pce/pce_file.hpp"
#include "pce/synthetic.hpp"
#include "util/atomic_file.hpp"
#include "util/checksum.hpp"  // also brings XXH3_64bits, used below as the independent reference
#include "util/mapped_file.hpp"
#include "util/rng.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace cuzk;
using namespace cuzk::pce;
using Bytes = std::vector<std::byte>;

// --- circuits ------------------------------------------------------------------------------------

struct Spec {
  std::string name;
  size_t inputs = 3, aux = 200, rows = 300, max_row = 6, extra_coeffs = 10;
  std::optional<CoeffEncoding> encoding;
  bool row_ptr64 = false;
  bool empty_b = false;
};

// Random matrices with CompactR1cs's invariants: strictly increasing columns, distinct non-zero
// coefficients with +1 and -1 first.
r1cs::CompactR1cs random_r1cs(const Spec& s, uint64_t seed) {
  Xoshiro256 rng(seed);
  r1cs::CompactR1cs r;
  r.num_inputs = s.inputs;
  r.num_aux = s.aux;
  r.num_constraints = s.rows;
  r.coeffs = {Fr::one(), -Fr::one()};
  for (size_t i = 0; i < s.extra_coeffs; ++i) r.coeffs.push_back(Fr::from_u64(i + 2));
  auto fill = [&](r1cs::CompactMatrix& m, bool empty) {
    for (size_t row = 0; row < s.rows; ++row) {
      std::set<uint32_t> cols;
      const size_t k = empty ? 0 : rng() % (s.max_row + 1);
      while (cols.size() < k) cols.insert(static_cast<uint32_t>(rng() % r.num_columns()));
      for (uint32_t c : cols) {
        m.col.push_back(c);
        m.coeff.push_back(static_cast<uint32_t>(rng() % 3 == 0 ? rng() % r.coeffs.size() : rng() % 2));
      }
      m.row_ptr.push_back(m.col.size());
    }
  };
  fill(r.a, false);
  fill(r.b, s.empty_b);
  fill(r.c, false);
  return r;
}

Pce make_pce(const Spec& s, uint64_t seed = 1) {
  BuildOptions o;
  o.circuit_id = "test-" + s.name;
  o.encoding = s.encoding;
  o.force_row_ptr64 = s.row_ptr64;
  return build_pce(random_r1cs(s, seed), o);
}

// (GCC 12 warns about designated initializers that leave members out, so specs are built by hand.)
Spec spec(std::string name, const std::function<void(Spec&)>& edit = {}) {
  Spec s;
  s.name = std::move(name);
  if (edit) edit(s);
  return s;
}

Spec dict8_spec() {
  return spec("dict8");
}

std::vector<Spec> specs() {
  return {
      dict8_spec(),
      spec("dict16", [](Spec& s) { s.extra_coeffs = 400; }),
      spec("dict16_forced", [](Spec& s) { s.encoding = CoeffEncoding::Dict16; }),
      // Full coefficients: 32 bytes each, so A.coeff spans two checksum chunks.
      spec("full",
           [](Spec& s) {
             s.aux = 3000;
             s.rows = 20000;
             s.max_row = 4;
             s.encoding = CoeffEncoding::Full;
           }),
      spec("rowptr64", [](Spec& s) { s.row_ptr64 = true; }),
      spec("empty_b", [](Spec& s) { s.empty_b = true; }),
      spec("tiny",
           [](Spec& s) {
             s.inputs = s.aux = s.rows = s.max_row = 1;
             s.extra_coeffs = 0;
           }),
  };
}

// --- files ---------------------------------------------------------------------------------------

Bytes read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Bytes b(c.size());
  std::memcpy(b.data(), c.data(), c.size());
  return b;
}

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

template <class T>
T get(const Bytes& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}
template <class T>
void put(Bytes& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}

// The documented layout, restated here (docs/pce-format.md) so that the tests check the document.
constexpr size_t kVersionOff = 8, kFileBytesOff = 16, kHeaderSumOff = 24, kFieldNameOff = 32, kModulusOff = 48;
constexpr size_t kStructHashOff = 288, kTableOff = 320, kEntry = 32;
constexpr size_t kTrlFileBytes = 16, kTrlHeaderSum = 24, kTrlStructHash = 32, kTrlSum = 56;
size_t entry(size_t i) {
  return kTableOff + i * kEntry;
}
uint64_t sec_offset(const Bytes& b, size_t i) {
  return get<uint64_t>(b, entry(i) + 8);
}
uint64_t sec_length(const Bytes& b, size_t i) {
  return get<uint64_t>(b, entry(i) + 16);
}

// Independent tree hash: XXH3-64 of each 1 MiB chunk, then XXH3-64 of the digest array.
uint64_t ref_section_checksum(const std::byte* p, uint64_t n) {
  std::vector<uint64_t> d;
  for (uint64_t pos = 0; pos < n; pos += 1 << 20)
    d.push_back(XXH3_64bits(p + pos, std::min<uint64_t>(1 << 20, n - pos)));
  return XXH3_64bits(d.data(), d.size() * 8);
}

uint64_t ref_structural_hash(const Bytes& b) {
  Bytes s(168);
  for (size_t i = 0; i < 7; ++i) put<uint64_t>(s, 8 * i, get<uint64_t>(b, 224 + 8 * i));  // inputs..dict_size
  std::memcpy(s.data() + 56, b.data() + 280, 4);                                          // encoding, widths
  for (size_t i = 0; i < 13; ++i) put<uint64_t>(s, 64 + 8 * i, get<uint64_t>(b, entry(i) + 24));
  return XXH3_64bits(s.data(), s.size());
}

// After a patch of the header: recompute the header checksum and the commit marker.
void reseal(Bytes& b) {
  put<uint64_t>(b, kHeaderSumOff, 0);
  const uint64_t h = XXH3_64bits(b.data(), 4096);
  put<uint64_t>(b, kHeaderSumOff, h);
  const size_t t = b.size() - 64;
  put<uint64_t>(b, t + kTrlHeaderSum, h);
  put<uint64_t>(b, t + kTrlStructHash, get<uint64_t>(b, kStructHashOff));
  put<uint64_t>(b, t + kTrlSum, XXH3_64bits(b.data() + t, 56));
}

// After a patch of section contents: recompute every checksum so that only the structure is wrong.
void reseal_all(Bytes& b) {
  for (size_t i = 0; i < 13; ++i)
    put<uint64_t>(b, entry(i) + 24, ref_section_checksum(b.data() + sec_offset(b, i), sec_length(b, i)));
  put<uint64_t>(b, kStructHashOff, ref_structural_hash(b));
  reseal(b);
}

void expect_same(const Pce& a, const Pce& b) {
  EXPECT_EQ(a.info().circuit_id, b.info().circuit_id);
  EXPECT_EQ(a.num_inputs(), b.num_inputs());
  EXPECT_EQ(a.num_aux(), b.num_aux());
  EXPECT_EQ(a.num_constraints(), b.num_constraints());
  EXPECT_EQ(a.info().nnz, b.info().nnz);
  EXPECT_EQ(a.info().dict_size, b.info().dict_size);
  EXPECT_EQ(a.encoding(), b.encoding());
  EXPECT_EQ(a.info().row_ptr_width, b.info().row_ptr_width);
  for (size_t i = 0; i < kNumSections; ++i) {
    const auto x = a.sections()[i], y = b.sections()[i];
    ASSERT_EQ(x.size(), y.size()) << section_name(static_cast<Section>(i + 1));
    EXPECT_TRUE(x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0)
        << section_name(static_cast<Section>(i + 1));
  }
}

LoadOptions opts(LoadOptions::Mode mode, const std::function<void(LoadOptions&)>& edit = {}) {
  LoadOptions o;
  o.mode = mode;
  if (edit) edit(o);
  return o;
}

struct Mode {
  const char* name;
  LoadOptions opt;
};

std::vector<Mode> modes() {
  using M = LoadOptions::Mode;
  return {{"mmap", opts(M::Mmap)},
          {"mmap+populate", opts(M::Mmap, [](LoadOptions& o) { o.populate = true; })},
          {"mmap+huge", opts(M::Mmap, [](LoadOptions& o) { o.huge_pages = true; })},
          {"read", opts(M::Read)},
          {"read+huge", opts(M::Read, [](LoadOptions& o) { o.huge_pages = true; })}};
}

class PceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("cuzk-test-pce-file-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A valid dict8 file (all 13 sections non-empty) and its bytes.
  std::string saved(Bytes* bytes = nullptr) {
    const std::string p = path("good.pce");
    EXPECT_TRUE(save_pce(make_pce(dict8_spec()), p).ok());
    if (bytes) *bytes = read_file(p);
    return p;
  }

  // Writes `b` to a fresh file and expects both the header read (when `header_too`) and both load
  // modes to fail with a message containing `what` and the file name.
  void expect_rejected(const Bytes& b, const std::string& what, bool header_too = true) {
    const std::string p = path("bad.pce");
    write_file(p, b);
    if (header_too) {
      auto h = read_pce_header(p);
      ASSERT_FALSE(h.ok()) << what;
      EXPECT_NE(h.error().find(what), std::string::npos) << h.error();
      EXPECT_EQ(h.error().rfind(p + ": ", 0), 0u) << h.error();
    }
    for (auto mode : {LoadOptions::Mode::Mmap, LoadOptions::Mode::Read}) {
      auto r = load_pce(p, opts(mode));
      ASSERT_FALSE(r.ok()) << what;
      EXPECT_NE(r.error().find(what), std::string::npos) << r.error();
      EXPECT_EQ(r.error().rfind(p + ": ", 0), 0u) << r.error();
    }
  }

  fs::path dir_;
};

// --- round trips ---------------------------------------------------------------------------------

TEST_F(PceFile, RoundTripEverySpecEveryMode) {
  for (const Spec& s : specs()) {
    SCOPED_TRACE(s.name);
    const Pce pce = make_pce(s, 7);
    ASSERT_EQ(pce.validate_structure(), "");
    const std::string p = path(s.name + ".pce");
    auto saved = save_pce(pce, p);
    ASSERT_TRUE(saved.ok()) << saved.error();
    EXPECT_EQ(saved->structural_hash, structural_hash(pce));
    EXPECT_EQ(saved->file_bytes, fs::file_size(p));

    auto h = read_pce_header(p);
    ASSERT_TRUE(h.ok()) << h.error();
    EXPECT_EQ(h->structural_hash, saved->structural_hash);
    EXPECT_EQ(h->header_checksum, saved->header_checksum);
    EXPECT_EQ(h->info.circuit_id, "test-" + s.name);
    for (size_t i = 0; i < kNumSections; ++i) {
      EXPECT_EQ(h->sections[i].offset, saved->sections[i].offset);
      EXPECT_EQ(h->sections[i].length, saved->sections[i].length);
      EXPECT_EQ(h->sections[i].checksum, saved->sections[i].checksum);
      EXPECT_EQ(h->sections[i].checksum, section_checksum(pce.sections()[i]));
    }

    for (const Mode& m : modes()) {
      SCOPED_TRACE(m.name);
      auto r = load_pce(p, m.opt);
      ASSERT_TRUE(r.ok()) << r.error();
      EXPECT_TRUE(r->checksums_verified);
      EXPECT_TRUE(r->structure_validated);
      expect_same(pce, *r);
    }
    // Saving what was loaded gives the same bytes (the writer is deterministic).
    auto loaded = load_pce(p);
    ASSERT_TRUE(loaded.ok());
    ASSERT_TRUE(save_pce(*loaded, path("again.pce")).ok());
    EXPECT_EQ(read_file(p), read_file(path("again.pce")));
  }
}

TEST_F(PceFile, MultiChunkSyntheticRoundTrip) {
  SyntheticShape shape = SyntheticShape::porep_32g(0.002);  // ~10 MB, A.col spans several chunks
  const Pce pce = synthetic_pce(shape, "synthetic-small");
  const std::string p = path("syn.pce");
  uint64_t last_done = 0, last_total = 0, calls = 0;
  auto saved = save_pce(pce, p, [&](uint64_t done, uint64_t total) {
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
    ++calls;
  });
  ASSERT_TRUE(saved.ok()) << saved.error();
  EXPECT_GT(calls, 1u);
  EXPECT_EQ(last_done, pce.section_bytes_total());
  EXPECT_EQ(last_total, pce.section_bytes_total());
  EXPECT_GT(saved->sections[section_index(Section::ACol)].length, 2u << 20);
  for (const Mode& m : modes()) {
    SCOPED_TRACE(m.name);
    auto r = load_pce(p, m.opt);
    ASSERT_TRUE(r.ok()) << r.error();
    expect_same(pce, *r);
  }
  // Corrupting the second chunk of A.col is caught too.
  Bytes b = read_file(p);
  b[sec_offset(b, section_index(Section::ACol)) + (1 << 20) + 12345] ^= std::byte{0x01};
  expect_rejected(b, "section A.col checksum mismatch", false);
}

// The file matches the byte layout of docs/pce-format.md, checked without the library's parser.
TEST_F(PceFile, LayoutMatchesTheDocument) {
  Bytes b;
  saved(&b);
  EXPECT_EQ(std::memcmp(b.data(), "CUZKPCE\0", 8), 0);
  EXPECT_EQ(get<uint32_t>(b, kVersionOff), 1u);
  EXPECT_EQ(get<uint32_t>(b, 12), 4096u);
  EXPECT_EQ(get<uint64_t>(b, kFileBytesOff), b.size());
  EXPECT_STREQ(reinterpret_cast<const char*>(b.data() + kFieldNameOff), "bls12-381/fr");
  // r = 0x73eda753...00000001, little-endian.
  EXPECT_EQ(get<uint64_t>(b, kModulusOff), 0xffffffff00000001ull);
  EXPECT_EQ(get<uint64_t>(b, kModulusOff + 24), 0x73eda753299d7d48ull);
  EXPECT_EQ(get<uint32_t>(b, 80), 1u);        // Montgomery representation
  EXPECT_EQ(get<uint32_t>(b, 84), 1u << 20);  // checksum chunk
  EXPECT_EQ(get<uint32_t>(b, 88), 13u);
  EXPECT_STREQ(reinterpret_cast<const char*>(b.data() + 96), "test-dict8");
  EXPECT_EQ(get<uint8_t>(b, 280), static_cast<uint8_t>(CoeffEncoding::Dict8));
  uint64_t end = 4096;
  for (size_t i = 0; i < 13; ++i) {
    EXPECT_EQ(get<uint32_t>(b, entry(i)), i + 1);
    EXPECT_EQ(sec_offset(b, i) % 4096, 0u);
    EXPECT_EQ(sec_offset(b, i), (end + 4095) / 4096 * 4096);  // the writer's canonical layout
    EXPECT_GT(sec_length(b, i), 0u);
    end = sec_offset(b, i) + sec_length(b, i);
    EXPECT_EQ(get<uint64_t>(b, entry(i) + 24), ref_section_checksum(b.data() + sec_offset(b, i), sec_length(b, i)));
  }
  EXPECT_EQ(b.size(), (end + 4095) / 4096 * 4096 + 64);
  EXPECT_EQ(get<uint64_t>(b, kStructHashOff), ref_structural_hash(b));
  Bytes h(b.begin(), b.begin() + 4096);
  put<uint64_t>(h, kHeaderSumOff, 0);
  EXPECT_EQ(get<uint64_t>(b, kHeaderSumOff), XXH3_64bits(h.data(), 4096));
  const size_t t = b.size() - 64;
  EXPECT_EQ(std::memcmp(b.data() + t, "CUZKPCE-END\0\0\0\0\0", 16), 0);
  EXPECT_EQ(get<uint64_t>(b, t + kTrlFileBytes), b.size());
  EXPECT_EQ(get<uint64_t>(b, t + kTrlHeaderSum), get<uint64_t>(b, kHeaderSumOff));
  EXPECT_EQ(get<uint64_t>(b, t + kTrlStructHash), get<uint64_t>(b, kStructHashOff));
  EXPECT_EQ(get<uint32_t>(b, t + 40), 1u);
  EXPECT_EQ(get<uint64_t>(b, t + kTrlSum), XXH3_64bits(b.data() + t, 56));
  // The dispatched hash equals xxHash's reference, whatever kernel the CPU gets.
  for (size_t n : {size_t{0}, size_t{100}, size_t{241}, size_t{4096}, b.size()})
    EXPECT_EQ(checksum::xxh3_64(b.data(), n), XXH3_64bits(b.data(), n));
}

TEST_F(PceFile, StructuralHashIgnoresTheCircuitIdButNotTheMatrices) {
  Pce a = make_pce(dict8_spec(), 1);
  Spec other = dict8_spec();
  other.name = "renamed";
  EXPECT_EQ(structural_hash(a), structural_hash(make_pce(other, 1)));
  EXPECT_NE(structural_hash(a), structural_hash(make_pce(dict8_spec(), 2)));
  Spec wide = dict8_spec();
  wide.encoding = CoeffEncoding::Dict16;
  EXPECT_NE(structural_hash(a), structural_hash(make_pce(wide, 1)));
}

// --- damaged files -------------------------------------------------------------------------------

TEST_F(PceFile, TruncatedFilesAreRejected) {
  Bytes b;
  saved(&b);
  const uint64_t n = b.size();
  for (uint64_t len : {uint64_t{0}, uint64_t{5}, uint64_t{100}, uint64_t{4095}}) {
    SCOPED_TRACE(len);
    expect_rejected(Bytes(b.begin(), b.begin() + len),
                    "truncated: " + std::to_string(len) + " bytes, smaller than the 4096-byte header");
  }
  const uint64_t mid_last = sec_offset(b, 12) + sec_length(b, 12) / 2;
  for (uint64_t len : {uint64_t{4096}, sec_offset(b, 2) + 3, mid_last, n - 64, n - 1}) {
    SCOPED_TRACE(len);
    expect_rejected(Bytes(b.begin(), b.begin() + len),
                    "truncated: " + std::to_string(len) + " bytes, header says " + std::to_string(n));
  }
  Bytes longer = b;
  longer.push_back(std::byte{0});
  expect_rejected(longer, "size mismatch");
}

TEST_F(PceFile, CorruptSectionsAreRejectedByName) {
  Bytes b;
  saved(&b);
  for (size_t i = 0; i < 13; ++i) {
    ASSERT_GT(sec_length(b, i), 0u);
    for (uint64_t at : {uint64_t{0}, sec_length(b, i) / 2, sec_length(b, i) - 1}) {
      Bytes c = b;
      c[sec_offset(b, i) + at] ^= std::byte{0x40};
      const std::string name = section_name(static_cast<Section>(i + 1));
      SCOPED_TRACE(name + " +" + std::to_string(at));
      expect_rejected(c, "section " + name + " checksum mismatch (stored 0x", false);
      // The header is intact, so read_pce_header() (which reads no section) accepts the file.
      EXPECT_TRUE(read_pce_header(path("bad.pce")).ok());
    }
  }
}

TEST_F(PceFile, CorruptHeaderIsRejected) {
  Bytes b;
  saved(&b);
  auto flipped = [&](size_t off) {
    Bytes c = b;
    c[off] ^= std::byte{0x10};
    return c;
  };
  expect_rejected(flipped(0), "bad magic (not a .pce file)");
  expect_rejected(flipped(kVersionOff), "unsupported .pce format version 17");
  for (size_t off : {size_t{12}, size_t{16}, size_t{24}, size_t{40}, size_t{100}, size_t{230}, size_t{281}, size_t{290},
                     size_t{330}, size_t{700}, size_t{2000}, size_t{4095}}) {
    SCOPED_TRACE(off);
    expect_rejected(flipped(off), "header checksum mismatch");
  }
}

TEST_F(PceFile, CorruptCommitMarkerIsRejected) {
  Bytes b;
  saved(&b);
  const size_t t = b.size() - 64;
  for (size_t off : {size_t{0}, size_t{10}}) {
    Bytes c = b;
    c[t + off] ^= std::byte{0x01};
    expect_rejected(c, "commit marker missing");
  }
  for (size_t off : {size_t{16}, size_t{30}, size_t{44}, size_t{63}}) {
    Bytes c = b;
    c[t + off] ^= std::byte{0x01};
    expect_rejected(c, "commit marker checksum mismatch");
  }
  // A marker that is intact in itself but belongs to another header (as a mixed write would leave).
  Bytes c = b;
  put<uint64_t>(c, t + kTrlHeaderSum, 12345);
  put<uint64_t>(c, t + kTrlSum, XXH3_64bits(c.data() + t, 56));
  expect_rejected(c, "commit marker does not match the header");
  // No marker at all: zeros where it should be.
  Bytes z = b;
  std::fill(z.begin() + t, z.end(), std::byte{0});
  expect_rejected(z, "commit marker missing");
}

TEST_F(PceFile, ForeignFilesAreRejected) {
  Bytes b;
  const std::string good = saved(&b);
  Bytes junk(8000, std::byte{'x'});
  expect_rejected(junk, "bad magic (not a .pce file)");

  Bytes newer = b;
  put<uint32_t>(newer, kVersionOff, 2);
  reseal(newer);
  expect_rejected(newer,
                  "unsupported .pce format version 2 (this build reads version 1); re-extract the PCE or upgrade cuzk");

  // A file for BN254's scalar field.
  Bytes bn = b;
  std::memset(bn.data() + kFieldNameOff, 0, 16);
  std::memcpy(bn.data() + kFieldNameOff, "bn254/fr", 8);
  const uint64_t bn_r[4] = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull};
  std::memcpy(bn.data() + kModulusOff, bn_r, 32);
  reseal(bn);
  expect_rejected(bn,
                  "field mismatch: file is for bn254/fr (modulus 0x30644e72e131a029b85045b68181585d2833e84879b97091"
                  "43e1f593f0000001), this build proves bls12-381/fr");
  // Same name, other modulus.
  Bytes mod = b;
  mod[kModulusOff] ^= std::byte{2};
  reseal(mod);
  expect_rejected(mod, "field mismatch");

  // Another circuit.
  auto h = read_pce_header(good, "porep-32g");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().find("circuit mismatch: file holds 'test-dict8', expected 'porep-32g'"), std::string::npos)
      << h.error();
  auto r = load_pce(good, opts(LoadOptions::Mode::Mmap, [](LoadOptions& o) { o.expected_circuit_id = "porep-32g"; }));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("circuit mismatch"), std::string::npos) << r.error();
  EXPECT_TRUE(
      load_pce(good, opts(LoadOptions::Mode::Read, [](LoadOptions& o) { o.expected_circuit_id = "test-dict8"; })).ok());
}

TEST_F(PceFile, BadSectionTableIsRejected) {
  Bytes b;
  saved(&b);
  const size_t acol = section_index(Section::ACol);
  auto patched = [&](size_t i, size_t field, uint64_t v) {
    Bytes c = b;
    put<uint64_t>(c, entry(i) + field, v);
    reseal(c);
    return c;
  };
  const uint64_t off = sec_offset(b, acol), len = sec_length(b, acol);
  expect_rejected(patched(acol, 8, off + 8),
                  "section table: A.col: offset " + std::to_string(off + 8) + " is not a multiple of 4096");
  expect_rejected(patched(acol, 8, (b.size() / 4096 + 10) * 4096), "section table: A.col: out of bounds");
  expect_rejected(patched(acol, 8, 0), "section table: A.col: out of bounds");
  expect_rejected(patched(acol, 16, UINT64_MAX), "section table: A.col: out of bounds");  // no overflow
  expect_rejected(patched(acol, 8, UINT64_MAX - 4095), "section table: A.col: out of bounds");
  expect_rejected(patched(12, 16, b.size()), "section table: B.aux_density: out of bounds");  // runs into the marker
  expect_rejected(patched(acol, 8, sec_offset(b, acol - 1)), "section table: A.col: overlaps A.row_ptr");
  expect_rejected(patched(acol, 16, len - 4), "section table: A.col: length " + std::to_string(len - 4) +
                                                  ", expected " + std::to_string(len) + " from the header counts");
  Bytes kind = b;
  put<uint32_t>(kind, entry(acol), 7);
  reseal(kind);
  expect_rejected(kind, "section table: A.col: entry 2 has kind 7, expected 3");
  // Counts that disagree with the table.
  Bytes counts = b;
  put<uint64_t>(counts, 248, get<uint64_t>(b, 248) + 1);  // nnz A
  reseal(counts);
  expect_rejected(counts, "section table: A.col: length");
  Bytes width = b;
  put<uint8_t>(width, 281, 3);
  reseal(width);
  expect_rejected(width, "bad header: A.row_ptr width 3, expected 4 or 8");
  Bytes enc = b;
  put<uint8_t>(enc, 280, 9);
  reseal(enc);
  expect_rejected(enc, "bad header: unknown coefficient encoding 9");
  Bytes sh = b;
  put<uint64_t>(sh, kStructHashOff, 1);
  reseal(sh);
  expect_rejected(sh, "structural hash mismatch");
  Bytes id = b;
  std::memset(id.data() + 96, 'a', 128);
  reseal(id);
  expect_rejected(id, "circuit id is not a NUL-terminated string");
}

// No byte of a file escapes checking: the padding before each 4096 boundary must be zero, and the
// layout must be the writer's (no room for unchecked gaps).
TEST_F(PceFile, PaddingAndGapsAreChecked) {
  Bytes b;
  saved(&b);
  size_t padded = 13;
  for (size_t i = 0; i < 13 && padded == 13; ++i)
    if (sec_length(b, i) % 4096 != 0) padded = i;
  ASSERT_LT(padded, 13u);
  const uint64_t end = sec_offset(b, padded) + sec_length(b, padded);
  Bytes c = b;
  c[end] = std::byte{1};
  expect_rejected(c,
                  "non-zero byte in the padding after section " +
                      std::string(section_name(static_cast<Section>(padded + 1))) + " at offset " + std::to_string(end),
                  false);
  // A 4096-byte gap of zeros before the commit marker, every checksum and size resealed.
  Bytes gap(b.begin(), b.end() - 64);
  gap.resize(gap.size() + 4096);
  gap.insert(gap.end(), b.end() - 64, b.end());
  put<uint64_t>(gap, kFileBytesOff, gap.size());
  put<uint64_t>(gap, gap.size() - 64 + kTrlFileBytes, gap.size());
  reseal(gap);
  expect_rejected(gap, "section table: the commit marker is at " + std::to_string(gap.size() - 64) + ", expected " +
                           std::to_string(b.size() - 64));
}

// A file whose checksums are all valid but whose content breaks the PCE invariants.
TEST_F(PceFile, StructurallyInvalidFileIsRejectedByValidation) {
  Bytes b;
  saved(&b);
  const uint64_t width = 3 + 200;
  struct Case {
    Section s;
    uint64_t at;  // byte offset in the section
    uint32_t value;
    size_t bytes;
    const char* what;
  };
  const Case cases[] = {
      {Section::ACol, 0, static_cast<uint32_t>(width), 4, "A.col[0] = 203 is not < width 203"},
      {Section::CCoeff, 0, 200, 1, "C.coeff[0] = 200 is not < dictionary size 12"},
      {Section::BRowPtr, 4 * 5, 0xFFFFFFu, 4, "B.row_ptr"},
      {Section::BAuxDensity, 0, 0, 4, "B.aux_density does not match"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Bytes x = b;
    std::memcpy(x.data() + sec_offset(b, section_index(c.s)) + c.at, &c.value, c.bytes);
    reseal_all(x);
    const std::string p = path("invalid.pce");
    write_file(p, x);
    for (auto mode : {LoadOptions::Mode::Mmap, LoadOptions::Mode::Read}) {
      auto r = load_pce(p, opts(mode));
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.error().find(p + ": structural check failed: "), std::string::npos) << r.error();
      EXPECT_NE(r.error().find(c.what), std::string::npos) << r.error();
      // Checksums pass, so only the structural check can have caught it.
      auto unchecked = load_pce(p, opts(mode, [](LoadOptions& o) { o.validate_structure = false; }));
      ASSERT_TRUE(unchecked.ok()) << unchecked.error();
      EXPECT_TRUE(unchecked->checksums_verified);
      EXPECT_FALSE(unchecked->structure_validated);
    }
  }
}

// The same, through the writer: a Pce built from raw sections with an out-of-range column.
TEST_F(PceFile, WriterDoesNotValidateButLoaderDoes) {
  const Pce good = make_pce(dict8_spec());
  struct Owned : PceStorage {
    std::array<std::vector<uint64_t>, kNumSections> buf;
  };
  auto st = std::make_shared<Owned>();
  std::array<std::span<const std::byte>, kNumSections> secs;
  for (size_t i = 0; i < kNumSections; ++i) {
    const auto s = good.sections()[i];
    st->buf[i].resize((s.size() + 7) / 8);
    if (!s.empty()) std::memcpy(st->buf[i].data(), s.data(), s.size());
    secs[i] = {reinterpret_cast<const std::byte*>(st->buf[i].data()), s.size()};
  }
  reinterpret_cast<uint32_t*>(st->buf[section_index(Section::CCol)].data())[1] = 1u << 30;
  const Pce bad(good.info(), secs, st);
  const std::string p = path("bad-writer.pce");
  ASSERT_TRUE(save_pce(bad, p).ok());
  auto r = load_pce(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("structural check failed"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("C.col[1] = 1073741824"), std::string::npos) << r.error();
}

TEST_F(PceFile, SkippingChecksumsIsExplicitAndRecorded) {
  Bytes b;
  saved(&b);
  // Dictionary entry 5 (a plain value, not ±1): still canonical and non-zero after the flip, so the
  // structure stays valid and only the checksum notices.
  b[sec_offset(b, 0) + 5 * 32] ^= std::byte{0x01};
  const std::string p = path("corrupt.pce");
  write_file(p, b);
  for (auto mode : {LoadOptions::Mode::Mmap, LoadOptions::Mode::Read}) {
    auto strict = load_pce(p, opts(mode));
    ASSERT_FALSE(strict.ok());
    EXPECT_NE(strict.error().find("section dictionary checksum mismatch"), std::string::npos) << strict.error();
    auto lax = load_pce(p, opts(mode, [](LoadOptions& o) { o.verify_checksums = false; }));
    ASSERT_TRUE(lax.ok()) << lax.error();
    EXPECT_FALSE(lax->checksums_verified);
    EXPECT_TRUE(lax->structure_validated);
  }
}

// Random header mutations with valid checksums: always rejected or accepted, never a crash or an
// out-of-bounds read (the sanitizer build checks the latter).
TEST_F(PceFile, MutatedHeadersNeverCrash) {
  Bytes b;
  saved(&b);
  Xoshiro256 rng(42);
  const uint64_t edges[] = {0,
                            1,
                            8,
                            4095,
                            4096,
                            b.size() - 64,
                            b.size(),
                            UINT32_MAX,
                            uint64_t{1} << 32,
                            uint64_t{1} << 48,
                            UINT64_MAX - 4095,
                            UINT64_MAX};
  const std::string p = path("fuzz.pce");
  int accepted = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Bytes c = b;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) {
      const size_t off = 8 * (2 + rng() % ((736 - 16) / 8));  // any u64 field after magic and version
      put<uint64_t>(c, off, rng() % 2 ? edges[rng() % std::size(edges)] : rng());
    }
    if (rng() % 2) reseal(c);
    write_file(p, c);
    for (auto mode : {LoadOptions::Mode::Mmap, LoadOptions::Mode::Read}) {
      auto r = load_pce(p, opts(mode));
      if (r.ok()) {
        ++accepted;
      } else {
        EXPECT_EQ(r.error().rfind(p + ": ", 0), 0u) << r.error();
      }
    }
  }
  EXPECT_LT(accepted, 20);  // only mutations that rewrote a field with its own value load
}

TEST_F(PceFile, MissingAndOddPaths) {
  auto r = load_pce(path("nope.pce"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(path("nope.pce") + ": cannot open: No such file"), std::string::npos) << r.error();
  auto d = read_pce_header(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("not a regular file"), std::string::npos) << d.error();
  auto s = save_pce(make_pce(dict8_spec()), path("no/such/dir/x.pce"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("cannot create temporary file"), std::string::npos) << s.error();
  auto e = save_pce(Pce(), path("empty.pce"));  // the writer refuses what the reader would reject
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("cannot save: bad header: no inputs"), std::string::npos) << e.error();
  EXPECT_FALSE(fs::exists(path("empty.pce")));
}

// Header validation reads 4096 + 64 bytes whatever the file size, and an mmap load without
// checks maps without reading.
TEST_F(PceFile, OpeningIsFast) {
  const Pce pce = synthetic_pce(SyntheticShape::porep_32g(0.002), "synthetic-small");
  const std::string p = path("syn.pce");
  ASSERT_TRUE(save_pce(pce, p).ok());
  auto best = [](auto&& f) {
    double b = 1e9;
    for (int i = 0; i < 5; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      b = std::min(b, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return b;
  };
  EXPECT_LT(best([&] { ASSERT_TRUE(read_pce_header(p).ok()); }), 10.0);
  EXPECT_LT(best([&] {
              auto r = load_pce(p, opts(LoadOptions::Mode::Mmap, [](LoadOptions& o) {
                                  o.verify_checksums = false;
                                  o.validate_structure = false;
                                }));
              ASSERT_TRUE(r.ok());
              EXPECT_FALSE(r->checksums_verified);
              EXPECT_FALSE(r->structure_validated);
            }),
            10.0);
}

// --- atomic replacement --------------------------------------------------------------------------

std::vector<std::string> dir_entries(const fs::path& d) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(PceFile, SavingTwiceReplacesTheFile) {
  const std::string p = path("twice.pce");
  const Pce first = make_pce(dict8_spec(), 1);
  Spec s2 = dict8_spec();
  s2.name = "second";
  s2.rows = 500;
  const Pce second = make_pce(s2, 2);
  ASSERT_TRUE(save_pce(first, p).ok());
  auto r1 = load_pce(p);  // a mapping of the first file stays valid after the replacement
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(save_pce(second, p).ok());
  auto r2 = load_pce(p);
  ASSERT_TRUE(r2.ok()) << r2.error();
  expect_same(second, *r2);
  expect_same(first, *r1);
  EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"twice.pce"});  // no temporary files left
}

TEST_F(PceFile, AtomicFileCommitAndAbandon) {
  const std::string p = path("a.bin");
  const Bytes data(10000, std::byte{7});
  {
    AtomicFile f(p);
    EXPECT_EQ(f.temp_path().find(path(".a.bin.tmp-")), 0u) << f.temp_path();
    f.write(data);
    EXPECT_TRUE(fs::exists(f.temp_path()));
    EXPECT_FALSE(fs::exists(p));
  }  // not committed: removed
  EXPECT_TRUE(dir_entries(dir_).empty());
  {
    AtomicFile f(p);
    f.allocate(20000);
    f.write(data);
    f.pwrite(data, 10000);
    f.commit();
  }
  EXPECT_EQ(fs::file_size(p), 20000u);
  EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"a.bin"});
  EXPECT_THROW(AtomicFile(path("missing/x")), std::runtime_error);
}

// A file that does not fit fails with an error naming it, the size wanted and the errno text, and
// leaves nothing behind. A full disk (ENOSPC) needs a small file system to fill (daemon.faults mounts
// a tmpfs where it may); a file size limit (RLIMIT_FSIZE, EFBIG, SIGXFSZ ignored as the daemon
// does) takes the same paths without privileges.
TEST_F(PceFile, AtomicFileThatDoesNotFitFailsClearlyAndLeavesNothing) {
  struct Limit {
    rlimit old{};
    struct sigaction old_action {};
    Limit() {
      ::getrlimit(RLIMIT_FSIZE, &old);
      rlimit small = old;
      small.rlim_cur = std::min<rlim_t>(old.rlim_max, 64 << 10);
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ::sigaction(SIGXFSZ, &ignore, &old_action);
      ::setrlimit(RLIMIT_FSIZE, &small);
    }
    ~Limit() {
      ::setrlimit(RLIMIT_FSIZE, &old);
      ::sigaction(SIGXFSZ, &old_action, nullptr);
    }
  };
  const std::string p = path("big.params");
  auto error_of = [&](const std::function<void(AtomicFile&)>& op) -> std::string {
    Limit limit;
    try {
      AtomicFile f(p);
      op(f);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string allocated = error_of([](AtomicFile& f) { f.allocate(3 << 19); });
  EXPECT_EQ(allocated.rfind(p + ": cannot allocate 1.5 MiB (temporary file " + path(".big.params.tmp-"), 0), 0u)
      << allocated;
  EXPECT_NE(allocated.find(std::strerror(EFBIG)), std::string::npos) << allocated;
  const std::string written = error_of([](AtomicFile& f) { f.write(Bytes(128 << 10, std::byte{1})); });
  EXPECT_EQ(written.rfind(p + ": write error (temporary file " + path(".big.params.tmp-"), 0), 0u) << written;
  EXPECT_NE(written.find(std::strerror(EFBIG)), std::string::npos) << written;
  EXPECT_TRUE(dir_entries(dir_).empty());
}

// remove_stale_temp_files removes only AtomicFile's temporary files whose writer is gone: never
// a live writer's (it holds a lock), nor one named after another live process, nor anything else.
TEST_F(PceFile, StaleTempFilesAndOnlyThoseAreRemoved) {
  auto touch = [&](const std::string& name) { std::ofstream(path(name)) << "x"; };
  // A pid that no process has: the highest possible pid is below 2^22 on Linux.
  const std::string dead = "999999999";
  ASSERT_TRUE(::kill(999999999, 0) != 0 && errno == ESRCH);
  touch(".a.pce.tmp-" + dead + "-0123456789abcdef");     // a dead writer's: removed
  touch(".b.params.tmp-" + dead + "-fedcba9876543210");  // removed
  touch(".c.pce.tmp-1-0123456789abcdef");                // pid 1 is alive: kept
  touch("d.pce.tmp-" + dead + "-0123456789abcdef");      // no leading dot: kept
  touch(".e.pce.tmp-" + dead + "-0123456789abcdeg");     // not hex: kept
  touch(".f.pce.tmp-" + dead + "-0123456789abcde");      // 15 digits: kept
  touch(".g.pce.tmp-x" + dead + "-0123456789abcdef");    // not a pid: kept
  touch("real.pce");
  fs::create_directory(path(".h.pce.tmp-" + dead + "-0123456789abcdef"));  // a directory: kept
  std::optional<AtomicFile> live(std::in_place, path("live.pce"));         // this process, writing
  const std::string live_temp = fs::path(live->temp_path()).filename().string();
  const std::vector<std::string> removed = remove_stale_temp_files(dir_.string());
  EXPECT_EQ(std::set<std::string>(removed.begin(), removed.end()),
            (std::set<std::string>{path(".a.pce.tmp-" + dead + "-0123456789abcdef"),
                                   path(".b.params.tmp-" + dead + "-fedcba9876543210")}));
  const std::vector<std::string> left = dir_entries(dir_);
  EXPECT_EQ(
      std::set<std::string>(left.begin(), left.end()),
      (std::set<std::string>{".c.pce.tmp-1-0123456789abcdef", "d.pce.tmp-" + dead + "-0123456789abcdef",
                             ".e.pce.tmp-" + dead + "-0123456789abcdeg", ".f.pce.tmp-" + dead + "-0123456789abcde",
                             ".g.pce.tmp-x" + dead + "-0123456789abcdef", "real.pce",
                             ".h.pce.tmp-" + dead + "-0123456789abcdef", live_temp}));
  // This process's own temporary file once its writer is gone (a previous incarnation with the same
  // pid, as in a container): no lock, so removed.
  live.reset();  // removes its own file
  touch(".i.pce.tmp-" + std::to_string(::getpid()) + "-0123456789abcdef");
  EXPECT_EQ(remove_stale_temp_files(dir_.string()),
            std::vector<std::string>{path(".i.pce.tmp-" + std::to_string(::getpid()) + "-0123456789abcdef")});
  EXPECT_TRUE(remove_stale_temp_files(path("missing")).empty());
}

TEST(MappedFileTest, BuffersAndMappings) {
  PageBuffer b(3 << 20, true);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (2 << 20), 0u);
  EXPECT_EQ(b.size(), 3u << 20);
  EXPECT_EQ(b.data()[12345], std::byte{0});
  b.data()[b.size() - 1] = std::byte{1};
  PageBuffer moved = std::move(b);
  EXPECT_EQ(moved.data()[moved.size() - 1], std::byte{1});
  EXPECT_EQ(b.data(), nullptr);
  PageBuffer small(5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % 4096, 0u);
  EXPECT_THROW(MappedFile::open("/nonexistent/file"), std::runtime_error);
}

// release_pages drops resident pages of a read-once mapping; the contents read back unchanged (the
// file's page cache refills them), and ranges partly or wholly outside the mapping are ignored.
TEST_F(PceFile, MappedFileReleasePagesKeepsTheContents) {
  const std::string p = path("pages.bin");
  std::vector<std::byte> data(5 * 4096 + 123);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte(static_cast<uint8_t>(i * 7 + 1));
  {
    AtomicFile f(p);
    f.write(data);
    f.commit();
  }
  const MappedFile m = MappedFile::open(p);
  uint64_t sum = 0;
  for (std::byte b : m.bytes()) sum += static_cast<uint8_t>(b);
  m.release_pages(m.data() + 100, 4 * 4096);           // whole pages inside: pages 1..3
  m.release_pages(m.data() - 8192, m.size() + 16384);  // clamped to the mapping
  m.release_pages(m.data() + m.size() + 4096, 4096);   // outside: nothing
  ASSERT_EQ(m.size(), data.size());
  EXPECT_TRUE(std::equal(data.begin(), data.end(), m.data()));
  uint64_t again = 0;
  for (std::byte b : m.bytes()) again += static_cast<uint8_t>(b);
  EXPECT_EQ(sum, again);
}

// --- crash safety --------------------------------------------------------------------------------

const char* kCrashPathVar = "CUZK_TEST_PCE_CRASH_PATH";
const char* kCrashFdVar = "CUZK_TEST_PCE_CRASH_FD";  // "-1": do not pause

// Runs in a child process (started by the tests below through exec, so that it is a clean process
// with its own thread pool): saves a ~40 MB PCE to the given path, and, when given a pipe, reports
// on it a third of the way through the writing and waits there to be killed.
TEST(PceFileCrashChild, DISABLED_Save) {
  const char* path = std::getenv(kCrashPathVar);
  const char* fd_text = std::getenv(kCrashFdVar);
  if (!path || !fd_text) GTEST_SKIP() << "only run as the child of the crash tests";
  const int fd = std::atoi(fd_text);
  const Pce big = synthetic_pce(SyntheticShape::porep_32g(0.008), "crash-new");
  auto r = save_pce(big, path, [&](uint64_t done, uint64_t total) {
    if (fd >= 0 && done >= total / 3) {
      (void)!::write(fd, "w", 1);
      for (;;) ::pause();
    }
  });
  ASSERT_TRUE(r.ok()) << r.error();
}

pid_t spawn_saver(const std::string& path, int fd) {
  // Everything the child needs is prepared before fork (only exec-safe calls after it).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  env_strings.push_back(std::string(kCrashPathVar) + "=" + path);
  env_strings.push_back(std::string(kCrashFdVar) + "=" + std::to_string(fd));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::string a1 = "--gtest_filter=PceFileCrashChild.DISABLED_Save", a2 = "--gtest_also_run_disabled_tests";
  char* argv[] = {exe.data(), a1.data(), a2.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execve(exe.c_str(), argv, envp.data());
    ::_exit(127);
  }
  return pid;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

TEST_F(PceFile, KilledWhileWritingLeavesTheOldFile) {
  const std::string p = path("crash.pce");
  const Pce original = make_pce(dict8_spec());
  ASSERT_TRUE(save_pce(original, p).ok());
  const Bytes before = read_file(p);

  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t pid = spawn_saver(p, pipefd[1]);
  ASSERT_GT(pid, 0);
  ::close(pipefd[1]);
  pollfd pfd{pipefd[0], POLLIN, 0};
  const int ready = ::poll(&pfd, 1, 60000);
  char c = 0;
  const bool mid_write = ready == 1 && ::read(pipefd[0], &c, 1) == 1;
  ::close(pipefd[0]);
  // The child is now inside save_pce, its temporary file partly written.
  bool temp_seen = false;
  for (const auto& e : dir_entries(dir_)) temp_seen |= e.rfind(".crash.pce.tmp-", 0) == 0;
  kill_and_reap(pid);
  ASSERT_TRUE(mid_write) << "the child did not reach the middle of its save";
  EXPECT_TRUE(temp_seen);

  EXPECT_EQ(read_file(p), before);
  auto r = load_pce(p);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_same(original, *r);
  // The killed writer's temporary file is left behind; the daemon's start-up cleaner removes it
  // (its writer is dead and holds no lock), and a new save works.
  std::vector<std::string> temps;
  for (const auto& e : dir_entries(dir_)) {
    if (e.rfind(".crash.pce.tmp-", 0) == 0) temps.push_back(path(e));
  }
  ASSERT_EQ(temps.size(), 1u);
  EXPECT_EQ(remove_stale_temp_files(dir_.string()), temps);
  EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"crash.pce"});
  const Pce next = make_pce(dict8_spec(), 99);
  ASSERT_TRUE(save_pce(next, p).ok());
  auto r2 = load_pce(p);
  ASSERT_TRUE(r2.ok()) << r2.error();
  expect_same(next, *r2);
}

// Killed at an arbitrary moment after the temporary file appears: the path holds either the old
// file or the complete new one, and always loads with every check.
TEST_F(PceFile, KilledAtAnyMomentLeavesOldOrNew) {
  const std::string p = path("race.pce");
  const Pce original = make_pce(dict8_spec());
  ASSERT_TRUE(save_pce(original, p).ok());
  const pid_t pid = spawn_saver(p, -1);
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool seen = false, exited = false;
  while (!seen && !exited && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : dir_entries(dir_)) seen |= e.rfind(".race.pce.tmp-", 0) == 0;
    int status;
    if (!seen) exited = ::waitpid(pid, &status, WNOHANG) == pid;  // finished before we saw it
    if (!seen && !exited) ::usleep(200);
  }
  if (!exited) kill_and_reap(pid);
  auto r = load_pce(p);
  ASSERT_TRUE(r.ok()) << r.error();
  if (r->info().circuit_id == "crash-new") {
    EXPECT_EQ(r->num_constraints(), SyntheticShape::porep_32g(0.008).num_constraints);
  } else {
    expect_same(original, *r);
  }
}

}  // namespace
