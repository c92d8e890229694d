#include "server/grpc_server.hpp"

#include <arpa/inet.h>
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/server_posix.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "server/tcp_acceptor.hpp"
#include "util/log.hpp"
#include "util/unix_ids.hpp"

namespace cuzk::server {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

constexpr const char* kForms = "expected unix:///absolute/path, host:port or [ipv6]:port";

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

// mkdir -p for the socket's directory. Directories it creates let through whom the socket mode
// lets in (the group, others: search and read), and no one else, and get the socket's group;
// existing directories are left as they are.
void make_socket_directories(const std::string& dir, unsigned socket_mode, std::optional<gid_t> gid) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw std::runtime_error("socket directory " + dir + " exists but is not a directory");
    return;
  }
  if (errno != ENOENT) throw std::runtime_error("cannot access socket directory " + dir + ": " + errno_text(errno));
  make_socket_directories(parent_directory(dir), socket_mode, gid);
  const mode_t mode = 0700 | ((socket_mode & 0060) ? 0050 : 0) | ((socket_mode & 0006) ? 0005 : 0);
  if (::mkdir(dir.c_str(), mode) != 0) {
    if (errno == EEXIST) return;  // made meanwhile by someone else: theirs
    throw std::runtime_error(
        "cannot create socket directory " + dir + ": " + errno_text(errno) +
        " (create it beforehand, e.g. systemd's RuntimeDirectory= or install -d -o <daemon user> " + dir + ")");
  }
  // mkdir's mode went through the umask; the group first, then the exact mode.
  if ((gid && ::chown(dir.c_str(), static_cast<uid_t>(-1), *gid) != 0) || ::chmod(dir.c_str(), mode) != 0) {
    throw std::runtime_error("cannot set the group or mode of socket directory " + dir + ": " + errno_text(errno));
  }
}

// Runs a probe of the unix socket at `path`: true when a process accepts connections on it.
bool unix_socket_is_live(const std::string& path, int& probe_errno) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    probe_errno = errno;
    return false;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return true;
  probe_errno = errno;
  return false;
}

std::string octal(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode);
  return buf;
}

std::string tcp_address(const std::string& host, uint16_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

ListenAddress parse_listen_address(const std::string& text) {
  ListenAddress out;
  if (text.rfind("unix:", 0) == 0) {
    if (text.rfind("unix://", 0) != 0 || text.size() <= 7 || text[7] != '/') {
      throw std::invalid_argument("listen address '" + text + "': a unix socket needs an absolute path (" + kForms +
                                  ")");
    }
    out.is_unix = true;
    out.path = text.substr(7);
    // sun_path holds the path and its terminating NUL.
    if (out.path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      throw std::invalid_argument("listen address '" + text + "': the socket path is " +
                                  std::to_string(out.path.size()) + " bytes long; unix sockets allow at most " +
                                  std::to_string(sizeof(sockaddr_un{}.sun_path) - 1));
    }
    if (out.path.back() == '/') {
      throw std::invalid_argument("listen address '" + text + "': the socket path names a directory");
    }
    return out;
  }
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    throw std::invalid_argument("listen address '" + text + "' is not valid (" + kForms + ")");
  }
  std::string host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') {
      throw std::invalid_argument("listen address '" + text + "': unbalanced brackets (" + kForms + ")");
    }
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    throw std::invalid_argument("listen address '" + text + "': write IPv6 hosts in brackets, e.g. [::1]:9820");
  }
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    throw std::invalid_argument("listen address '" + text + "': port '" + port_text + "' is not a number in 0..65535");
  }
  out.host = std::move(host);
  out.port = static_cast<uint16_t>(port);
  return out;
}

GrpcServer::GrpcServer(GrpcServerOptions options, grpc::Service& service)
    : options_(std::move(options)), listen_(parse_listen_address(options_.listen)), service_(service) {
  if (options_.max_message_bytes == 0) throw std::invalid_argument("max_message_bytes must be greater than 0");
  if (options_.max_threads < 4) throw std::invalid_argument("max_threads must be at least 4");
  if (options_.tls && listen_.is_unix) {
    throw std::invalid_argument("listen address '" + options_.listen +
                                "': TLS is for TCP listeners; a unix socket is protected by its mode and group");
  }
  if (options_.tls && (options_.tls->cert_chain.empty() || options_.tls->private_key.empty())) {
    throw std::invalid_argument("TLS needs both a certificate chain and a private key");
  }
  if ((options_.socket_mode & ~0777u) != 0 || (options_.socket_mode & 0600u) != 0600u) {
    throw std::invalid_argument("socket mode " + octal(options_.socket_mode) +
                                " is not 0600..0777 with owner read and write");
  }
  if (!options_.allow_unauthenticated_from.empty() && (listen_.is_unix || options_.tls)) {
    throw std::invalid_argument("listen address '" + options_.listen +
                                "': an allowlist of networks is for a plaintext TCP listener (not TLS, not a unix "
                                "socket)");
  }
}

std::shared_ptr<grpc::ServerCredentials> GrpcServer::credentials() const {
  if (!options_.tls) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(options_.tls->client_ca.empty()
                                            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = options_.tls->client_ca;
  ssl.pem_key_cert_pairs.push_back({options_.tls->private_key, options_.tls->cert_chain});
  return grpc::SslServerCredentials(ssl);
}

GrpcServer::~GrpcServer() {
  shutdown(std::chrono::system_clock::now());
  wait();
}

void GrpcServer::prepare_unix_socket() {
  const std::string& path = listen_.path;
  make_socket_directories(parent_directory(path), options_.socket_mode, options_.socket_gid);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error("cannot access socket path " + path + ": " + errno_text(errno));
  }
  if (!S_ISSOCK(st.st_mode)) {
    throw std::runtime_error("cannot listen on unix://" + path +
                             ": the path exists and is not a socket; refusing to remove it (move it away or choose "
                             "another listen address)");
  }
  int probe_errno = 0;
  if (unix_socket_is_live(path, probe_errno)) {
    throw std::runtime_error("cannot listen on unix://" + path +
                             ": another process is serving on this socket (stop it first or choose another listen "
                             "address)");
  }
  // ECONNREFUSED: nobody listens; the file is left over from a process that is gone.
  if (probe_errno != ECONNREFUSED) {
    throw std::runtime_error("cannot listen on unix://" + path +
                             ": probing the existing socket failed: " + errno_text(probe_errno));
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw std::runtime_error("cannot remove the stale socket " + path + ": " + errno_text(errno));
  }
  logging::log_event(logging::Level::info, "removed stale socket", {{"path", path}});
}

void GrpcServer::probe_tcp_bind() const {
  const std::string where = "cannot listen on " + options_.listen + ": ";
  // gRPC reports only "failed"; bind a probe socket the way gRPC would to learn the cause.
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(listen_.port);
  if (const int rc = ::getaddrinfo(listen_.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    throw std::runtime_error(where + "cannot resolve host '" + listen_.host + "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (fd.get() < 0) continue;
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      const int err = errno;
      if (err == EADDRINUSE) throw std::runtime_error(where + "address already in use (another daemon running?)");
      if (err == EACCES) throw std::runtime_error(where + "permission denied (ports below 1024 need privileges)");
      if (err == EADDRNOTAVAIL) throw std::runtime_error(where + "the address is not one of this machine's");
      throw std::runtime_error(where + errno_text(err));
    }
  }
}

void GrpcServer::throw_bind_failure() {
  const std::string where = "cannot listen on " + options_.listen + ": ";
  if (listen_.is_unix) {
    const std::string dir = parent_directory(listen_.path);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw std::runtime_error(where + "no write access to directory " + dir + " (" + errno_text(errno) + ")");
    }
    throw std::runtime_error(where + "gRPC could not bind the socket (see the grpc log line above)");
  }
  probe_tcp_bind();
  if (options_.tls) {
    // The address is free, so the credentials failed: a certificate or key that does not parse, or
    // a key that does not match the certificate (gRPC logs which).
    throw std::runtime_error(where +
                             "gRPC could not set up TLS; check that daemon.tls_cert and daemon.tls_key are a "
                             "matching PEM certificate chain and private key and daemon.tls_client_ca a PEM CA "
                             "certificate (see the grpc log line above)");
  }
  throw std::runtime_error(where + "gRPC could not bind the address (see the grpc log line above)");
}

void GrpcServer::start() {
  if (server_) throw std::logic_error("GrpcServer::start called twice");
  if (listen_.is_unix) prepare_unix_socket();

  grpc::ServerBuilder builder;
  builder.RegisterService(&service_);
  const int max_bytes = static_cast<int>(std::min<uint64_t>(options_.max_message_bytes, INT_MAX));
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  // gRPC enables SO_REUSEPORT by default: a second daemon on the same TCP port would then share
  // the traffic silently instead of failing with "address in use".
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The synchronous server starts a thread per concurrent call on demand; the quota caps them.
  grpc::ResourceQuota quota("cuzk-grpc");
  quota.SetMaxThreads(options_.max_threads);
  builder.SetResourceQuota(quota);
  if (!options_.allow_unauthenticated_from.empty()) {
    start_allowlisted(builder);
    return;
  }

  int selected_port = 0;
  const std::string grpc_address = listen_.is_unix ? "unix://" + listen_.path : tcp_address(listen_.host, listen_.port);
  builder.AddListeningPort(grpc_address, credentials(), listen_.is_unix ? nullptr : &selected_port);
  if (listen_.is_unix) {
    // The socket is created inside BuildAndStart with mode 0777 & ~umask. A chmod afterwards
    // would leave a window in which other local users could connect, so the umask is narrowed
    // around the bind instead. umask is process-wide: a file another thread creates meanwhile
    // gets a stricter mode, never a looser one. apply_socket_permissions then sets the group and
    // the configured mode, before start() returns and the daemon reports it is ready.
    const mode_t old_mask = ::umask(0177);
    server_ = builder.BuildAndStart();
    ::umask(old_mask);
  } else {
    server_ = builder.BuildAndStart();
  }
  if (!server_ || (!listen_.is_unix && selected_port == 0)) {
    server_.reset();
    throw_bind_failure();
  }

  if (listen_.is_unix) {
    apply_socket_permissions();
    address_ = "unix://" + listen_.path;
  } else {
    port_ = static_cast<uint16_t>(selected_port);
    address_ = tcp_address(listen_.host, port_);
  }
}

void GrpcServer::apply_socket_permissions() {
  // The socket was created 0600 (umask); its group goes first, so that the wider mode never
  // applies to the wrong group.
  const std::string& path = listen_.path;
  std::string failed;
  if (options_.socket_gid && ::chown(path.c_str(), static_cast<uid_t>(-1), *options_.socket_gid) != 0) {
    const int err = errno;  // before group_label's lookups
    failed = "cannot give socket " + path + " to group " + group_label(*options_.socket_gid) + ": " + errno_text(err) +
             (err == EPERM ? " (the daemon's user must be a member of that group)" : "");
  } else if (::chmod(path.c_str(), options_.socket_mode) != 0) {
    failed = "cannot set mode " + octal(options_.socket_mode) + " on socket " + path + ": " + errno_text(errno);
  }
  struct stat st {};
  if (failed.empty() && ::lstat(path.c_str(), &st) != 0)
    failed = "cannot stat socket " + path + ": " + errno_text(errno);
  if (!failed.empty()) {
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
    server_.reset();
    throw std::runtime_error(failed);
  }
  socket_dev_ = st.st_dev;
  socket_ino_ = st.st_ino;
}

// The allowlisted listener: gRPC gets no port of its own, only the connections TcpAcceptor admits.
void GrpcServer::start_allowlisted(grpc::ServerBuilder& builder) {
  TcpAcceptor::Options o;
  o.host = listen_.host;
  o.port = listen_.port;
  o.allowed = options_.allow_unauthenticated_from;
  // The acceptor stops before the server shuts down, so server_ is alive whenever this runs.
  o.admit = [this](int fd) { grpc::AddInsecureChannelFromFd(server_.get(), fd); };
  o.refused = options_.on_connection_refused;
  acceptor_ = std::make_unique<TcpAcceptor>(std::move(o));
  acceptor_->listen();  // throws naming the cause (in use, permission, not this machine's)
  server_ = builder.BuildAndStart();
  if (!server_) throw std::runtime_error("cannot listen on " + options_.listen + ": gRPC could not start the server");
  acceptor_->start();
  port_ = acceptor_->port();
  address_ = tcp_address(listen_.host, port_);
}

void GrpcServer::shutdown(std::chrono::system_clock::time_point deadline) {
  std::lock_guard lock(shutdown_mu_);
  if (shut_down_ || !server_) return;
  shut_down_ = true;
  if (acceptor_) acceptor_->stop();  // no connection is handed to a server that is shutting down
  server_->Shutdown(deadline);
  if (listen_.is_unix) {
    // Remove the socket only if it is still ours: a newer daemon may have replaced it.
    struct stat st {};
    if (::lstat(listen_.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == socket_dev_ &&
        st.st_ino == socket_ino_) {
      ::unlink(listen_.path.c_str());
    }
  }
}

void GrpcServer::wait() {
  if (server_) server_->Wait();
}

namespace {
void grpc_log_to_spdlog(gpr_log_func_args* args) {
  logging::Level level = logging::Level::info;
  switch (args->severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      level = logging::Level::debug;
      break;
    case GPR_LOG_SEVERITY_INFO:
      level = logging::Level::info;
      break;
    case GPR_LOG_SEVERITY_ERROR:
      level = logging::Level::err;
      break;
  }
  logging::log_event(level, "grpc",
                     {{"message", args->message ? args->message : ""},
                      {"source", std::string(args->file ? args->file : "?") + ":" + std::to_string(args->line)}});
}
}  // namespace

void route_grpc_logs_to_spdlog() {
  gpr_set_log_function(&grpc_log_to_spdlog);
}

}  // namespace cuzk::server
