#pragma once
// The gRPC listener: one service on a unix socket ("unix:///abs/path") or a TCP address
// ("host:port", "[::1]:port"; port 0 picks a free one). Unix sockets get their parent directory
// when it is missing, replace a stale socket file (never a live one, never a file of another
// type) and are created with mode 0600, then given the configured group and mode before the
// server reports it is ready. TCP listeners may serve TLS (optionally requiring client
// certificates), or admit plaintext clients by their address only (TcpAcceptor); who may call is
// otherwise decided by the service (bearer token, ProvingService).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "util/cidr.hpp"

namespace grpc {
class Server;
class ServerBuilder;
class ServerCredentials;
class Service;
}  // namespace grpc

namespace cuzk::server {

class TcpAcceptor;

struct ListenAddress {
  bool is_unix = false;
  std::string path;   // unix: the socket file
  std::string host;   // tcp: without brackets
  uint16_t port = 0;  // tcp
};
// Throws std::invalid_argument with the expected forms when `text` is neither.
ListenAddress parse_listen_address(const std::string& text);

// PEM contents (not paths) for a TLS listener.
struct TlsFiles {
  std::string cert_chain;  // the server's certificate, then its intermediates
  std::string private_key;
  std::string client_ca;  // non-empty: clients must present a certificate this CA signed
};

struct GrpcServerOptions {
  std::string listen;
  // Largest request or response; a bigger request fails with RESOURCE_EXHAUSTED (the server keeps
  // serving). Values above INT_MAX are clamped (gRPC's limit).
  uint64_t max_message_bytes = 256ull << 20;
  // Threads gRPC may use for handlers. Prove and AwaitProof block a thread each while they wait,
  // so this bounds concurrent waiting calls; beyond it new calls get RESOURCE_EXHAUSTED instead of
  // queueing behind the waiting ones.
  int max_threads = 512;
  // TLS on a TCP listener; unset: plaintext. A unix socket with TLS is refused (std::invalid_argument).
  std::optional<TlsFiles> tls = std::nullopt;
  // A unix socket's mode (0600..0777, owner read+write) and group (unset: the process's own).
  // Directories created for it let the same classes (group, others) through.
  unsigned socket_mode = 0600;
  std::optional<gid_t> socket_gid = std::nullopt;
  // Non-empty: a plaintext TCP listener of our own (TcpAcceptor) that serves only peers in these
  // networks and closes every other connection before any RPC. Not with TLS or a unix socket
  // (std::invalid_argument).
  IpNetworkList allow_unauthenticated_from = {};
  // Called for each connection the allowlist closed (a metric).
  std::function<void()> on_connection_refused = {};
};

class GrpcServer {
 public:
  // `service` must outlive the server.
  GrpcServer(GrpcServerOptions options, grpc::Service& service);
  ~GrpcServer();  // shuts down (cancelling calls in flight) when still running
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Binds and starts serving. Throws std::runtime_error naming the address and the cause
  // (address in use, permission denied, a non-socket file in the way, ...).
  void start();
  // The address clients should use: for TCP with port 0 the chosen port; unix sockets as given.
  const std::string& address() const { return address_; }
  uint16_t port() const { return port_; }  // TCP only

  // Stops accepting calls, lets calls in flight finish until `deadline`, then cancels the rest;
  // removes the unix socket file. Idempotent and thread-safe.
  void shutdown(std::chrono::system_clock::time_point deadline);
  // Blocks until shutdown() has completed.
  void wait();

 private:
  void prepare_unix_socket();
  void apply_socket_permissions();  // group, then mode; throws naming the socket and the cause
  void start_allowlisted(grpc::ServerBuilder& builder);
  std::shared_ptr<grpc::ServerCredentials> credentials() const;
  [[noreturn]] void throw_bind_failure();
  void probe_tcp_bind() const;  // throws naming the cause when the TCP address cannot be bound

  GrpcServerOptions options_;
  ListenAddress listen_;
  grpc::Service& service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<TcpAcceptor> acceptor_;  // with allow_unauthenticated_from: stops before server_
  std::string address_;
  uint16_t port_ = 0;
  dev_t socket_dev_ = 0;  // identity of the socket file we created, so shutdown removes only it
  ino_t socket_ino_ = 0;
  std::mutex shutdown_mu_;
  bool shut_down_ = false;
};

// Sends gRPC core's own log lines (bind errors and the like) through spdlog, so they share the
// daemon's format (text or JSON) instead of gRPC's.
void route_grpc_logs_to_spdlog();

}  // namespace cuzk::server
