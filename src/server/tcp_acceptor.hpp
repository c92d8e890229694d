#pragma once
// A TCP listener of our own that admits connections by the peer's address: the daemon's listener
// when daemon.allow_unauthenticated_from is set. gRPC's own listener accepts everyone, and an
// interceptor would see a call only after gRPC has read it; here a connection from outside the
// allowlist is closed as it is accepted, before gRPC reads a byte of it, so no RPC can run. An
// admitted connection goes to gRPC as an already-connected socket (grpc::AddInsecureChannelFromFd).
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "util/cidr.hpp"

namespace cuzk::server {

class TcpAcceptor {
 public:
  struct Options {
    std::string host;   // as resolved by getaddrinfo; every address it yields is bound
    uint16_t port = 0;  // 0: a free port (the same one on every address)
    IpNetworkList allowed;
    // Takes an admitted connection (connected, non-blocking, close-on-exec); owns the fd after.
    std::function<void(int fd)> admit;
    // Called for each refused connection, after it is closed (a metric).
    std::function<void()> refused;
  };

  explicit TcpAcceptor(Options options);
  ~TcpAcceptor();  // stop()
  TcpAcceptor(const TcpAcceptor&) = delete;
  TcpAcceptor& operator=(const TcpAcceptor&) = delete;

  // Binds and listens; throws std::runtime_error naming the address and the cause (in use,
  // permission denied, not an address of this machine).
  void listen();
  uint16_t port() const { return port_; }
  // Accepts on a thread of its own until stop().
  void start();
  // Stops accepting and closes the listening sockets; after it returns `admit` is not called again.
  // Idempotent.
  void stop();

 private:
  void loop();
  void accept_all(int listen_fd);
  void refuse(int fd, const sockaddr* peer, socklen_t length);

  Options options_;
  std::vector<int> listen_fds_;
  int wake_fd_ = -1;  // an eventfd: stop() writes it to end the poll
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  // Rate limit of the refusal log: when each peer address was last logged, and how many refusals
  // went unlogged since. Only the accept thread touches it.
  struct LogState {
    std::chrono::steady_clock::time_point last;
    uint64_t unlogged = 0;
  };
  std::map<std::string, LogState> refusals_;
};

}  // namespace cuzk::server
