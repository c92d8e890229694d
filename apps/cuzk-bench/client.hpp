#pragma once
// The connection to a cuzk daemon: address handling and thin, error-reporting wrappers around the
// cuzk.v1.ProvingEngine RPCs.
//
// Addresses: "unix:///abs/path" (or "unix:rel/path"), "host:port", and the seed's
// "http://host:port" form (the scheme is dropped). The default is the daemon's own default,
// unix://<data_dir>/cuzk.sock with data_dir = $XDG_DATA_HOME/cuzk or ~/.local/share/cuzk.
//
// Access: TLS when a CA or a client certificate is given (a daemon with daemon.tls_cert), and a
// bearer token sent with every call (a daemon with daemon.auth_token_file).
//
// One channel is shared by every thread of a run; gRPC stubs are cheap and thread-safe, and each
// Prove is its own HTTP/2 stream on that connection (as Curio's Go client does with one
// grpc.ClientConn).
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "cuzk/v1/proving.grpc.pb.h"
#include "util/result.hpp"

namespace cuzk::bench {

namespace v1 = ::cuzk::v1;

// The daemon's default socket: unix://<cuzk::default_data_dir()>/cuzk.sock (util/paths.hpp).
std::string default_address();

// The gRPC target for a user-given address; an error for an empty or malformed one.
Result<std::string> grpc_target(std::string_view address);

// "GetStatus failed: UNAVAILABLE: <message>", plus a hint for the codes a user can act on.
std::string describe_rpc_error(std::string_view rpc, const grpc::Status& status, std::string_view address);

struct AccessOptions {
  std::string tls_ca;           // PEM: the CA that signed the daemon's certificate (TLS on)
  std::string tls_cert;         // PEM: a client certificate, for a daemon with tls_client_ca (TLS on)
  std::string tls_key;          // PEM, mode 0600: its private key
  std::string tls_server_name;  // the name the daemon's certificate carries, when not the address's host
  std::string token_file;       // mode 0600: the daemon's bearer token
  bool tls() const { return !tls_ca.empty() || !tls_cert.empty(); }
};

class Client {
 public:
  // Builds the channel and waits (at most `timeout`) until it is connected; the error names the
  // address and what to try (a missing socket file, a refused connection, a failed handshake, an
  // unreadable credential file).
  static Result<Client> connect(const std::string& address, std::chrono::milliseconds timeout,
                                const AccessOptions& access = {});
  // Adds what every call needs (the bearer token); call it on each ClientContext before the call.
  void prepare(grpc::ClientContext& ctx) const;

  const std::string& address() const { return address_; }
  // A new stub on the shared channel (one per client thread).
  std::unique_ptr<v1::ProvingEngine::Stub> new_stub() const { return v1::ProvingEngine::NewStub(channel_); }

  // Unary calls with a deadline; errors are describe_rpc_error's text.
  Result<v1::GetStatusResponse> get_status(std::chrono::milliseconds deadline = std::chrono::seconds(10));
  Result<v1::GetMetricsResponse> get_metrics(std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // No deadline by default: loading or generating keys can take minutes.
  Result<v1::PreloadSrsResponse> preload(const std::string& circuit_id,
                                         std::chrono::milliseconds deadline = std::chrono::milliseconds(0));
  Result<v1::EvictSrsResponse> evict(const std::string& circuit_id,
                                     std::chrono::milliseconds deadline = std::chrono::seconds(60));
  Result<v1::CancelProofResponse> cancel(const std::string& job_id,
                                         std::chrono::milliseconds deadline = std::chrono::seconds(10));
  Result<v1::GetVerifyingKeyResponse> verifying_key(const std::string& circuit_id,
                                                    std::chrono::milliseconds deadline = std::chrono::milliseconds(0));

 private:
  Client(std::string address, std::shared_ptr<grpc::Channel> channel, std::string token);

  std::string address_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ProvingEngine::Stub> stub_;
};

// Sets a deadline `d` from now on `ctx` (none when d is zero).
void set_deadline(grpc::ClientContext& ctx, std::chrono::milliseconds d);

}  // namespace cuzk::bench
