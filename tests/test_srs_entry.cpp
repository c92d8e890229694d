// SrsEntry (engine/srs_manager.hpp): the host copy of a key loads once, and while it loads (minutes
// at 32 GiB) the entry's size and key source, which GetStatus and the device provers read, answer
// at once instead of waiting for the load.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <latch>

#include "engine/srs_manager.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;
using namespace std::chrono_literals;

TEST(SrsEntry, ItsSizeAnswersWhileTheHostCopyLoads) {
  SrsEntry entry;
  entry.circuit_id = "test";
  entry.zkey_bytes = 0;
  auto key = std::make_shared<groth16::ProvingKey>();
  key->h.resize(3);
  std::latch started(1), release(1);
  int loads = 0;
  entry.load_host = [&](int, const std::function<bool()>&) -> Result<std::shared_ptr<const groth16::ProvingKey>> {
    ++loads;
    started.count_down();
    release.wait();
    return std::shared_ptr<const groth16::ProvingKey>(key);
  };
  entry.memory_key = std::make_shared<groth16::ProvingKey>();  // a bellperson entry (no file here)
  auto loading = std::async(std::launch::async, [&] { return entry.host_key(); });
  started.wait();
  auto size = std::async(std::launch::async, [&] { return entry.bytes(); });
  ASSERT_EQ(size.wait_for(1s), std::future_status::ready) << "bytes() waited for the host copy's load";
  EXPECT_EQ(size.get(), 0u);
  auto loaded = std::async(std::launch::async, [&] { return entry.host_key_loaded(); });
  ASSERT_EQ(loaded.wait_for(1s), std::future_status::ready);
  EXPECT_FALSE(loaded.get());
  auto second = std::async(std::launch::async, [&] { return entry.host_key(); });
  EXPECT_EQ(second.wait_for(100ms), std::future_status::timeout) << "a second caller waits for the one load";
  release.count_down();
  auto first = loading.get();
  ASSERT_TRUE(first.ok()) << first.error();
  auto again = second.get();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first->get(), again->get());
  EXPECT_EQ(loads, 1);
  EXPECT_TRUE(entry.host_key_loaded());
  EXPECT_EQ(entry.bytes(), groth16::KeySizes::of(*key).host_bytes());
}

}  // namespace
