// .pce files (read_pce_header, load_pce in both modes; the loader reads files, here a memfd).
// Checksums stop almost every mutation at the header or section table, so the Read-mode load skips
// the section checksums: the structural validation then sees the mutated sections.
#include "fuzz_common.hpp"
#include "pce/pce_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuzk::pce;
  static cuzk::fuzz::MemFile file;
  const std::string& path = file.write(data, size);
  (void)read_pce_header(path);
  LoadOptions strict;
  (void)load_pce(path, strict);
  LoadOptions unchecked;
  unchecked.mode = LoadOptions::Mode::Read;
  unchecked.verify_checksums = false;
  (void)load_pce(path, unchecked);
  return 0;
}
