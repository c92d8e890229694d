#pragma once
// Building GENERIC proof requests: partition inputs (hex, seeded or random), .wtns files, request
// ids and priorities.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client.hpp"
#include "util/result.hpp"

namespace cuzk::bench {

inline constexpr size_t kMaxPartitionInputBytes = 64;  // the proto's limit for built-in circuits
inline constexpr size_t kRandomInputBytes = 8;

// "low", "normal", "high", "critical" (and "default" / "unspecified": the kind's default).
Result<v1::Priority> parse_priority(std::string_view name);
// A comma-separated list of those ("low,high,critical"): batch proof i gets entry i mod its length,
// so one batch mixes priorities in a fixed, reproducible pattern.
Result<std::vector<v1::Priority>> parse_priority_list(std::string_view names);
const char* priority_name(v1::Priority p);

// 1..64 bytes of hex (an optional 0x prefix); the error says what is wrong.
Result<std::string> parse_hex_input(std::string_view hex);
// 8 bytes from the kernel's CSPRNG.
std::string random_partition_input();
// 8 bytes that depend only on (seed, partition).
std::string seeded_partition_input(uint64_t seed, uint64_t partition);
// "cuzk-bench-" + 16 random hex digits.
std::string new_request_id();

// Reads a whole file (a .wtns); errors name the path.
Result<std::string> read_file(const std::string& path);

const char* status_name(v1::AwaitProofResponse::Status s);

// A PoRep C2 request's data from a C1 file (raw JSON or the {SectorNum, Phase1Out, SectorSize}
// wrapper): the bytes sent as vanilla_proof, the circuit the daemon proves it with, and per
// partition the public inputs a verifier derives from C1 alone (32-byte LE values concatenated, as
// the daemon returns them), which cuzk-bench checks the proofs against.
struct PorepC1 {
  std::string vanilla_proof;
  std::string circuit_id;  // "porep:32GiB"
  uint64_t sector_size = 0;
  uint32_t partitions = 0;
  std::vector<std::string> public_inputs;
  std::optional<uint64_t> sector_number;  // the wrapper's SectorNum (a raw C1 has none)
  uint64_t miner_id = 0;                  // --miner-id; 0: not sent
};
// Parses and validates the file locally (errors name the file and the JSON field).
Result<PorepC1> load_porep_c1(const std::string& path);
void set_porep_request(v1::SubmitProofRequest& s, const PorepC1& c1);
// --c1 of single/batch: nothing when `path` is empty, the loaded C1 otherwise; false (after printing
// the error on stderr) when it cannot be loaded.
bool load_porep_option(const std::string& path, std::optional<PorepC1>& out);

}  // namespace cuzk::bench
