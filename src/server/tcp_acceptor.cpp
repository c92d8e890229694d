#include "server/tcp_acceptor.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "util/log.hpp"

namespace cuzk::server {
namespace {

using std::chrono::steady_clock;

constexpr auto kLogEvery = std::chrono::minutes(1);  // per refused peer address
constexpr size_t kMaxTrackedPeers = 4096;            // bounds the rate limiter's memory under a scan

std::string bind_error(const std::string& where, int err) {
  if (err == EADDRINUSE) return where + "address already in use (another daemon running?)";
  if (err == EACCES) return where + "permission denied (ports below 1024 need privileges)";
  if (err == EADDRNOTAVAIL) return where + "the address is not one of this machine's";
  return where + std::strerror(err);
}

uint16_t bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
}

void set_port(sockaddr* addr, uint16_t port) {
  if (addr->sa_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(addr)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(addr)->sin6_port = htons(port);
  }
}

}  // namespace

TcpAcceptor::TcpAcceptor(Options options) : options_(std::move(options)) {
  if (!options_.admit) throw std::invalid_argument("TcpAcceptor needs an admit callback");
}

TcpAcceptor::~TcpAcceptor() {
  stop();
}

void TcpAcceptor::listen() {
  const std::string where = "cannot listen on " + options_.host + ":" + std::to_string(options_.port) + ": ";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(options_.host.c_str(), "0", &hints, &found); rc != 0) {
    throw std::runtime_error(where + "cannot resolve host '" + options_.host + "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  const bool several = found->ai_next != nullptr;
  uint16_t port = options_.port;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) throw std::runtime_error(where + "socket: " + std::strerror(errno));
    listen_fds_.push_back(fd);  // closed by stop() whatever happens next
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // One address: "[::]" serves IPv4 too (its peers then appear as ::ffff:a.b.c.d). Several
    // (localhost: ::1 and 127.0.0.1): each socket its own family, so they do not collide.
    if (ai->ai_family == AF_INET6 && several) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    sockaddr_storage addr{};
    std::memcpy(&addr, ai->ai_addr, ai->ai_addrlen);
    set_port(reinterpret_cast<sockaddr*>(&addr), port);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), ai->ai_addrlen) != 0) {
      throw std::runtime_error(bind_error(where, errno));
    }
    if (::listen(fd, SOMAXCONN) != 0) throw std::runtime_error(where + "listen: " + std::strerror(errno));
    if (port == 0) port = bound_port(fd);  // port 0: the others take the port the first one got
  }
  port_ = port;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error(where + "eventfd: " + std::strerror(errno));
}

void TcpAcceptor::start() {
  if (listen_fds_.empty() || wake_fd_ < 0) throw std::logic_error("TcpAcceptor::start before listen");
  if (thread_.joinable()) throw std::logic_error("TcpAcceptor::start called twice");
  thread_ = std::thread([this] { loop(); });
}

void TcpAcceptor::stop() {
  if (thread_.joinable()) {
    stopping_.store(true);
    const uint64_t one = 1;
    if (::write(wake_fd_, &one, sizeof one) < 0) {
      // An eventfd write fails only at its counter's limit, which a single wake-up cannot reach.
    }
    thread_.join();
  }
  for (const int fd : listen_fds_) ::close(fd);
  listen_fds_.clear();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  wake_fd_ = -1;
}

void TcpAcceptor::loop() {
  std::vector<pollfd> fds;
  for (const int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
  fds.push_back({wake_fd_, POLLIN, 0});
  while (!stopping_.load()) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      logging::log_event(logging::Level::err, "accept_failed",
                         {{"error", std::string("poll: ") + std::strerror(errno)}});
      return;
    }
    if (fds.back().revents != 0) return;
    for (size_t i = 0; i + 1 < fds.size(); ++i) {
      if (fds[i].revents & POLLIN) accept_all(fds[i].fd);
    }
  }
}

void TcpAcceptor::accept_all(int listen_fd) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err == EAGAIN || err == EWOULDBLOCK) return;
      if (err == EINTR || err == ECONNABORTED || err == EPROTO) continue;
      // Out of descriptors or memory: say so and pause, rather than spin on a listener that stays
      // readable. The pause ends early on stop().
      logging::log_event(logging::Level::warn, "accept_failed", {{"error", std::strerror(err)}});
      pollfd wake{wake_fd_, POLLIN, 0};
      ::poll(&wake, 1, 100);
      return;
    }
    const auto* addr = reinterpret_cast<const sockaddr*>(&peer);
    if (!options_.allowed.contains(addr, length)) {
      refuse(fd, addr, length);
      continue;
    }
    // What gRPC sets on the connections it accepts itself: small messages are not held back.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    options_.admit(fd);
  }
}

void TcpAcceptor::refuse(int fd, const sockaddr* peer, socklen_t length) {
  ::close(fd);
  if (options_.refused) options_.refused();
  const auto now = steady_clock::now();
  if (refusals_.size() >= kMaxTrackedPeers) {
    std::erase_if(refusals_, [&](const auto& entry) { return now - entry.second.last >= kLogEvery; });
    if (refusals_.size() >= kMaxTrackedPeers) refusals_.clear();
  }
  const std::string address = peer_address_text(peer, length);
  auto [it, first] = refusals_.try_emplace(address, LogState{now, 0});
  LogState& state = it->second;
  if (!first && now - state.last < kLogEvery) {
    ++state.unlogged;
    return;
  }
  logging::log_event(logging::Level::warn, "connection_refused",
                     {{"peer", address},
                      {"reason", "not in daemon.allow_unauthenticated_from"},
                      {"unlogged_since_last", std::to_string(state.unlogged)}});
  state.last = now;
  state.unlogged = 0;
}

}  // namespace cuzk::server
