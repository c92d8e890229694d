#pragma once
// Helpers shared by the libFuzzer targets (README "Tests", fuzz/CMakeLists.txt).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::fuzz {

inline std::span<const uint8_t> bytes(const uint8_t* data, size_t size) {
  return {data, size};
}

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An in-memory file with a path, for parsers that only read files (they mmap or pread it): a
// memfd reached through /proc/self/fd, rewritten for every input, so fuzzing touches no disk.
class MemFile {
 public:
  MemFile() : fd_(memfd_create("cuzk-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  // Replaces the contents with `data`; returns the path to open.
  const std::string& write(const uint8_t* data, size_t size) {
    if (ftruncate(fd_, 0) != 0 || (size > 0 && pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size))) {
      std::perror("memfd write");
      std::abort();
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace cuzk::fuzz
