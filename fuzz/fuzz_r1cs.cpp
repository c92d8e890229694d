// circom .r1cs (parse_r1cs): hostile headers, counts and sections must be errors.
#include "fuzz_common.hpp"
#include "r1cs/circom_r1cs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)cuzk::circom::parse_r1cs(cuzk::fuzz::bytes(data, size), "fuzz.r1cs");
  return 0;
}
