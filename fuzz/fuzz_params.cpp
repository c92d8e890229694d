// bellperson .vk (parse_vk, in memory) and .params (read_params: it maps a file, here a memfd).
// Hostile counts, truncation and bad points must be errors, never crashes or huge allocations.
#include "fuzz_common.hpp"
#include "groth16/params_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuzk::groth16;
  (void)parse_vk(cuzk::fuzz::bytes(data, size), "fuzz.vk");
  static cuzk::fuzz::MemFile file;
  ParamsReadOptions options;
  options.subgroup_checks = size < 4096;  // the slow checks, on the small inputs only
  (void)read_params(file.write(data, size), options);
  (void)scan_params(file.write(data, size));
  return 0;
}
