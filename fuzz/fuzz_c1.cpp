// C1 output JSON, raw or in its wrapper (parse_c1_any): every malformed document must end in a
// C1Error naming the field, never in a crash or another exception.
#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)cuzk::filecoin::parse_c1_any(cuzk::fuzz::text(data, size));
  } catch (const cuzk::filecoin::C1Error&) {
  }
  return 0;
}
