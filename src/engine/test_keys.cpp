#include "engine/test_keys.hpp"

#include <filesystem>
#include <system_error>

#include "engine/memory_budget.hpp"

namespace cuzk::engine {

namespace fs = std::filesystem;

const char* test_key_store_name(TestKeyStore store) {
  return store == TestKeyStore::Memory ? "memory" : "file";
}

uint64_t test_key_disk_margin(uint64_t file_bytes) {
  return (uint64_t{1} << 30) + file_bytes / 20;
}

TestKeyChoice choose_test_key_store(const std::string& mode, uint64_t file_bytes, std::optional<uint64_t> free_bytes) {
  if (mode == "file") return {TestKeyStore::File, "srs.test_keys = \"file\""};
  if (mode == "memory") return {TestKeyStore::Memory, "srs.test_keys = \"memory\""};
  const uint64_t need = file_bytes + test_key_disk_margin(file_bytes);
  if (!free_bytes) {
    return {TestKeyStore::File,
            "srs.test_keys = \"auto\": the free space of the parameter directory's filesystem is unknown"};
  }
  const std::string sizes = "the key file needs " + format_bytes(file_bytes) + " + a margin of " +
                            format_bytes(need - file_bytes) + ", the parameter directory's filesystem has " +
                            format_bytes(*free_bytes) + " free";
  if (*free_bytes >= need) return {TestKeyStore::File, "srs.test_keys = \"auto\": " + sizes};
  return {TestKeyStore::Memory, "srs.test_keys = \"auto\": " + sizes};
}

std::optional<uint64_t> free_disk_bytes(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return std::nullopt;
  while (!fs::exists(p, ec)) {
    if (!p.has_parent_path() || p.parent_path() == p) return std::nullopt;
    p = p.parent_path();
  }
  const fs::space_info s = fs::space(p, ec);  // statvfs: f_bavail * f_frsize
  if (ec || s.available == static_cast<uintmax_t>(-1)) return std::nullopt;
  return static_cast<uint64_t>(s.available);
}

}  // namespace cuzk::engine
