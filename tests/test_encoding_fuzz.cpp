// Random and mutated byte strings through every point decoder: each call must return a point or
// an error (never crash, which the ASan/UBSan CI build would catch), and any point it accepts must
// be valid and re-encode to the same bytes.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "ec/encoding.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ec;

namespace {

template <class P>
struct Codec {
  size_t len;
  std::function<Result<P>(std::span<const uint8_t>, SubgroupCheck)> decode;
  std::function<std::vector<uint8_t>(const P&)> encode;
};

template <class A>
std::vector<uint8_t> vec(const A& a) {
  return std::vector<uint8_t>(a.begin(), a.end());
}

template <class P, class Rng>
void fuzz(const Codec<P>& c, const std::vector<uint8_t>& valid, Rng& rng, bool (*in_subgroup)(const P&)) {
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> b;
    switch (iter % 4) {
      case 0:  // uniformly random bytes of the right length
        b.resize(c.len);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        break;
      case 1:  // a valid encoding with a few bytes flipped
        b = valid;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k)
          b[rng() % b.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
        break;
      case 2:  // a valid encoding with the flag bits rewritten
        b = valid;
        b[0] = static_cast<uint8_t>((b[0] & 0x1f) | (rng() & 0xe0));
        break;
      default:  // wrong lengths, including empty
        b.resize(rng() % (2 * c.len + 1));
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        break;
    }
    for (auto check : {SubgroupCheck::Yes, SubgroupCheck::No}) {
      auto r = c.decode(b, check);
      if (!r.ok()) {
        EXPECT_FALSE(r.error().empty());
        continue;
      }
      ASSERT_EQ(b.size(), c.len);
      EXPECT_TRUE(r->is_on_curve());
      if (check == SubgroupCheck::Yes) {
        EXPECT_TRUE(in_subgroup(*r));
      }
      EXPECT_EQ(c.encode(*r), b);
    }
  }
}

}  // namespace

TEST(EncodingFuzz, G1Decoders) {
  Xoshiro256 rng(101);
  auto p = G1(g1_generator()).mul(Fr::random(rng)).to_affine();
  Codec<G1Affine> comp{G1_COMPRESSED, g1_from_compressed, [](const G1Affine& q) { return vec(g1_to_compressed(q)); }};
  Codec<G1Affine> unc{G1_UNCOMPRESSED, g1_from_uncompressed,
                      [](const G1Affine& q) { return vec(g1_to_uncompressed(q)); }};
  Codec<G1Affine> snj{G1_SNARKJS, g1_from_snarkjs, [](const G1Affine& q) { return vec(g1_to_snarkjs(q)); }};
  fuzz(comp, vec(g1_to_compressed(p)), rng, g1_in_subgroup);
  fuzz(unc, vec(g1_to_uncompressed(p)), rng, g1_in_subgroup);
  fuzz(snj, vec(g1_to_snarkjs(p)), rng, g1_in_subgroup);
}

TEST(EncodingFuzz, G2Decoders) {
  Xoshiro256 rng(102);
  auto p = G2(g2_generator()).mul(Fr::random(rng)).to_affine();
  Codec<G2Affine> comp{G2_COMPRESSED, g2_from_compressed, [](const G2Affine& q) { return vec(g2_to_compressed(q)); }};
  Codec<G2Affine> unc{G2_UNCOMPRESSED, g2_from_uncompressed,
                      [](const G2Affine& q) { return vec(g2_to_uncompressed(q)); }};
  Codec<G2Affine> snj{G2_SNARKJS, g2_from_snarkjs, [](const G2Affine& q) { return vec(g2_to_snarkjs(q)); }};
  fuzz(comp, vec(g2_to_compressed(p)), rng, g2_in_subgroup);
  fuzz(unc, vec(g2_to_uncompressed(p)), rng, g2_in_subgroup);
  fuzz(snj, vec(g2_to_snarkjs(p)), rng, g2_in_subgroup);
}
