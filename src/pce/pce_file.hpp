#pragma once
// The on-disk .pce format, version 1 (byte-level description: docs/pce-format.md).
//
// A .pce file is a 4096-byte header, the 13 sections of a Pce each starting on a 4096-byte
// boundary, and a 64-byte commit marker. Sections hold exactly the bytes a Pce works on, so a
// file loads in place through mmap (no copy, no parse), or through parallel reads into one buffer.
// Loading checks the header, every section checksum (skippable, but only explicitly) and the
// structure (Pce::validate_structure); every failure says which file and which check.
#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "pce/pce.hpp"
#include "util/result.hpp"

namespace cuzk::pce {

inline constexpr uint32_t kPceFormatVersion = 1;
inline constexpr uint64_t kPceHeaderBytes = 4096;
inline constexpr uint64_t kPceAlignment = 4096;  // every section's offset is a multiple of this
inline constexpr uint64_t kPceTrailerBytes = 64;
inline constexpr size_t kPceMaxCircuitIdBytes = 127;

struct SectionEntry {
  uint64_t offset = 0;    // from the start of the file
  uint64_t length = 0;    // bytes
  uint64_t checksum = 0;  // chunked XXH3-64 (util/checksum.hpp)
};

// What a file's header says, after read_pce_header() validated it.
struct PceFileHeader {
  PceInfo info;
  uint32_t format_version = kPceFormatVersion;
  uint64_t structural_hash = 0;
  uint64_t header_checksum = 0;
  uint64_t file_bytes = 0;
  std::array<SectionEntry, kNumSections> sections{};
};

struct LoadOptions {
  enum class Mode {
    Mmap,  // map the file read-only; sections point into the mapping (zero copy)
    Read,  // read the file into one anonymous buffer with parallel preads
  };
  Mode mode = Mode::Mmap;
  // Hash every section and compare with the table (parallel; fused with reading in Read mode).
  // false skips it: LoadedPce::checksums_verified then says so.
  bool verify_checksums = true;
  bool validate_structure = true;   // run Pce::validate_structure()
  bool populate = false;            // Mmap: MAP_POPULATE (read everything now rather than on first touch)
  bool huge_pages = false;          // MADV_HUGEPAGE on the mapping (advice) or on the read buffer
  std::string expected_circuit_id;  // non-empty: reject a file that holds another circuit
};

// A loaded PCE (it keeps the mapping or the read buffer alive) and what loading found out. It is a
// Pce, so callers use it as one; copying out the Pce part shares the mapping.
struct LoadedPce : Pce {
  PceFileHeader header;
  bool checksums_verified = false;   // false only when LoadOptions::verify_checksums was false
  bool structure_validated = false;  // false only when LoadOptions::validate_structure was false
};

// Opens `path` and validates the header, the section table and the commit marker; reads 4096 +
// 64 bytes, whatever the file size. Checks, in order: size >= header, magic, format version,
// header checksum, field, header fields, circuit id (when expected_circuit_id is non-empty),
// file size, section table, commit marker.
Result<PceFileHeader> read_pce_header(const std::string& path, const std::string& expected_circuit_id = "");

// read_pce_header(), then the sections (mode, checksums, structure as `options` say).
Result<LoadedPce> load_pce(const std::string& path, const LoadOptions& options = {});

// progress(done, total): section bytes written so far and in all; called from pool threads, one
// call at a time.
using SaveProgress = std::function<void(uint64_t done, uint64_t total)>;

// Writes `pce` to `path` atomically (util/atomic_file.hpp): a reader of `path` sees the previous
// file or the complete new one, never a mix, also across crashes. Checksums are computed in
// parallel while writing. Returns the header that was written.
Result<PceFileHeader> save_pce(const Pce& pce, const std::string& path, const SaveProgress& progress = {});

// The checksum of one section (parallel over its chunks).
uint64_t section_checksum(std::span<const std::byte> bytes);

// The structural hash: XXH3-64 over the counts, the encoding, the row-pointer widths and the 13
// section checksums (docs/pce-format.md gives the exact bytes). Two files have the same hash
// exactly when they hold the same matrices in the same encoding; the circuit id is not part of it.
uint64_t structural_hash(const PceInfo& info, const std::array<uint64_t, kNumSections>& section_checksums);
uint64_t structural_hash(const Pce& pce);  // computes the section checksums

}  // namespace cuzk::pce
