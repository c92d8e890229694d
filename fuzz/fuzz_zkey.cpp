// snarkjs .zkey (parse_zkey): sections, counts and points from hostile bytes must be errors.
#include "fuzz_common.hpp"
#include "groth16/zkey.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cuzk::groth16::ZkeyOptions options;
  options.check_all_subgroups = true;
  (void)cuzk::groth16::parse_zkey(cuzk::fuzz::bytes(data, size), "fuzz.zkey", options);
  return 0;
}
