// The GPU fixed-base multiplier (groth16/gpu/fixed_base.hpp) against the CPU one, byte for byte: random
// and edge scalars for G1 and G2 (sizes that are not multiples of a warp), and whole .params files
// of the streaming setup from the same seed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "../test_helpers.hpp"
#include "circuits/builtin.hpp"
#include "gpu/device.hpp"
#include "groth16/gpu/fixed_base.hpp"
#include "groth16/setup_file.hpp"
#include "pce/build.hpp"
#include "require_gpu.hpp"
#include "util/rng.hpp"

namespace {

using namespace cuzk;
using groth16::Fr;

std::vector<Fr> scalars(size_t n, uint64_t seed) {
  Xoshiro256 rng(seed);
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(rng);
  // Edge values at the front: 0 (the point at infinity), 1, -1, 2, small values and a power of two.
  const Fr edge[] = {Fr::zero(),
                     Fr::one(),
                     -Fr::one(),
                     Fr::from_u64(2),
                     Fr::from_u64(4095),
                     Fr::from_u64(4096),
                     Fr::from_u64(1) * Fr::from_u64(uint64_t{1} << 63)};
  for (size_t i = 0; i < std::size(edge) && i < n; ++i) s[i] = edge[i];
  return s;
}

TEST(GpuSetup, FixedBaseEqualsTheCpu) {
  CUZK_REQUIRE_GPU();
  gpu::GpuFixedBaseMultiplier g;
  auto c = groth16::cpu_fixed_base_multiplier();
  for (size_t n : {size_t{1}, size_t{7}, size_t{31}, size_t{33}, size_t{1000}, size_t{70001}}) {
    SCOPED_TRACE(n);
    const auto s = scalars(n, n);
    std::vector<uint8_t> got1(n * 96), want1(n * 96), got2(n * 192), want2(n * 192);
    g.g1(s, got1);
    c->g1(s, want1);
    EXPECT_EQ(got1, want1);
    g.g2(s, got2);
    c->g2(s, want2);
    EXPECT_EQ(got2, want2);
  }
}

std::vector<uint8_t> slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(GpuSetup, ParamsFilesAreByteIdentical) {
  CUZK_REQUIRE_GPU();
  const auto spec = circuits::parse_builtin("filecoin-like:2^14");
  ASSERT_TRUE(spec.ok());
  const pce::Pce p = pce::build_pce(circuits::record_builtin(*spec), {"t", {}, false});
  const auto tw = groth16::ToxicWaste::from_seed(5);
  test::TempDir dir;
  gpu::GpuFixedBaseMultiplier g;
  auto c = groth16::cpu_fixed_base_multiplier();
  for (auto [m, name] : {std::pair<groth16::FixedBaseMultiplier*, const char*>{&g, "gpu"}, {c.get(), "cpu"}}) {
    groth16::SetupFileOptions o;
    o.vk_path = (dir.path() / (std::string(name) + ".vk")).string();
    auto st = groth16::setup_to_file(p, tw, (dir.path() / (std::string(name) + ".params")).string(), *m, o);
    ASSERT_TRUE(st.ok()) << st.error();
  }
  EXPECT_EQ(slurp(dir.path() / "gpu.params"), slurp(dir.path() / "cpu.params"));
  EXPECT_EQ(slurp(dir.path() / "gpu.vk"), slurp(dir.path() / "cpu.vk"));
}

}  // namespace
