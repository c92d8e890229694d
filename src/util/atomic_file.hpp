#pragma once
// Writing a file atomically: readers of `path` see either the previous file or the complete new
// one, also after a crash or power loss. The content goes to a temporary file in the same
// directory (rename is only atomic within one file system), which commit() fsyncs, renames over
// the target and then makes durable by fsyncing the directory. Without commit() the destructor
// removes the temporary file. A process killed mid-write leaves its ".<name>.tmp-*" file behind
// (nothing can remove it); the target is untouched and such leftovers may be deleted at any time.
//
// Errors are std::runtime_error naming the path and carrying the errno text.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cuzk {

class AtomicFile {
 public:
  // Creates ".<name>.tmp-<pid>-<random>" next to `path` (O_EXCL, so never someone else's file).
  explicit AtomicFile(std::string path, unsigned mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  int fd() const { return fd_; }

  // Sets the file's final size up front: fallocate where the file system supports it (so a full
  // disk fails here and not after gigabytes of writes), else ftruncate (a sparse file).
  void allocate(uint64_t bytes);
  // Appends at the current position; retries short writes and EINTR.
  void write(std::span<const std::byte> data);
  // Writes at `offset` without moving the position; safe to call from several threads at once.
  void pwrite(std::span<const std::byte> data, uint64_t offset);
  // fsync, rename over path(), fsync the directory. After it, the object owns nothing.
  void commit();

 private:
  [[noreturn]] void fail(const char* what, int err) const;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// The whole file in one go: `data` (or `text`) written to `path` atomically, as above.
void write_file_atomically(const std::string& path, std::span<const std::byte> data, unsigned mode = 0644);
void write_file_atomically(const std::string& path, std::string_view text, unsigned mode = 0644);

}  // namespace cuzk
