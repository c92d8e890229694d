#include "server/metrics_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "server/grpc_server.hpp"
#include "util/log.hpp"

namespace cuzk::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr int kPollMs = 100;  // how often the loops look at the stop flag

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

const char* reason_phrase(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
  }
  return "Error";
}

std::string http_response(int code, const std::string& content_type, const std::string& body, bool head_only = false,
                          const char* extra_header = nullptr) {
  std::string out = "HTTP/1.1 " + std::to_string(code) + " " + reason_phrase(code) + "\r\n";
  out += "Content-Type: " + content_type + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\n";
  if (extra_header != nullptr) out += std::string(extra_header) + "\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += body;
  return out;
}

std::string plain(int code, const std::string& text, bool head_only = false) {
  return http_response(code, "text/plain; charset=utf-8", text + "\n", head_only);
}

// Milliseconds left until `end`, for poll(): at most kPollMs so the stop flag is seen promptly.
int poll_slice(steady_clock::time_point end) {
  const auto left = std::chrono::duration_cast<milliseconds>(end - steady_clock::now()).count();
  return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(left, kPollMs)));
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(Options options, Callback metrics, Callback status)
    : options_(std::move(options)), metrics_(std::move(metrics)), status_(std::move(status)) {
  if (!metrics_ || !status_) throw std::invalid_argument("MetricsHttpServer needs both callbacks");
}

MetricsHttpServer::~MetricsHttpServer() {
  stop();
}

std::string MetricsHttpServer::address() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

void MetricsHttpServer::start() {
  if (thread_.joinable()) throw std::logic_error("MetricsHttpServer::start called twice");
  const ListenAddress la = parse_listen_address(options_.listen);
  const std::string where = "cannot serve metrics on " + options_.listen + ": ";
  if (la.is_unix) throw std::invalid_argument(where + "the metrics endpoint needs a TCP host:port");

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(la.port);
  if (const int rc = ::getaddrinfo(la.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    throw std::runtime_error(where + "cannot resolve '" + la.host + "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  const addrinfo* ai = list.get();
  if (!options_.allow_remote && !is_loopback(ai->ai_addr)) {
    throw std::runtime_error(where + "not a loopback address; set daemon.allow_remote = true to expose metrics");
  }
  const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) throw std::runtime_error(where + "socket: " + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(where + (err == EADDRINUSE ? std::string("address already in use") : std::strerror(err)));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(where + "getsockname: " + std::strerror(err));
  }
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  host_ = la.host;
  listen_fd_ = fd;
  stop_.store(false);
  thread_ = std::thread([this] { run(); });
}

void MetricsHttpServer::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

void MetricsHttpServer::run() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, kPollMs);
    if (rc <= 0) continue;  // timeout, or EINTR
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // EMFILE and friends: back off for one poll interval instead of spinning.
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR) {
        ::poll(nullptr, 0, kPollMs);
      }
      continue;
    }
    serve_connection(fd);
    ::close(fd);
  }
}

void MetricsHttpServer::serve_connection(int fd) {
  const auto read_end = steady_clock::now() + options_.io_timeout;
  std::string request;
  std::string response;
  char buf[2048];
  for (;;) {
    if (stop_.load()) return;
    // The end of the header block; anything after it (a body) is ignored.
    size_t end = request.find("\r\n\r\n");
    end = end == std::string::npos ? request.find("\n\n") : end;
    if (end != std::string::npos && end <= options_.max_request_bytes) {
      response = respond(request);
      break;
    }
    if (end != std::string::npos || request.size() > options_.max_request_bytes) {
      response = plain(431, "request larger than " + std::to_string(options_.max_request_bytes) + " bytes");
      break;
    }
    if (steady_clock::now() >= read_end) {
      response = plain(408, "request not received within " + std::to_string(options_.io_timeout.count()) + " ms");
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, poll_slice(read_end)) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return;  // the client went away
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return;
    }
    request.append(buf, static_cast<size_t>(n));
  }

  const auto write_end = steady_clock::now() + options_.io_timeout;
  size_t sent = 0;
  while (sent < response.size() && !stop_.load() && steady_clock::now() < write_end) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, poll_slice(write_end)) <= 0) continue;
    const ssize_t n = ::send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return;
    }
    sent += static_cast<size_t>(n);
  }
  // Half-close and drain what the client still sends for a moment: closing with unread input
  // makes the kernel send a reset, which can destroy the response before the client reads it.
  ::shutdown(fd, SHUT_WR);
  const auto drain_end = steady_clock::now() + milliseconds(kPollMs);
  while (steady_clock::now() < drain_end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, poll_slice(drain_end)) <= 0) break;
    if (::recv(fd, buf, sizeof buf, 0) <= 0) break;
  }
}

std::string MetricsHttpServer::respond(const std::string& request) {
  const auto eol = request.find('\n');
  std::string line = request.substr(0, eol);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  // "METHOD SP target SP HTTP/1.x"
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos || line.find(' ', sp2 + 1) != std::string::npos) {
    return plain(400, "malformed request line");
  }
  if (const std::string version = line.substr(sp2 + 1); version != "HTTP/1.0" && version != "HTTP/1.1") {
    return plain(400, "unsupported protocol version");
  }
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    return http_response(405, "text/plain; charset=utf-8", "only GET and HEAD are supported\n", false,
                         "Allow: GET, HEAD");
  }
  const Callback* callback = nullptr;
  std::string content_type;
  if (target == "/metrics") {
    callback = &metrics_;
    content_type = "text/plain; version=0.0.4; charset=utf-8";
  } else if (target == "/status") {
    callback = &status_;
    content_type = "application/json";
  } else {
    return plain(404, "not found; try /metrics or /status", head);
  }
  try {
    return http_response(200, content_type, (*callback)(), head);
  } catch (const std::exception& e) {
    logging::log_event(logging::Level::err, "metrics endpoint failed", {{"path", target}, {"error", e.what()}});
    return plain(500, std::string("internal error: ") + e.what(), head);
  }
}

}  // namespace cuzk::server
