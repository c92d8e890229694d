#pragma once
// The official Groth16 parameter files of Filecoin and their digests, as rust-fil-proofs'
// parameters.json lists them (the file paramfetch and `curio fetch-params` download and check).
// `cuzk doctor` compares the files in srs.param_dir against this table.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::filecoin {

struct OfficialParameterFile {
  std::string_view name;    // "v28-...params" or "v28-...vk"
  std::string_view digest;  // the first 32 hex digits of the file's BLAKE2b-512 (b2sum)
  std::string_view cid;     // its IPFS CID
  uint64_t sector_size;     // bytes
};

// Every v28 entry of parameters.json, sorted by name.
std::span<const OfficialParameterFile> official_parameter_files();
// The entry of a file name (no directory), or nullptr.
const OfficialParameterFile* find_official_parameter_file(std::string_view name);
// BLAKE2b-512 of a file as parameters.json abbreviates it: 32 lower-case hex digits. `progress`
// (may be empty) gets the bytes hashed so far after every chunk. Throws std::runtime_error naming
// the path when the file cannot be read.
std::string parameter_file_digest(const std::string& path, const std::function<void(uint64_t)>& progress = {});

}  // namespace cuzk::filecoin
