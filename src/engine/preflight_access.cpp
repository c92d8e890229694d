// The access checks of the preflight: who can reach the daemon (TLS, bearer token, the unix
// socket's mode and group, the networks allowed without authentication, the metrics endpoint),
// with the credential files read exactly as the daemon reads them at start-up.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/preflight.hpp"
#include "util/secret_file.hpp"
#include "util/unix_ids.hpp"

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
    r.message = d.allow_unauthenticated_from.empty()
                    ? "off: any client that reaches the listener may call every RPC"
                    : "off: the allowlisted networks call without one, other addresses are refused";
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

// The first existing directory above the socket that members of `gid` (or, `others`, any user)
// cannot search, so cannot reach the socket through; "" when none. Owner access is not counted.
std::string blocking_directory(const std::string& socket_path, gid_t gid, bool others) {
  namespace fs = std::filesystem;
  for (fs::path dir = fs::path(socket_path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
      const bool searchable = (st.st_mode & S_IXOTH) || (!others && (st.st_mode & S_IXGRP) && st.st_gid == gid);
      if (!searchable) {
        return dir.string() + " (mode " + octal_mode(st.st_mode & 07777) + ", group " + group_label(st.st_gid) + ")";
      }
    }
    if (dir == dir.root_path()) break;
  }
  return "";
}

// Who can connect to the unix socket, by its mode and group and the directories above it.
CheckResult check_socket_access(const DaemonSection& d) {
  const std::string mode = octal_mode(d.socket_mode);
  CheckResult r{"access", "unix socket", CheckStatus::Pass, "", {{"mode", mode}}};
  auto group =
      d.socket_group.empty() ? Result<GroupInfo>(GroupInfo{::getegid(), "", {}}) : lookup_group(d.socket_group);
  if (!group) {
    r.status = CheckStatus::Fail;
    r.message = "daemon.socket_group = \"" + d.socket_group + "\": " + group.error();
    return r;
  }
  const std::string label = group_label(group->gid);
  const std::string user = user_label(::geteuid());
  const std::string who = ::geteuid() == 0 ? user + " (the daemon's user)" : user + " (the daemon's user), root";
  r.facts.emplace_back("group", label);
  const bool others = (d.socket_mode & 0006) != 0;
  if (others) {
    r.status = CheckStatus::Warn;
    r.message = "mode " + mode + ": every local user can connect and submit proofs; use \"0660\" with " +
                "daemon.socket_group = Curio's group";
  } else if (d.socket_mode & 0060) {
    std::string members;
    if (const auto info = group_by_gid(group->gid)) {
      for (const auto& m : info->members) members += (members.empty() ? "" : ", ") + m;
    }
    r.message = "mode " + mode + ", group " + label + ": " + who + " and the members of the group can connect (" +
                (members.empty() ? "none listed" : "listed: " + members) + "; users whose primary group it is too)";
  } else {
    r.message = "mode " + mode + ": only " + who + " can connect; for Curio running as " +
                "another user set daemon.socket_mode = \"0660\" and daemon.socket_group to Curio's group";
  }
  if (!d.socket_group.empty() && !may_use_group(group->gid)) {
    r.status = CheckStatus::Fail;
    r.message = user + " cannot give its socket to group " + label + " (not a member): add " + user +
                " to the group, or run the daemon as one of its members";
    return r;
  }
  const std::string path = d.listen.substr(7);
  if (d.socket_mode & 0066) {
    const std::string blocked = blocking_directory(path, group->gid, others);
    if (!blocked.empty()) {
      r.status = CheckStatus::Warn;
      r.message += "; but directory " + blocked + " keeps " + (others ? "other users" : "the group's members") +
                   " from reaching the socket: grant them search (x) permission or put the socket elsewhere";
    }
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
    r.message +=
        "; the socket there now has mode " + octal_mode(st.st_mode & 07777) + ", group " + group_label(st.st_gid);
  }
  return r;
}

CheckResult check_allowlist(const DaemonSection& d) {
  std::string networks;
  for (const auto& n : d.allow_unauthenticated_from) networks += (networks.empty() ? "" : ", ") + n;
  CheckResult r{"access", "unauthenticated networks", CheckStatus::Pass, "", {{"networks", networks}}};
  if (networks.empty()) {
    r.message = "none (daemon.allow_unauthenticated_from)";
    return r;
  }
  r.status = CheckStatus::Warn;
  r.message = "clients from " + networks +
              " call every RPC without TLS or a token (daemon.allow_unauthenticated_from); connections from other "
              "addresses are closed before any RPC; firewall the port to the Curio hosts too";
  return r;
}

}  // namespace

void check_access(const Config& config, std::vector<CheckResult>& out) {
  const DaemonSection& d = config.daemon;
  const bool unix_socket = d.listen.rfind("unix://", 0) == 0;
  const bool remote = !unix_socket && !is_loopback_endpoint(d.listen);
  out.push_back(check_tls(d));
  out.push_back(check_token(d, remote));
  if (unix_socket) out.push_back(check_socket_access(d));
  out.push_back(check_allowlist(d));
  out.push_back(check_metrics(d));
}

}  // namespace cuzk::engine
