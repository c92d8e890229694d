#include "client.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "util/paths.hpp"
#include "util/secret_file.hpp"
#include "util/unix_ids.hpp"

namespace cuzk::bench {

namespace {

// The daemon accepts messages up to 256 MiB by default (daemon.max_message_bytes); .wtns files of
// large circuits and multi-partition proofs need more than gRPC's 4 MiB default.
constexpr int kMaxMessageBytes = 256 << 20;

const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN_CODE";
  }
}

// The socket path of a unix target, or empty.
std::string unix_path(std::string_view target) {
  if (target.starts_with("unix://")) return std::string(target.substr(7));
  if (target.starts_with("unix:")) return std::string(target.substr(5));
  return {};
}

template <class Resp, class Call>
Result<Resp> unary(std::string_view rpc, const Client& client, std::chrono::milliseconds deadline, Call&& call) {
  grpc::ClientContext ctx;
  set_deadline(ctx, deadline);
  client.prepare(ctx);
  Resp resp;
  const grpc::Status st = call(ctx, resp);
  if (!st.ok()) return make_error(describe_rpc_error(rpc, st, client.address()));
  return resp;
}

// The channel's credentials: TLS from the PEM files, or none.
Result<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials(const AccessOptions& access) {
  if (!access.tls()) return grpc::InsecureChannelCredentials();
  if (access.tls_cert.empty() != access.tls_key.empty()) {
    return make_error("--tls-cert and --tls-key go together (a client certificate and its private key)");
  }
  grpc::SslCredentialsOptions ssl;
  if (!access.tls_ca.empty()) {
    auto ca = read_pem_file(access.tls_ca, "--tls-ca file", false);
    if (!ca) return make_error(ca.error());
    ssl.pem_root_certs = std::move(*ca);
  }
  if (!access.tls_cert.empty()) {
    auto cert = read_pem_file(access.tls_cert, "--tls-cert file", false);
    if (!cert) return make_error(cert.error());
    auto key = read_pem_file(access.tls_key, "--tls-key file", true);
    if (!key) return make_error(key.error());
    ssl.pem_cert_chain = std::move(*cert);
    ssl.pem_private_key = std::move(*key);
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace

std::string default_address() {
  return cuzk::default_socket_address();  // the daemon's own default (util/paths.hpp)
}

Result<std::string> grpc_target(std::string_view address) {
  if (address.empty()) return make_error("empty daemon address (expected unix:///path or host:port)");
  if (address.starts_with("unix:")) {
    if (unix_path(address).empty())
      return make_error("daemon address '" + std::string(address) + "' has no socket path");
    return std::string(address);
  }
  std::string_view rest = address;
  if (rest.starts_with("http://")) rest.remove_prefix(7);  // the seed bench's form
  if (rest.starts_with("https://")) {
    return make_error("daemon address '" + std::string(address) +
                      "': write host:port and pass --tls-ca FILE (the CA of the daemon's certificate) for TLS");
  }
  if (rest.starts_with("dns:") || rest.starts_with("ipv4:") || rest.starts_with("ipv6:")) return std::string(rest);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) {
    return make_error("daemon address '" + std::string(address) + "' is neither unix:///path nor host:port");
  }
  for (char c : rest.substr(colon + 1)) {
    if (c < '0' || c > '9') return make_error("daemon address '" + std::string(address) + "': port must be a number");
  }
  return std::string(rest);
}

std::string describe_rpc_error(std::string_view rpc, const grpc::Status& status, std::string_view address) {
  std::string msg = std::string(rpc) + " failed: " + code_name(status.error_code());
  if (!status.error_message().empty()) msg += ": " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      msg += " (is cuzk-daemon running at " + std::string(address) +
             "? start it, pass -a/--addr, or use --spawn-daemon PATH)";
      break;
    case grpc::StatusCode::UNIMPLEMENTED:
      msg += " (this daemon does not implement " + std::string(rpc) + "; a seed daemon lacks the cuzk extensions)";
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      msg += " (pass --token-file FILE with the daemon's daemon.auth_token_file token)";
      break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      msg += " (the daemon's queue is full or a message is over the size limit; lower -j or raise the limits)";
      break;
    default:
      break;
  }
  return msg;
}

void set_deadline(grpc::ClientContext& ctx, std::chrono::milliseconds d) {
  if (d.count() > 0) ctx.set_deadline(std::chrono::system_clock::now() + d);
}

Client::Client(std::string address, std::shared_ptr<grpc::Channel> channel, std::string token)
    : address_(std::move(address)),
      token_(std::move(token)),
      channel_(std::move(channel)),
      stub_(v1::ProvingEngine::NewStub(channel_)) {}

void Client::prepare(grpc::ClientContext& ctx) const {
  if (!token_.empty()) ctx.AddMetadata("authorization", "Bearer " + token_);
}

Result<Client> Client::connect(const std::string& address, std::chrono::milliseconds timeout,
                               const AccessOptions& access) {
  auto target = grpc_target(address);
  if (!target) return make_error(target.error());
  if (const std::string path = unix_path(*target); !path.empty()) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == EACCES) {
        return make_error("cannot reach the daemon socket " + path +
                          ": permission denied (a directory above it does not let this user through)");
      }
      return make_error("no daemon socket at " + path +
                        " (is cuzk-daemon running? start it, pass -a/--addr, or use --spawn-daemon PATH)");
    }
    if (!S_ISSOCK(st.st_mode)) return make_error(path + " exists but is not a socket");
    // Connecting needs write permission on the socket: say so rather than "connection failed".
    if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0 && errno == EACCES) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return make_error("permission denied on the daemon socket " + path + " (mode " + mode + ", group " +
                        group_label(st.st_gid) + "): the daemon's daemon.socket_mode and daemon.socket_group decide " +
                        "who may connect");
    }
  }
  std::string token;
  if (!access.token_file.empty()) {
    auto t = read_bearer_token(access.token_file);
    if (!t) return make_error("--token-file: " + t.error());
    token = std::move(*t);
  }
  auto credentials = channel_credentials(access);
  if (!credentials) return make_error(credentials.error());
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  if (!access.tls_server_name.empty()) args.SetSslTargetNameOverride(access.tls_server_name);
  auto channel = grpc::CreateCustomChannel(*target, *credentials, args);
  // Waits for READY, but gives up at the first failed attempt (a refused connection) instead of
  // retrying with backoff until the timeout.
  const auto deadline = std::chrono::system_clock::now() + timeout;
  for (;;) {
    const grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
    if (state == GRPC_CHANNEL_READY) break;
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
      return make_error("cannot connect to the daemon at " + address +
                        (access.tls() ? " (connection or TLS handshake failed; is cuzk-daemon listening there with "
                                        "TLS? check --tls-ca, --tls-server-name and, for a daemon with "
                                        "daemon.tls_client_ca, --tls-cert/--tls-key)"
                                      : " (connection failed; is cuzk-daemon running and listening there? try "
                                        "-a/--addr or --spawn-daemon PATH; a TLS daemon needs --tls-ca; a unix "
                                        "socket's mode and group must let this user in, and a daemon with "
                                        "daemon.allow_unauthenticated_from closes connections from other "
                                        "addresses)"));
    }
    if (!channel->WaitForStateChange(state, deadline)) {
      return make_error("cannot connect to the daemon at " + address + " within " + std::to_string(timeout.count()) +
                        " ms (is cuzk-daemon running and listening there?)");
    }
  }
  return Client(address, std::move(channel), std::move(token));
}

Result<v1::GetStatusResponse> Client::get_status(std::chrono::milliseconds deadline) {
  return unary<v1::GetStatusResponse>("GetStatus", *this, deadline, [&](grpc::ClientContext& c, auto& r) {
    return stub_->GetStatus(&c, v1::GetStatusRequest{}, &r);
  });
}

Result<v1::GetMetricsResponse> Client::get_metrics(std::chrono::milliseconds deadline) {
  return unary<v1::GetMetricsResponse>("GetMetrics", *this, deadline, [&](grpc::ClientContext& c, auto& r) {
    return stub_->GetMetrics(&c, v1::GetMetricsRequest{}, &r);
  });
}

Result<v1::PreloadSrsResponse> Client::preload(const std::string& circuit_id, std::chrono::milliseconds deadline) {
  v1::PreloadSrsRequest req;
  req.set_circuit_id(circuit_id);
  return unary<v1::PreloadSrsResponse>("PreloadSRS", *this, deadline,
                                       [&](grpc::ClientContext& c, auto& r) { return stub_->PreloadSRS(&c, req, &r); });
}

Result<v1::EvictSrsResponse> Client::evict(const std::string& circuit_id, std::chrono::milliseconds deadline) {
  v1::EvictSrsRequest req;
  req.set_circuit_id(circuit_id);
  return unary<v1::EvictSrsResponse>("EvictSRS", *this, deadline,
                                     [&](grpc::ClientContext& c, auto& r) { return stub_->EvictSRS(&c, req, &r); });
}

Result<v1::CancelProofResponse> Client::cancel(const std::string& job_id, std::chrono::milliseconds deadline) {
  v1::CancelProofRequest req;
  req.set_job_id(job_id);
  return unary<v1::CancelProofResponse>(
      "CancelProof", *this, deadline, [&](grpc::ClientContext& c, auto& r) { return stub_->CancelProof(&c, req, &r); });
}

Result<v1::GetVerifyingKeyResponse> Client::verifying_key(const std::string& circuit_id,
                                                          std::chrono::milliseconds deadline) {
  v1::GetVerifyingKeyRequest req;
  req.set_circuit_id(circuit_id);
  return unary<v1::GetVerifyingKeyResponse>("GetVerifyingKey", *this, deadline, [&](grpc::ClientContext& c, auto& r) {
    return stub_->GetVerifyingKey(&c, req, &r);
  });
}

}  // namespace cuzk::bench
