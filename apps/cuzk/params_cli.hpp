#pragma once
// A .params file read for `cuzk prove`, with a progress bar on a terminal: a 32 GiB PoRep key is
// 47 GB, minutes of reading and decoding that would otherwise look like a hang.
#include <string>

#include "cli_util.hpp"
#include "groth16/params_file.hpp"
#include "util/progress.hpp"

namespace cuzk::cli {

inline groth16::ProvingKey read_params_with_progress(const std::string& path, bool quiet) {
  Progress bar("loading " + path, 1, !quiet);
  groth16::ParamsReadOptions ro;
  ro.progress = bar.callback();
  groth16::ProvingKey pk = must(groth16::read_params(path, ro));
  bar.finish();
  return pk;
}

}  // namespace cuzk::cli
