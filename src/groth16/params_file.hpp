#pragma once
// Reader and writer of bellperson / Filecoin Groth16 parameter files (.params) and verifying keys
// (.vk). shared/reference/gpu-prover.md section 2.1 (bellperson src/groth16/params.rs,
// verifying_key.rs). Every integer is a big-endian u32, every point uncompressed (zcash encoding:
// big-endian coordinates, G2 as c1 || c0, flags in the top three bits of byte 0), no padding:
//
//   vk:  alpha_g1 (G1) | beta_g1 (G1) | beta_g2 (G2) | gamma_g2 (G2) | delta_g1 (G1) | delta_g2 (G2)
//        | u32 n_ic | ic[n_ic] (G1)                  (864 bytes before n_ic)
//   u32 n_h | h[n_h] (G1) | u32 n_l | l[n_l] (G1) | u32 n_a | a[n_a] (G1)
//   | u32 n_b_g1 | b_g1[..] (G1) | u32 n_b_g2 | b_g2[..] (G2)
//
// A .vk file is the vk serialization alone.
//
// Validation (the reader never trusts the file): every count is checked against the file size
// before anything is allocated, trailing bytes are rejected, every coordinate must be canonical
// (< q), every point uncompressed (flag 0x80 clear) and on its curve; the point at infinity is
// rejected everywhere (as bellperson's Parameters::read / VerifyingKey::read do). The verifying
// key points (ic included) are always checked to lie in the prime-order subgroup; the big sections
// only when ParamsReadOptions::subgroup_checks is set (slow: Filecoin's files are up to 47 GB).
// Errors name the file, the section ('vk.alpha_g1', ..., 'vk.ic', 'h', 'l', 'a', 'b_g1', 'b_g2'),
// the point index, its byte offset and the reason.
//
// Large files are memory-mapped and decoded in parallel on ThreadPool::global(). A file truncated
// by someone else while it is being read raises SIGBUS (like every mapping).
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/key_source.hpp"
#include "groth16/keys.hpp"
#include "util/result.hpp"

namespace cuzk {
class ThreadPool;
}

namespace cuzk::groth16 {

// Bytes of the six fixed verifying-key points (3 G1 + 3 G2, uncompressed).
inline constexpr uint64_t VK_FIXED_BYTES = 3 * 96 + 3 * 192;

// One counted section of a .params file.
struct ParamsSection {
  uint64_t count_offset = 0;  // file offset of the u32 count
  uint64_t offset = 0;        // file offset of the first point (count_offset + 4)
  uint64_t count = 0;         // number of points
  uint64_t point_bytes = 0;   // 96 (G1) or 192 (G2)

  uint64_t bytes() const { return count * point_bytes; }
  uint64_t end() const { return offset + bytes(); }
};

// Where everything lies in a .params file; computed from the counts alone (scan_params).
struct ParamsLayout {
  uint64_t file_size = 0;
  ParamsSection ic, h, l, a, b_g1, b_g2;

  uint64_t vk_bytes() const { return ic.end(); }  // the vk serialization is the file's prefix
  uint64_t num_inputs() const { return ic.count; }
  uint64_t num_aux() const { return l.count; }
  uint64_t domain_size() const { return h.count + 1; }
};

// What the circuit says the file must hold (bellperson's prover indexes a and b through these).
struct ParamsExpect {
  uint64_t num_inputs = 0;       // ic count, ONE included
  uint64_t num_aux = 0;          // l count
  uint64_t domain_size = 0;      // h count + 1
  uint64_t a_aux_density = 0;    // aux variables in A: a count = num_inputs + a_aux_density
  uint64_t b_input_density = 0;  // inputs in B } b_g1 count = b_g2 count
  uint64_t b_aux_density = 0;    // aux in B    }   = b_input_density + b_aux_density
};

// Progress of a long read or write: bytes done and total (the file size). Called from worker
// threads, one call at a time.
using ParamsProgress = std::function<void(uint64_t done, uint64_t total)>;

struct ParamsReadOptions {
  // Subgroup checks of h, l, a, b_g1, b_g2 (the vk's points are always checked).
  bool subgroup_checks = false;
  std::optional<ParamsExpect> expect;
  ParamsProgress progress;
};

// ---- verifying keys ----

// The vk serialization (what a .vk file holds and a .params file starts with). Points at infinity
// are encoded as such here (write_vk rejects them).
std::vector<uint8_t> vk_bytes(const VerifyingKey& vk);
// Parses exactly one serialized vk; `name` (usually the path) prefixes every error message.
Result<VerifyingKey> parse_vk(std::span<const uint8_t> bytes, std::string_view name);
Result<VerifyingKey> read_vk(const std::string& path);
// Atomic write (AtomicFile). Returns true, or an error (a point at infinity, an I/O error).
Result<bool> write_vk(const VerifyingKey& vk, const std::string& path);

// ---- parameter files ----

// Reads the six counts (a few preads, no point decoding) and checks them against the file size
// (truncation, hostile counts, trailing bytes).
Result<ParamsLayout> scan_params(const std::string& path);
// Checks a layout against the circuit; every mismatch is listed in the error.
Result<bool> check_params_expect(const ParamsLayout& layout, const ParamsExpect& expect, std::string_view name);

Result<ProvingKey> read_params(const std::string& path, const ParamsReadOptions& options = {});
// The u32 big-endian point count that opens each section (and the vk's ic list).
std::array<uint8_t, 4> section_count_bytes(uint32_t count);
// Atomic write (AtomicFile): sections encoded in parallel, window by window, written in order.
// Rejects points at infinity (the reader would) and sections of more than 2^32 - 1 points.
Result<bool> write_params(const ProvingKey& pk, const std::string& path, const ParamsProgress& progress = {});

// Decodes consecutive points of a section as read_params does (canonical coordinates, on the curve,
// never the point at infinity; the subgroup only when subgroup_checks), in parallel on `pool` (null:
// the global pool). bytes[0] starts point `first` of `section` and lies at byte `offset` of the
// .params layout; `name` (a path, or what the key is) and those three name a bad point in the
// error. bytes.size() must be out.size() times 96 (G1) or 192 (G2). The test-only setup builds its
// in-memory keys through this (setup_file.hpp), so they are exactly what reading the file gives.
Result<bool> decode_params_points(std::span<const uint8_t> bytes, std::span<G1Affine> out, uint64_t offset,
                                  std::string_view name, std::string_view section, uint64_t first, bool subgroup_checks,
                                  ThreadPool* pool = nullptr);
Result<bool> decode_params_points(std::span<const uint8_t> bytes, std::span<G2Affine> out, uint64_t offset,
                                  std::string_view name, std::string_view section, uint64_t first, bool subgroup_checks,
                                  ThreadPool* pool = nullptr);

// A .params file as a KeySource: open() scans the layout, checks it against options.expect and
// decodes the verifying key (as read_params does); read_g1 / read_b_g2 map the file and decode one
// window of points at a time, validated like read_params (subgroup checks per options), handing each
// window on and dropping the mapping's pages behind it: the host holds one window, never the key.
class ParamsKeySource final : public KeySource {
 public:
  static constexpr uint64_t kWindow = uint64_t{1} << 20;  // points per window (96 MiB of G1)

  // window: points per window handed on (tests use small ones).
  static Result<ParamsKeySource> open(const std::string& path, const ParamsReadOptions& options = {},
                                      uint64_t window = kWindow);
  const VerifyingKey& vk() const override { return vk_; }
  KeySizes sizes() const override;
  void read_g1(G1Section section, const G1Sink& sink) const override;
  void read_b_g2(const G2Sink& sink) const override;
  std::string identity() const override { return "params:" + path_; }
  const ParamsLayout& layout() const { return layout_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  ParamsLayout layout_;
  VerifyingKey vk_;
  bool subgroup_checks_ = false;
  uint64_t window_ = kWindow;
};

}  // namespace cuzk::groth16
