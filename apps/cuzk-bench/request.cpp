#include "request.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "filecoin/c1_output.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "util/rng.hpp"

namespace cuzk::bench {

namespace {

std::string le_bytes(uint64_t x) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(x >> (8 * i));
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<v1::Priority> parse_priority(std::string_view name) {
  if (name == "low") return v1::LOW;
  if (name == "normal") return v1::NORMAL;
  if (name == "high") return v1::HIGH;
  if (name == "critical") return v1::CRITICAL;
  if (name == "default" || name == "unspecified") return v1::PRIORITY_UNSPECIFIED;
  return make_error("unknown priority '" + std::string(name) + "' (expected low, normal, high or critical)");
}

Result<std::vector<v1::Priority>> parse_priority_list(std::string_view names) {
  std::vector<v1::Priority> out;
  for (;;) {
    const size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    auto p = parse_priority(name);
    if (!p) return make_error("--priority: " + p.error());
    out.push_back(*p);
    if (comma == std::string_view::npos) return out;
    names.remove_prefix(comma + 1);
  }
}

const char* priority_name(v1::Priority p) {
  switch (p) {
    case v1::LOW:
      return "low";
    case v1::NORMAL:
      return "normal";
    case v1::HIGH:
      return "high";
    case v1::CRITICAL:
      return "critical";
    default:
      return "default";
  }
}

Result<std::string> parse_hex_input(std::string_view hex) {
  if (hex.starts_with("0x") || hex.starts_with("0X")) hex.remove_prefix(2);
  if (hex.empty()) return make_error("--input: empty hex string");
  if (hex.size() % 2 != 0) return make_error("--input '" + std::string(hex) + "': odd number of hex digits");
  if (hex.size() / 2 > kMaxPartitionInputBytes) {
    return make_error("--input: " + std::to_string(hex.size() / 2) + " bytes; a partition input is at most " +
                      std::to_string(kMaxPartitionInputBytes));
  }
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return make_error("--input '" + std::string(hex) + "': not a hex string");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string random_partition_input() {
  SystemRng rng;
  return le_bytes(rng());
}

std::string seeded_partition_input(uint64_t seed, uint64_t partition) {
  Xoshiro256 rng(seed ^ (partition * 0xD1B54A32D192ED03ull));
  return le_bytes(rng());
}

std::string new_request_id() {
  SystemRng rng;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return std::string("cuzk-bench-") + buf;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error("error reading " + path);
  return ss.str();
}

const char* status_name(v1::AwaitProofResponse::Status s) {
  switch (s) {
    case v1::AwaitProofResponse::COMPLETED:
      return "COMPLETED";
    case v1::AwaitProofResponse::FAILED:
      return "FAILED";
    case v1::AwaitProofResponse::CANCELLED:
      return "CANCELLED";
    case v1::AwaitProofResponse::TIMEOUT:
      return "TIMEOUT";
    default:
      return "UNKNOWN";
  }
}

Result<PorepC1> load_porep_c1(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) return make_error(bytes.error());
  PorepC1 out;
  try {
    const filecoin::C1Wrapper w = filecoin::parse_c1_any(*bytes);
    const filecoin::RegisteredSealProof& rp = *w.c1.registered_proof;
    out.circuit_id = "porep:" + filecoin::sector_size_name(rp.shape.sector_size);
    out.sector_size = rp.shape.sector_size;
    out.partitions = rp.partitions;
    if (w.wrapped) out.sector_number = w.sector_num;
    for (uint32_t k = 0; k < rp.partitions; ++k) {
      const std::vector<filecoin::Fr> in = filecoin::porep_verifier_inputs(w.c1, k);
      std::string packed(in.size() * 32, '\0');
      for (size_t i = 0; i < in.size(); ++i) {
        in[i].to_bytes_le(std::span<uint8_t>(reinterpret_cast<uint8_t*>(packed.data()) + 32 * i, 32));
      }
      out.public_inputs.push_back(std::move(packed));
    }
  } catch (const std::exception& e) {
    return make_error(path + ": " + e.what());
  }
  out.vanilla_proof = std::move(*bytes);
  return out;
}

bool load_porep_option(const std::string& path, std::optional<PorepC1>& out) {
  if (path.empty()) return true;
  auto c = load_porep_c1(path);
  if (!c) {
    std::cerr << "cuzk-bench: " << c.error() << "\n";
    return false;
  }
  out = std::move(*c);
  return true;
}

void set_porep_request(v1::SubmitProofRequest& s, const PorepC1& c1) {
  s.set_proof_kind(v1::POREP_SEAL_COMMIT);
  s.set_sector_size(c1.sector_size);
  s.set_vanilla_proof(c1.vanilla_proof);
  // As Curio sends them: the daemon checks them against the wrapper and C1's replica id.
  if (c1.sector_number) s.set_sector_number(*c1.sector_number);
  s.set_miner_id(c1.miner_id);
}

}  // namespace cuzk::bench
