#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "util/rng.hpp"

namespace cuzk {

namespace {

// The directory part of `path` ("." when there is none), for the temp file and the directory fsync.
std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// "12.3 MiB": a size for an error message.
std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

AtomicFile::AtomicFile(std::string path, unsigned mode) : path_(std::move(path)) {
  const size_t slash = path_.find_last_of('/');
  const std::string prefix = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
  const std::string base = path_.substr(prefix.size());
  if (base.empty()) throw std::runtime_error(path_ + ": not a file name");
  SystemRng rng;
  // O_EXCL makes a name collision fail instead of sharing a file; retry a few fresh names.
  for (int attempt = 0; attempt < 8; ++attempt) {
    char suffix[64];
    std::snprintf(suffix, sizeof(suffix), ".tmp-%ld-%016llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(rng()));
    temp_path_ = prefix + "." + base + suffix;
    do fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    while (fd_ < 0 && errno == EINTR);
    if (fd_ >= 0) {
      // Held until commit closes the file (or the process dies): remove_stale_temp_files() leaves
      // a locked file alone. A file system without flock just goes without.
      (void)::flock(fd_, LOCK_EX | LOCK_NB);
      return;
    }
    if (errno != EEXIST) break;
  }
  const int err = errno;
  throw std::runtime_error(path_ + ": cannot create temporary file " + temp_path_ + ": " + std::strerror(err));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFile::fail(const char* what, int err) const {
  throw std::runtime_error(path_ + ": " + what + " (temporary file " + temp_path_ + "): " + std::strerror(err));
}

void AtomicFile::allocate(uint64_t bytes) {
  if (::fallocate(fd_, 0, 0, static_cast<off_t>(bytes)) == 0) return;
  const int err = errno;
  if (err != EOPNOTSUPP && err != ENOSYS && err != EINVAL) {
    // How much is needed, and on a full disk how much there is: what the user has to free.
    std::string what = "cannot allocate " + mib(bytes);
    struct statvfs vfs {};
    if ((err == ENOSPC || err == EDQUOT) && ::fstatvfs(fd_, &vfs) == 0) {
      what += ", " + mib(static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize) + " free on its file system";
    }
    fail(what.c_str(), err);
  }
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) fail("cannot set the file size", errno);
}

void AtomicFile::write(std::span<const std::byte> data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write error", errno);
    }
    data = data.subspan(static_cast<size_t>(n));
  }
}

void AtomicFile::pwrite(std::span<const std::byte> data, uint64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write error", errno);
    }
    data = data.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
}

void AtomicFile::commit() {
  if (committed_ || fd_ < 0) throw std::logic_error(path_ + ": AtomicFile::commit called twice");
  // The data must be on disk before the rename makes it visible under the real name; otherwise
  // a crash could leave the new name pointing at an incompletely written file.
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail("close failed", errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file into place", errno);
  committed_ = true;
  // The rename itself lives in the directory; fsync it so that the new name survives a crash.
  const std::string dir = dir_of(path_);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail("cannot open the directory to fsync it", errno);
  const int rc = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (rc != 0) fail("fsync of the directory failed", err);
}

namespace {

// The writer's pid when `name` is ".<name>.tmp-<pid>-<16 hex digits>" (AtomicFile's pattern), else 0.
long temp_file_pid(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return 0;
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || at == 0) return 0;
  const size_t dash = name.find('-', at + 5);
  if (dash == std::string::npos || dash == at + 5 || name.size() - dash - 1 != 16) return 0;
  long pid = 0;
  for (size_t i = at + 5; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9' || pid > 100'000'000) return 0;
    pid = pid * 10 + (name[i] - '0');
  }
  for (size_t i = dash + 1; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
  }
  return pid;
}

}  // namespace

std::vector<std::string> remove_stale_temp_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const long pid = temp_file_pid(it->path().filename().string());
    if (pid <= 0) continue;
    // kill(pid, 0): ESRCH means no such process; EPERM is someone else's live process.
    if (pid != static_cast<long>(::getpid()) && !(::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
      continue;
    }
    const std::string path = it->path().string();
    // Not following a link, and only a regular file: this removes leftovers, nothing else.
    int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    const bool locked_by_writer = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && !locked_by_writer && ::unlink(path.c_str()) == 0) removed.push_back(path);
    ::close(fd);
  }
  return removed;
}

void write_file_atomically(const std::string& path, std::span<const std::byte> data, unsigned mode) {
  AtomicFile f(path, mode);
  f.write(data);
  f.commit();
}

void write_file_atomically(const std::string& path, std::string_view text, unsigned mode) {
  write_file_atomically(path, std::as_bytes(std::span(text.data(), text.size())), mode);
}

}  // namespace cuzk
