#include "daemon_spawner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace cuzk::bench {

namespace {

// A fresh private directory under $TMPDIR (or /tmp) for the daemon's socket and data.
Result<std::string> make_temp_dir() {
  const char* tmp_env = std::getenv("TMPDIR");
  const std::string templ =
      std::string(tmp_env != nullptr && *tmp_env != '\0' ? tmp_env : "/tmp") + "/cuzk-bench-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    return make_error("cannot create a temporary directory from " + templ + ": " + std::strerror(errno) +
                      " (set TMPDIR to a writable directory)");
  }
  return std::string(buf.data());
}

constexpr size_t kTailLines = 40;

// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.release();
    }
    return *this;
  }
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

Result<Pipe> make_pipe() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return make_error(std::string("pipe2: ") + std::strerror(errno));
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

// The executable for `name`: itself when it has a slash, else the first match in $PATH.
Result<std::string> resolve_executable(const std::string& name) {
  if (name.empty()) return make_error("--spawn-daemon: empty daemon path");
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) != 0) {
      return make_error("cannot run daemon '" + name + "': " + std::strerror(errno));
    }
    return name;
  }
  const char* path_env = std::getenv("PATH");
  std::string_view path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (!path.empty()) {
    const auto colon = path.find(':');
    const std::string_view dir = path.substr(0, colon);
    path = colon == std::string_view::npos ? std::string_view{} : path.substr(colon + 1);
    // Appended piecewise: GCC 12 warns (-Wrestrict) about `dir + "/" + name` here.
    std::string candidate(dir.empty() ? std::string_view(".") : dir);
    candidate.push_back('/');
    candidate.append(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return make_error("cannot run daemon '" + name + "': not found in $PATH (give its path)");
}

DaemonExit exit_from_status(int status) {
  DaemonExit e;
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace

std::string DaemonExit::describe() const {
  std::string s = signal != 0 ? "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")"
                              : "exit code " + std::to_string(exit_code);
  if (killed) s += ", after it ignored SIGTERM past the stop timeout";
  return s;
}

Result<std::unique_ptr<SpawnedDaemon>> SpawnedDaemon::start(const SpawnOptions& options) {
  auto exe = resolve_executable(options.daemon);
  if (!exe) return make_error(exe.error());

  auto temp_dir = make_temp_dir();
  if (!temp_dir) return make_error(temp_dir.error());
  auto d = std::make_unique<SpawnedDaemon>(Key{});
  d->temp_dir_ = *temp_dir;
  d->echo_stderr_ = options.echo_stderr;
  const std::string socket = d->temp_dir_ + "/cuzk.sock";
  if (socket.size() >= 100) {
    return make_error("the socket path " + socket + " is too long for a unix socket (set TMPDIR to a shorter path)");
  }
  d->address_ = "unix://" + socket;
  d->data_dir_ = options.data_dir.empty() ? d->temp_dir_ + "/data" : options.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(d->data_dir_, ec);
  if (ec) return make_error("cannot create the daemon's data directory " + d->data_dir_ + ": " + ec.message());

  std::vector<std::string> args{*exe, "--listen", d->address_, "--data-dir", d->data_dir_};
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  auto out = make_pipe();
  auto err = make_pipe();
  auto exec_err = make_pipe();
  if (!out || !err || !exec_err)
    return make_error("cannot create pipes for the daemon: " + std::string(strerror(errno)));
  Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until execv.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (devnull.get() >= 0) ::dup2(devnull.get(), STDIN_FILENO);
    ::dup2(out->write.get(), STDOUT_FILENO);
    ::dup2(err->write.get(), STDERR_FILENO);
    ::execv(argv[0], argv.data());
    const int e = errno;
    [[maybe_unused]] auto n = ::write(exec_err->write.get(), &e, sizeof e);
    ::_exit(127);
  }
  d->pid_ = pid;
  out->write.reset();
  err->write.reset();
  exec_err->write.reset();

  int exec_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(exec_err->read.get(), &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    d->exit_ = exit_from_status(status);
    return make_error("cannot run daemon '" + *exe + "': " + std::strerror(exec_errno));
  }

  d->reader_ = std::thread([p = d.get(), o = out->read.release(), e = err->read.release()] { p->drain(o, e); });

  if (auto err = d->wait_listening(*exe, options.start_timeout)) return make_error(*err);
  return d;
}

std::optional<std::string> SpawnedDaemon::wait_listening(const std::string& exe, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto with_tail = [this](std::string msg) {
    const std::string tail = stderr_tail();
    return msg + (tail.empty() ? std::string(" (its stderr was empty)") : "; its stderr ended with:\n" + tail);
  };
  std::unique_lock lock(mu_);
  while (!listening_) {
    lock.unlock();
    const auto reaped = try_reap();
    lock.lock();
    if (reaped || streams_closed_) {
      lock.unlock();
      const DaemonExit e = reaped ? *reaped : stop(std::chrono::seconds(5));
      return with_tail("the daemon (" + exe + ") ended before it was listening (" + e.describe() + ")");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      lock.unlock();
      const DaemonExit e = stop(std::chrono::seconds(5));
      return with_tail("the daemon (" + exe + ") did not print 'listening <addr>' within " +
                       std::to_string(timeout.count()) + " s (stopped it: " + e.describe() + ")");
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  return std::nullopt;
}

SpawnedDaemon::~SpawnedDaemon() {
  if (pid_ > 0 && !exit_) stop(std::chrono::seconds(10));
  if (reader_.joinable()) reader_.join();
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
  }
}

void SpawnedDaemon::drain(int out_fd, int err_fd) {
  Fd out(out_fd), err(err_fd);
  std::string pending[2];
  std::array<char, 4096> buf{};
  for (;;) {
    std::array<pollfd, 2> fds{pollfd{out.get(), POLLIN, 0}, pollfd{err.get(), POLLIN, 0}};
    if ((out.get() < 0 && err.get() < 0) || quit_reader_.load()) break;
    const int r = ::poll(fds.data(), fds.size(), 200);
    if (r < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        if (!pending[i].empty()) on_line(i == 1, std::move(pending[i]));
        pending[i].clear();
        (i == 0 ? out : err).reset();
        continue;
      }
      pending[i].append(buf.data(), static_cast<size_t>(n));
      size_t pos = 0;
      for (size_t nl; (nl = pending[i].find('\n', pos)) != std::string::npos; pos = nl + 1) {
        on_line(i == 1, pending[i].substr(pos, nl - pos));
      }
      pending[i].erase(0, pos);
    }
  }
  std::lock_guard lock(mu_);
  streams_closed_ = true;
  cv_.notify_all();
}

void SpawnedDaemon::on_line(bool is_stderr, std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (echo_stderr_) std::fprintf(stderr, "[daemon] %s\n", line.c_str());
  std::lock_guard lock(mu_);
  if (!is_stderr && !listening_ && line.starts_with("listening ")) {
    listening_ = true;
    listening_line_ = line;
    cv_.notify_all();
    return;
  }
  tail_.push_back(std::move(line));
  if (tail_.size() > kTailLines) tail_.pop_front();
}

std::optional<DaemonExit> SpawnedDaemon::try_reap() {
  if (exit_) return exit_;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) exit_ = exit_from_status(status);
  return exit_;
}

DaemonExit SpawnedDaemon::stop(std::chrono::seconds timeout) {
  if (!try_reap()) {
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!try_reap() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exit_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_ = exit_from_status(status);
      exit_->killed = true;
    }
  }
  // The pipes close when the daemon (and anything it started that kept them) is gone.
  if (reader_.joinable()) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(2), [&] { return streams_closed_; });
    lock.unlock();
    quit_reader_ = true;  // something else holds the pipes open: stop reading them
    reader_.join();
  }
  return *exit_;
}

std::string SpawnedDaemon::stderr_tail() const {
  std::lock_guard lock(mu_);
  std::string s;
  for (const auto& l : tail_) s += "  " + l + "\n";
  if (!s.empty()) s.pop_back();
  return s;
}

}  // namespace cuzk::bench
