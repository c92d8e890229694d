#pragma once
// Where a TEST-ONLY key made by the daemon is kept (srs.test_keys): a .params/.vk pair in the
// parameter directory, or memory only. "auto" picks the file when the directory's filesystem has
// room for it plus a margin (statvfs), else memory: the 32 GiB WindowPoSt key (~50 GB) does not fit
// the 64 GiB disk of a single-H200 host, whose 128 GiB of RAM hold it.
#include <cstdint>
#include <optional>
#include <string>

namespace cuzk::engine {

enum class TestKeyStore { File, Memory };

const char* test_key_store_name(TestKeyStore store);  // "file", "memory"

struct TestKeyChoice {
  TestKeyStore store = TestKeyStore::File;
  std::string reason;  // for the log: the mode, and for "auto" the sizes compared
};

// Free room "auto" asks for beyond the key file: 1 GiB plus 5 % of it (other files, the .vk, the
// filesystem's own reserve and whatever else writes there meanwhile).
uint64_t test_key_disk_margin(uint64_t file_bytes);

// mode: "file", "memory" or "auto" (Config::finalize checked it). free_bytes: the room on the
// parameter directory's filesystem, nullopt when unknown ("auto" then keeps the file, as before
// the mode existed: a full disk fails the setup at its start, naming the file).
TestKeyChoice choose_test_key_store(const std::string& mode, uint64_t file_bytes, std::optional<uint64_t> free_bytes);

// Bytes an unprivileged process may still write on the filesystem holding `dir` (statvfs's
// f_bavail), asked of its nearest existing ancestor (the directory is made only when a file goes
// there); nullopt when that fails.
std::optional<uint64_t> free_disk_bytes(const std::string& dir);

}  // namespace cuzk::engine
