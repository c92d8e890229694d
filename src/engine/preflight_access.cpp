// The access checks of the preflight: who can reach the daemon (TLS, bearer token, the metrics
// endpoint), with the credential files read exactly as the daemon reads them at start-up.
#include <string>
#include <vector>

#include "engine/preflight.hpp"
#include "util/secret_file.hpp"

namespace cuzk::engine {
namespace {

bool is_loopback_endpoint(const std::string& address) {
  return address.rfind("127.0.0.1:", 0) == 0 || address.rfind("localhost:", 0) == 0 || address.rfind("[::1]:", 0) == 0;
}

CheckResult check_tls(const DaemonSection& d) {
  CheckResult r{"access", "tls", CheckStatus::Pass, "", {{"enabled", !d.tls_cert.empty()}}};
  if (d.tls_cert.empty()) {
    r.message =
        d.listen.rfind("unix://", 0) == 0 ? "off (a unix socket needs none)" : "off: calls travel in clear text";
    return r;
  }
  const struct {
    const std::string& path;
    const char* what;
    bool secret;
  } files[] = {{d.tls_cert, "daemon.tls_cert file", false},
               {d.tls_key, "daemon.tls_key file", true},
               {d.tls_client_ca, "daemon.tls_client_ca file", false}};
  for (const auto& f : files) {
    if (f.path.empty()) continue;
    if (auto pem = read_pem_file(f.path, f.what, f.secret); !pem) {
      r.status = CheckStatus::Fail;
      r.message = pem.error();
      return r;
    }
  }
  r.facts.emplace_back("client_certificates", !d.tls_client_ca.empty());
  r.message = d.tls_client_ca.empty()
                  ? "on (" + d.tls_cert + "); clients are not asked for certificates"
                  : "on (" + d.tls_cert + "); clients need a certificate signed by " + d.tls_client_ca;
  return r;
}

CheckResult check_token(const DaemonSection& d, bool remote) {
  CheckResult r{"access", "bearer token", CheckStatus::Pass, "", {{"enabled", !d.auth_token_file.empty()}}};
  if (d.auth_token_file.empty()) {
    r.message = "off: any client that reaches the listener may call every RPC";
    return r;
  }
  if (auto token = read_bearer_token(d.auth_token_file); !token) {
    r.status = CheckStatus::Fail;
    r.message = "daemon.auth_token_file: " + token.error();
    return r;
  }
  r.message = "required on every call (" + d.auth_token_file + ")";
  if (remote && d.tls_cert.empty()) {
    r.status = CheckStatus::Warn;
    r.message += "; without TLS it crosses the network in clear text: set daemon.tls_cert and daemon.tls_key";
  }
  return r;
}

CheckResult check_metrics(const DaemonSection& d) {
  CheckResult r{"access", "metrics endpoint", CheckStatus::Pass, "", {{"address", d.metrics_listen}}};
  if (d.metrics_listen.empty()) {
    r.message = "off (daemon.metrics_listen)";
  } else if (is_loopback_endpoint(d.metrics_listen)) {
    r.message = "http://" + d.metrics_listen + "/metrics and /status, GET only, this machine only";
  } else {
    r.status = CheckStatus::Warn;
    r.message = "http://" + d.metrics_listen +
                "/metrics is reachable from other machines without authentication (GET only; it shows job ids "
                "and load); firewall it to the scraper or listen on 127.0.0.1";
  }
  return r;
}

}  // namespace

void check_access(const Config& config, std::vector<CheckResult>& out) {
  const DaemonSection& d = config.daemon;
  const bool remote = d.listen.rfind("unix://", 0) != 0 && !is_loopback_endpoint(d.listen);
  out.push_back(check_tls(d));
  out.push_back(check_token(d, remote));
  out.push_back(check_metrics(d));
}

}  // namespace cuzk::engine
