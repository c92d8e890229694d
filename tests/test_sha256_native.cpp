// Native SHA-256: FIPS 180-4 / NIST example vectors through the dispatching entry points, and the
// SHA-NI path against the portable compression on random states and block runs.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/sha256_native.hpp"
#include "gadgets/sha256_shani.hpp"
#include "util/cpu_features.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;

namespace {

std::string hex(const Sha256Digest& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

Sha256Digest digest_of(const std::string& m) {
  return sha256_native(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.data()), m.size()));
}

}  // namespace

TEST(Sha256Native, NistVectors) {
  EXPECT_EQ(hex(digest_of("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(digest_of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(digest_of(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Native, DispatchEqualsPortableOnRandomRuns) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    Sha256State start;
    for (auto& w : start) w = static_cast<uint32_t>(rng());
    const size_t blocks = trial % 9;  // 0..8 blocks, so runs of several blocks are covered
    std::vector<uint8_t> data(64 * blocks);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    Sha256State fast = start, slow = start;
    sha256_native_compress_blocks(fast, data);
    for (size_t i = 0; i < blocks; ++i) sha256_portable_compress(slow, std::span<const uint8_t, 64>(&data[64 * i], 64));
    ASSERT_EQ(fast, slow) << "trial " << trial << ", " << blocks << " blocks";
    if (cpu_has_sha_ni()) {
      Sha256State ni = start;
      ASSERT_TRUE(sha256_shani_compress_blocks(ni.data(), data.data(), blocks));
      ASSERT_EQ(ni, slow) << "SHA-NI, trial " << trial;
    }
  }
  if (!cpu_has_sha_ni()) GTEST_SKIP() << "this CPU has no SHA extensions: only the portable path ran";
}

TEST(Sha256Native, RejectsPartialBlocks) {
  Sha256State s = sha256_native_iv();
  std::vector<uint8_t> data(65);
  EXPECT_THROW(sha256_native_compress_blocks(s, data), std::invalid_argument);
}
