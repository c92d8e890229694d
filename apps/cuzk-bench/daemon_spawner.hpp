#pragma once
// --spawn-daemon: a private cuzk-daemon for one run. It listens on a unix socket in a fresh
// temporary directory (also its data directory unless one is given), in its own process group (a
// Ctrl-C at the terminal reaches the bench, which then stops the daemon in order) and with
// PR_SET_PDEATHSIG (it gets SIGTERM if the bench dies). Its stdout and stderr are drained by a
// thread; the last lines of stderr are kept for error messages (and echoed with -v).
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "util/result.hpp"

namespace cuzk::bench {

struct SpawnOptions {
  std::string daemon;                      // path, or a name looked up in $PATH
  std::string data_dir;                    // empty: <temp dir>/data
  std::vector<std::string> extra_args;     // --daemon-arg values, passed through
  std::chrono::seconds start_timeout{60};  // until its `listening` line
  bool echo_stderr = false;                // -v: copy its stderr to ours, prefixed "[daemon] "
};

struct DaemonExit {
  int exit_code = -1;   // when it exited normally
  int signal = 0;       // when a signal ended it
  bool killed = false;  // it ignored SIGTERM past the timeout and got SIGKILL
  bool ok() const { return exit_code == 0 && signal == 0 && !killed; }
  std::string describe() const;  // "exit code 0", "killed by signal 9 (after SIGTERM timed out)"
};

class SpawnedDaemon {
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit SpawnedDaemon(Key) {}  // use start()
  // Starts the daemon and waits for `listening <addr>` on its stdout. Errors (cannot run it, it
  // exited early, it did not listen in time) carry the tail of its stderr.
  static Result<std::unique_ptr<SpawnedDaemon>> start(const SpawnOptions& options);
  ~SpawnedDaemon();  // stop() with a short timeout if not stopped yet; removes the temp dir
  SpawnedDaemon(const SpawnedDaemon&) = delete;
  SpawnedDaemon& operator=(const SpawnedDaemon&) = delete;

  const std::string& address() const { return address_; }  // unix://<temp>/cuzk.sock
  const std::string& data_dir() const { return data_dir_; }
  const std::string& listening_line() const { return listening_line_; }
  pid_t pid() const { return pid_; }

  // SIGTERM (the daemon drains and exits), then waits at most `timeout` before SIGKILL.
  DaemonExit stop(std::chrono::seconds timeout);
  // The last lines of its stderr, newline-separated.
  std::string stderr_tail() const;

 private:
  void drain(int out_fd, int err_fd);
  void on_line(bool is_stderr, std::string line);
  std::optional<DaemonExit> try_reap();
  // Waits for the `listening` line: nothing once it came, else the error (with its stderr's tail)
  // when the daemon ended first or the timeout passed, the daemon then stopped.
  std::optional<std::string> wait_listening(const std::string& exe, std::chrono::seconds timeout);

  pid_t pid_ = -1;
  std::string temp_dir_, data_dir_, address_, listening_line_;
  bool echo_stderr_ = false;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> tail_;
  bool listening_ = false;
  bool streams_closed_ = false;
  std::atomic<bool> quit_reader_{false};
  std::optional<DaemonExit> exit_;
};

}  // namespace cuzk::bench
