#pragma once
// Read-side file helpers: an owned file descriptor, a read-only mapping of a whole file, an
// anonymous page-aligned buffer, and a pread that does not stop at short reads. The .pce loader
// (src/pce/pce_file.cpp) uses the mapping for its zero-copy mode and the buffer for its parallel
// read mode. Errors are std::runtime_error with the path and the errno text.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "util/lifetimebound.hpp"

namespace cuzk {

// Closes the descriptor on destruction; move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset();

 private:
  int fd_ = -1;
};

// Opens `path` read-only (O_CLOEXEC); throws with "<path>: cannot open: <errno text>".
UniqueFd open_read_only(const std::string& path);

// Reads up to data.size() bytes at `offset`, retrying short reads and EINTR; returns the bytes
// read, which is less than requested only at end of file. Throws on an I/O error.
size_t pread_full(int fd, std::span<std::byte> data, uint64_t offset, const std::string& path);

struct MapOptions {
  bool populate = false;    // MAP_POPULATE: fault every page in now (reads the file if not cached)
  bool huge_pages = false;  // MADV_HUGEPAGE: advice only (needs file THP support in the kernel)
};

// A read-only, private mapping of the first `bytes` bytes of a file; move-only. The mapping keeps
// the file's pages alive after the descriptor is closed. Like every mapping, it raises SIGBUS when
// the file is truncated by someone else while mapped.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(int fd, size_t bytes, const MapOptions& options, const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps the whole file.
  static MappedFile open(const std::string& path, const MapOptions& options = {});

  const std::byte* data() const CUZK_LIFETIMEBOUND { return data_; }
  size_t size() const { return size_; }
  std::span<const std::byte> bytes() const CUZK_LIFETIMEBOUND { return {data_, size_}; }
  // Drops the whole pages inside [p, p + bytes) of this mapping from the process's resident set
  // (MADV_DONTNEED; the file's page cache keeps them, a later read faults them back). For data read
  // once, e.g. a 47 GB .params file decoded into points: the mapping then never holds it all.
  // Ranges outside the mapping are ignored. Advice only.
  void release_pages(const void* p, size_t bytes) const;

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// Advises transparent huge pages for the whole 2 MiB pages inside [p, p + bytes) (e.g. a large
// std::vector's storage, after reserve() and before it is first written): fewer page faults when it
// is filled and fewer TLB misses when it is read at random. Advice only; failures are ignored.
void advise_huge_pages(const void* p, size_t bytes);

// Anonymous, zero-filled, page-aligned memory (an mmap, not the heap, so a multi-GiB buffer is
// returned to the system on destruction and can use transparent huge pages); move-only.
class PageBuffer {
 public:
  PageBuffer() = default;
  // huge_pages: aligns the buffer to 2 MiB and applies MADV_HUGEPAGE. Throws when out of memory.
  explicit PageBuffer(size_t bytes, bool huge_pages = false);
  ~PageBuffer();
  PageBuffer(PageBuffer&& o) noexcept;
  PageBuffer& operator=(PageBuffer&& o) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  std::byte* data() CUZK_LIFETIMEBOUND { return data_; }
  const std::byte* data() const CUZK_LIFETIMEBOUND { return data_; }
  size_t size() const { return size_; }
  std::span<std::byte> bytes() CUZK_LIFETIMEBOUND { return {data_, size_}; }
  std::span<const std::byte> bytes() const CUZK_LIFETIMEBOUND { return {data_, size_}; }

 private:
  void release();
  std::byte* data_ = nullptr;  // start of the usable, aligned region
  size_t size_ = 0;
  std::byte* map_ = nullptr;  // what munmap gets
  size_t map_size_ = 0;
};

}  // namespace cuzk
