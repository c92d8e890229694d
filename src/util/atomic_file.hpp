#pragma once
// Writing a file atomically: readers of `path` see either the previous file or the complete new
// one, also after a crash or power loss. The content goes to a temporary file in the same
// directory (rename is only atomic within one file system), which commit() fsyncs, renames over
// the target and then makes durable by fsyncing the directory. Without commit() the destructor
// removes the temporary file. A process killed mid-write leaves its ".<name>.tmp-*" file behind
// (the target is untouched); remove_stale_temp_files() deletes such leftovers, which for a key
// file can be tens of GiB. The writer holds an flock on its temporary file until commit, so that
// a cleaner can tell a live writer's file from a dead one's.
//
// Errors are std::runtime_error naming the path and carrying the errno text.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// Removes from `dir` (not its subdirectories) the temporary files of AtomicFile writers that died
// mid-write: ".<name>.tmp-<pid>-<16 hex digits>" files that no process holds locked and whose
// <pid> is no live process other than this one (a live one could be between its close and rename,
// where the lock is already gone). Anything else is left alone, errors included (a leftover only
// wastes space). Returns the paths removed.
std::vector<std::string> remove_stale_temp_files(const std::string& dir);

// The whole file in one go: `data` (or `text`) written to `path` atomically, as above.
void write_file_atomically(const std::string& path, std::span<const std::byte> data, unsigned mode = 0644);
void write_file_atomically(const std::string& path, std::string_view text, unsigned mode = 0644);

}  // namespace cuzk
