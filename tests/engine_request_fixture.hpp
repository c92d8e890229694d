#pragma once
// What the request-decoding tests (test_engine_post, test_engine_snap) share: a finalized engine
// Config over a private data directory, and byte strings as a ProofRequest's bytes fields carry
// them.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "engine/config.hpp"

namespace cuzk::test {

// The default configuration with `dir` as the data directory; allow_test_keys decides whether a
// Filecoin circuit without its official parameter file is refused at submit or gets test-only keys.
inline engine::Config engine_config(const std::string& dir, bool allow_test_keys) {
  engine::Config c;
  c.daemon.data_dir = dir;
  c.srs.allow_test_keys = allow_test_keys;
  EXPECT_TRUE(c.finalize().ok());
  return c;
}

inline std::string bytes(std::span<const uint8_t> v) {
  return std::string(v.begin(), v.end());
}

}  // namespace cuzk::test
