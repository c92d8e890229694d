#include "util/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

namespace cuzk {

namespace {

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(err));
}

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);  // close errors on a read-only descriptor carry no information
  fd_ = -1;
}

UniqueFd open_read_only(const std::string& path) {
  int fd;
  do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) fail(path, "cannot open", errno);
  return UniqueFd(fd);
}

size_t pread_full(int fd, std::span<std::byte> data, uint64_t offset, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "read error", errno);
    }
    if (n == 0) break;  // end of file
    done += static_cast<size_t>(n);
  }
  return done;
}

MappedFile::MappedFile(int fd, size_t bytes, const MapOptions& options, const std::string& path) {
  if (bytes == 0) return;  // mmap rejects empty mappings; an empty span is the same thing
  int flags = MAP_PRIVATE | (options.populate ? MAP_POPULATE : 0);
  void* p = ::mmap(nullptr, bytes, PROT_READ, flags, fd, 0);
  if (p == MAP_FAILED) fail(path, "cannot map", errno);
  // Advice only: without file-backed THP support the kernel ignores it, which is harmless.
  if (options.huge_pages) (void)::madvise(p, bytes, MADV_HUGEPAGE);
  data_ = static_cast<std::byte*>(p);
  size_ = bytes;
}

MappedFile MappedFile::open(const std::string& path, const MapOptions& options) {
  UniqueFd fd = open_read_only(path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) fail(path, "cannot stat", errno);
  return MappedFile(fd.get(), static_cast<size_t>(st.st_size), options, path);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

PageBuffer::PageBuffer(size_t bytes, bool huge_pages) {
  if (bytes == 0) return;
  // For huge pages, over-map by one huge page so that the usable region can start on a 2 MiB
  // boundary; the slack is never touched and so never backed by memory.
  const size_t slack = huge_pages ? kHugePage : 0;
  if (bytes > SIZE_MAX - slack) throw std::bad_alloc();
  void* p = ::mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  map_ = static_cast<std::byte*>(p);
  map_size_ = bytes + slack;
  auto addr = reinterpret_cast<uintptr_t>(p);
  data_ = map_ + (huge_pages ? ((kHugePage - addr % kHugePage) % kHugePage) : 0);
  size_ = bytes;
  if (huge_pages) (void)::madvise(data_, bytes, MADV_HUGEPAGE);  // advice; THP may be disabled
}

void PageBuffer::release() {
  if (map_) ::munmap(map_, map_size_);
  map_ = data_ = nullptr;
  map_size_ = size_ = 0;
}

PageBuffer::~PageBuffer() {
  release();
}

PageBuffer::PageBuffer(PageBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      map_(std::exchange(o.map_, nullptr)),
      map_size_(std::exchange(o.map_size_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
    map_size_ = std::exchange(o.map_size_, 0);
  }
  return *this;
}

void MappedFile::release_pages(const void* p, size_t bytes) const {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data_), end = begin + size_;
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  lo = std::max(lo, begin);
  hi = std::min(hi, end);
  lo = (lo + page - 1) & ~(page - 1);
  hi &= ~(page - 1);
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

void advise_huge_pages(const void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t lo = (a + kHugePage - 1) & ~uintptr_t{kHugePage - 1}, hi = (a + bytes) & ~uintptr_t{kHugePage - 1};
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

}  // namespace cuzk
