// The streaming setup (groth16/setup_file.hpp): to a file, the same bytes as write_params(setup())
// for any chunk size, no file under the final name after a failure, and a wrong multiplier caught;
// in memory, exactly the key read_params gives for that file, with the same checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup_file.hpp"
#include "groth16_reference.hpp"
#include "pce_test_circuits.hpp"
#include "test_helpers.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::groth16;
using namespace cuzk::pce_test;
namespace fs = std::filesystem;

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Forwards to the CPU multiplier; can fail at call `fail_at` or flip a byte of the first (or last)
// point of call `corrupt_at`. Calls: 0 the vk's G1 points, 1 its G2 points, then the chunks of h,
// l, a, b_g1, b_g2 in order.
class TestMultiplier final : public FixedBaseMultiplier {
 public:
  int fail_at = -1, corrupt_at = -1;
  bool corrupt_last = false;
  int calls = 0;
  std::string describe() const override { return "test"; }
  void prepare(uint64_t a, uint64_t b) override { cpu_->prepare(a, b); }
  void g1(std::span<const Fr> s, std::span<uint8_t> o) override {
    const int k = step();
    cpu_->g1(s, o);
    if (k == corrupt_at) flip(o, 96);
  }
  void g2(std::span<const Fr> s, std::span<uint8_t> o) override {
    const int k = step();
    cpu_->g2(s, o);
    if (k == corrupt_at) flip(o, 192);
  }
  size_t chunk_points() const override { return 64; }

 private:
  int step() {
    if (calls == fail_at) throw std::runtime_error("injected failure");
    return calls++;
  }
  void flip(std::span<uint8_t> o, size_t pb) const {
    const size_t point = corrupt_last ? o.size() / pb - 1 : 0;
    o[point * pb + 20] ^= 1;  // a coordinate byte: still a well-formed encoding
  }
  std::unique_ptr<FixedBaseMultiplier> cpu_ = cpu_fixed_base_multiplier();
};

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(SetupFile, SameBytesAsInMemorySetupForEveryChunkSize) {
  const auto c = g16_ref::build([](auto& cs) { filecoin_like(cs, 6, 2, 1); });
  const ToxicWaste tw = ToxicWaste::from_seed(11);
  test::TempDir dir;
  const ProvingKey pk = setup(c.pce, tw);
  ASSERT_TRUE(write_params(pk, (dir.path() / "want.params").string()).ok());
  ASSERT_TRUE(write_vk(pk.vk, (dir.path() / "want.vk").string()).ok());
  const auto want = slurp(dir.path() / "want.params"), want_vk = slurp(dir.path() / "want.vk");
  auto cpu = cpu_fixed_base_multiplier();
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{64}, size_t{0}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    uint64_t last_done = 0, last_total = 1;
    SetupFileOptions o;
    o.vk_path = (dir.path() / "got.vk").string();
    o.chunk_points = chunk;
    o.progress = [&](uint64_t d, uint64_t t) {
      EXPECT_GE(d, last_done);
      last_done = d;
      last_total = t;
    };
    auto st = setup_to_file(c.pce, tw, (dir.path() / "got.params").string(), *cpu, o);
    ASSERT_TRUE(st.ok()) << st.error();
    EXPECT_EQ(slurp(dir.path() / "got.params"), want);
    EXPECT_EQ(slurp(dir.path() / "got.vk"), want_vk);
    EXPECT_EQ(st->file_bytes, want.size());
    EXPECT_EQ(st->g1_points, pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size());
    EXPECT_EQ(st->g2_points, pk.b_g2.size());
    EXPECT_EQ(last_done, last_total);
  }
  // And the reader accepts it with the circuit's expectations.
  ParamsReadOptions ro;
  ro.subgroup_checks = true;
  auto back = read_params((dir.path() / "got.params").string(), ro);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->h, pk.h);
}

TEST(SetupFile, AFailureLeavesNoFileUnderTheFinalName) {
  const auto c = g16_ref::build([](auto& cs) { filecoin_like(cs, 5, 1, 1); });
  test::TempDir dir;
  for (int fail_at : {0, 1, 3, 6}) {
    SCOPED_TRACE("fail at call " + std::to_string(fail_at));
    TestMultiplier m;
    m.fail_at = fail_at;
    SetupFileOptions o;
    o.vk_path = (dir.path() / "k.vk").string();
    auto st = setup_to_file(c.pce, ToxicWaste::from_seed(1), (dir.path() / "k.params").string(), m, o);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().find("injected failure"), std::string::npos) << st.error();
    EXPECT_EQ(entries(dir.path()), 0u) << "no params, no vk, no temporary file";
  }
}

TEST(SetupFile, AWrongPointFromTheMultiplierIsCaught) {
  const auto c = g16_ref::build([](auto& cs) { filecoin_like(cs, 5, 1, 1); });
  test::TempDir dir;
  TestMultiplier clean;
  ASSERT_TRUE(setup_to_file(c.pce, ToxicWaste::from_seed(2), (dir.path() / "ok.params").string(), clean).ok());
  fs::remove(dir.path() / "ok.params");
  ASSERT_GT(clean.calls, 6);
  // Every chunk's first and last point are recomputed on the CPU: a wrong one in a chunk of h
  // (call 3) or at the very end of b_g2 (the last call) fails the setup.
  for (const auto& [call, last] : {std::pair{3, false}, std::pair{clean.calls - 1, true}}) {
    SCOPED_TRACE("call " + std::to_string(call));
    TestMultiplier m;
    m.corrupt_at = call;
    m.corrupt_last = last;
    auto st = setup_to_file(c.pce, ToxicWaste::from_seed(2), (dir.path() / "k.params").string(), m);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().find("computed a wrong point"), std::string::npos) << st.error();
    EXPECT_EQ(entries(dir.path()), 0u);
  }
  // A wrong vk point (call 0) is caught by decoding the vk (not on the curve).
  TestMultiplier v;
  v.corrupt_at = 0;
  auto st = setup_to_file(c.pce, ToxicWaste::from_seed(2), (dir.path() / "k.params").string(), v);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(entries(dir.path()), 0u);
}

TEST(SetupFile, ZeroToxicValueIsAnErrorNotACrash) {
  const auto c = g16_ref::build([](auto& cs) { cubic(cs, Fr::from_u64(3)); });
  test::TempDir dir;
  ToxicWaste tw = ToxicWaste::from_seed(3);
  tw.delta = Fr::zero();
  auto cpu = cpu_fixed_base_multiplier();
  auto st = setup_to_file(c.pce, tw, (dir.path() / "k.params").string(), *cpu);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("zero"), std::string::npos) << st.error();
  EXPECT_EQ(entries(dir.path()), 0u);
}

// Every point of both keys, the vk included, equal (and so their files, byte for byte).
void expect_equal_keys(const ProvingKey& got, const ProvingKey& want) {
  EXPECT_EQ(vk_bytes(got.vk), vk_bytes(want.vk));
  EXPECT_EQ(got.h, want.h);
  EXPECT_EQ(got.l, want.l);
  EXPECT_EQ(got.a, want.a);
  EXPECT_EQ(got.b_g1, want.b_g1);
  EXPECT_EQ(got.b_g2, want.b_g2);
}

TEST(SetupMemory, IsExactlyWhatReadingTheFileGives) {
  const auto c = g16_ref::build([](auto& cs) { filecoin_like(cs, 6, 2, 1); });
  const ToxicWaste tw = ToxicWaste::from_seed(11);
  test::TempDir dir;
  const std::string file = (dir.path() / "k.params").string();
  auto cpu = cpu_fixed_base_multiplier();
  auto written = setup_to_file(c.pce, tw, file, *cpu);
  ASSERT_TRUE(written.ok()) << written.error();
  auto read = read_params(file);
  ASSERT_TRUE(read.ok()) << read.error();
  // The sizes and file size are known from the Pce before any work.
  const KeySizes sizes = setup_key_sizes(c.pce);
  EXPECT_EQ(sizes, KeySizes::of(*read));
  EXPECT_EQ(sizes.params_file_bytes(), fs::file_size(file));
  EXPECT_EQ(written->file_bytes, fs::file_size(file));
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{64}, size_t{0}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    uint64_t last_done = 0, last_total = 1;
    SetupMemoryOptions o;
    o.chunk_points = chunk;
    o.subgroup_checks = chunk == 7;
    o.progress = [&](uint64_t d, uint64_t t) {
      EXPECT_GE(d, last_done);
      last_done = d;
      last_total = t;
    };
    SetupFileStats st;
    auto pk = setup_to_memory(c.pce, tw, *cpu, o, &st);
    ASSERT_TRUE(pk.ok()) << pk.error();
    expect_equal_keys(*pk, *read);
    EXPECT_EQ(last_done, last_total);
    EXPECT_EQ(st.file_bytes, written->file_bytes);
    EXPECT_EQ(st.g1_points, written->g1_points);
    EXPECT_EQ(st.g2_points, written->g2_points);
  }
  EXPECT_EQ(entries(dir.path()), 1u) << "setup_to_memory writes nothing";
  // Another seed, another key.
  auto other = setup_to_memory(c.pce, ToxicWaste::from_seed(12), *cpu);
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_NE(vk_bytes(other->vk), vk_bytes(read->vk));
}

TEST(SetupMemory, FailuresAndWrongPointsAreErrors) {
  const auto c = g16_ref::build([](auto& cs) { filecoin_like(cs, 5, 1, 1); });
  const ToxicWaste tw = ToxicWaste::from_seed(2);
  TestMultiplier clean;
  ASSERT_TRUE(setup_to_memory(c.pce, tw, clean).ok());
  ASSERT_GT(clean.calls, 6);
  {
    TestMultiplier m;
    m.fail_at = 3;
    auto pk = setup_to_memory(c.pce, tw, m);
    ASSERT_FALSE(pk.ok());
    EXPECT_EQ(pk.error(), "test-only setup in memory: injected failure");
  }
  // A wrong first point of a chunk of h (call 3), or the last of b_g2 (the last call).
  for (const auto& [call, last] : {std::pair{3, false}, std::pair{clean.calls - 1, true}}) {
    SCOPED_TRACE("call " + std::to_string(call));
    TestMultiplier m;
    m.corrupt_at = call;
    m.corrupt_last = last;
    auto pk = setup_to_memory(c.pce, tw, m);
    ASSERT_FALSE(pk.ok());
    EXPECT_NE(pk.error().find("computed a wrong point"), std::string::npos) << pk.error();
  }
  // Cancelled between chunks.
  auto cpu = cpu_fixed_base_multiplier();
  SetupMemoryOptions o;
  o.chunk_points = 4;
  int polls = 0;
  o.cancelled = [&] { return ++polls > 2; };
  auto pk = setup_to_memory(c.pce, tw, *cpu, o);
  ASSERT_FALSE(pk.ok());
  EXPECT_EQ(pk.error(), "test-only setup in memory: setup interrupted");
}

// A point that is well formed but off the curve in the middle of a chunk (where the CPU does not
// recompute it) is refused by the decoder, naming the section, the point and its offset in the
// .params layout: the in-memory key is validated as a file being read would be.
TEST(SetupMemory, ThePointsAreDecodedAsTheReaderDecodesThem) {
  std::vector<G1Affine> out(3);
  const auto p = ec::g1_to_uncompressed(ec::g1_generator());
  std::vector<uint8_t> enc;
  for (int i = 0; i < 3; ++i) enc.insert(enc.end(), p.begin(), p.end());
  ASSERT_TRUE(decode_params_points(enc, std::span(out), 1000, "k", "l", 5, true).ok());
  EXPECT_EQ(out[2], ec::g1_generator());
  enc[96 + 20] ^= 1;
  auto r = decode_params_points(enc, std::span(out), 1000, "k", "l", 5, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("k: section 'l' point 6 (offset 1096): ", 0), 0u) << r.error();
  r = decode_params_points(std::span(enc).first(95), std::span(out).first(1), 0, "k", "l", 0, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("95 bytes do not hold 1 points of 96 bytes"), std::string::npos) << r.error();
}

}  // namespace
