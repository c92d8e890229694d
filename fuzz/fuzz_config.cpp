// The daemon's TOML config (parse_config): syntax, types, sizes, durations and [[circuits]] from
// hostile text must be errors.
#include "engine/config.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)cuzk::engine::parse_config(cuzk::fuzz::text(data, size), "fuzz.toml");
  return 0;
}
