// circom .wtns (parse_wtns): hostile headers, counts and sections must be errors.
#include "fuzz_common.hpp"
#include "r1cs/circom_wtns.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)cuzk::circom::parse_wtns(cuzk::fuzz::bytes(data, size), "fuzz.wtns");
  return 0;
}
